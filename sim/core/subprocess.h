#pragma once
// Forked child processes that cannot outlive their parent: each dies with it
// (PR_SET_PDEATHSIG, checked against the parent that forked it) and closes every inherited file
// descriptor but stdin, stdout, stderr and its own result pipe, so it never keeps the parent's
// files (the results file, its lock) open after the parent is killed.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

namespace systole {

/// A running child: its pid and the read end of the pipe its body writes to.
struct Child {
  pid_t pid = -1;
  int fd = -1;
};

/// Forks a child that runs `body(fd)` (fd: the write end of its pipe) and exits with what it
/// returns, through _exit (no static destructors). stdout and stderr are flushed first.
/// Throws SimError when pipe or fork fails.
Child fork_child(const std::function<int(int fd)>& body);

/// Writes all of `s` to `fd` (retrying on EINTR); false when the reader went away.
bool write_all(int fd, const std::string& s);

/// How a child ended.
struct ChildOutcome {
  std::string data;    ///< everything it wrote to its pipe
  int exit_code = -1;  ///< its exit status, or -1 when a signal killed it
  int signal = 0;      ///< the signal that killed it, or 0
};

/// Reads the child's pipe to its end, closes it, and reaps the child.
ChildOutcome finish_child(Child c);

/// fork_child + finish_child: runs `body` in a child and waits for it.
ChildOutcome run_in_child(const std::function<int(int fd)>& body);

/// Sends this process's stderr to /dev/null: for children that report through their pipe only,
/// so that what a library prints as it crashes (glibc's "corrupted size vs. prev_size" when
/// libhdf5 overruns a buffer on a corrupt file) does not add a line to the parent's one error.
void silence_stderr();

/// Sets this process's soft CPU-time limit to `seconds` beyond the CPU time (user + system) it
/// has used so far, so the kernel stops it with SIGXCPU when one more step of its work takes
/// longer; capped at the hard limit, which stays as it is (an unprivileged process could not
/// raise it again). For children that read files on which a library may spin.
void allow_cpu_seconds_from_now(std::uint64_t seconds);

/// Exit codes of run_catching_in_child's child when `body` threw: its message is on the pipe.
constexpr int kChildConfigError = 3, kChildOtherError = 4;
/// run_in_child of `body` (which may write to `fd` first), the string it returns written to the
/// pipe, exit 0; a ConfigError it throws exits kChildConfigError, any other exception
/// kChildOtherError.
ChildOutcome run_catching_in_child(const std::function<std::string(int fd)>& body);
/// run_catching_in_child's child, started and left running: finish_child() waits for it. Its
/// pipe holds 64 KiB: a body that writes more waits until the parent reads.
Child start_catching_child(const std::function<std::string(int fd)>& body);

/// Forks children from a "zygote": a process forked once, when the factory is made, that forks
/// each child on request. A child is then a copy of that small, unchanging process, not of a
/// parent that keeps growing (results, HDF5 state): fork copies fewer page tables, and the
/// parent's own writes no longer copy pages it shares with running children. Children behave
/// as fork_child's (they die with the zygote, which dies with the parent; stray descriptors
/// closed); the parent may kill one by its pid. Single-threaded use.
class ChildFactory {
 public:
  /// Runs in a child: `task` as given to start(), `fd` the write end of its pipe; its return
  /// value is the exit status. Throws SimError when the zygote cannot be started.
  using Body = std::function<int(std::uint64_t task, int fd)>;
  explicit ChildFactory(Body body);
  ~ChildFactory();  ///< stops the zygote (running children die with it)
  ChildFactory(const ChildFactory&) = delete;
  ChildFactory& operator=(const ChildFactory&) = delete;

  /// Starts a child running `task`; throws SimError when pipe or fork fails.
  Child start(std::uint64_t task);
  /// finish_child for a child of this factory: reads its pipe to the end, then reaps it.
  ChildOutcome finish(Child c);

 private:
  std::int64_t call(std::int64_t op, std::int64_t arg, int fd);
  Body body_;
  pid_t zygote_ = -1;
  int sock_ = -1;
};

}  // namespace systole

#include "sim/core/subprocess.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "sim/core/error.h"

namespace systole {

namespace {

/// In the child, first thing: die with the parent, and drop every inherited descriptor but
/// 0-2 and `keep` (moved to 3). A parent that died before prctl took effect is caught by
/// comparing getppid() with the pid that forked us.
int become_child(pid_t parent, int keep) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(125);
  // The parent's handlers (a test framework's crash reporter) are not the child's: a crash in
  // the child ends the child, and the parent reports it.
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) std::signal(sig, SIG_DFL);
  if (keep != 3) {
    if (::dup2(keep, 3) < 0) ::_exit(125);
  }
  ::close_range(4, ~0U, 0);
  return 3;
}

}  // namespace

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    off += static_cast<size_t>(n);
  }
  return true;
}

Child fork_child(const std::function<int(int fd)>& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw SimError(std::string("pipe failed: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw SimError(std::string("fork failed: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    const int fd = become_child(parent, fds[1]);
    int code = 1;
    try {
      code = body(fd);
    } catch (...) {
      code = 124;
    }
    ::close(fd);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(code);  // skip static destructors (the SystemC kernel's, HDF5's)
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

ChildOutcome finish_child(Child c) {
  ChildOutcome out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(c.fd, buf, sizeof buf);
    if (n > 0) {
      out.data.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(c.fd);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  return out;
}

ChildOutcome run_in_child(const std::function<int(int fd)>& body) {
  return finish_child(fork_child(body));
}

ChildOutcome run_catching_in_child(const std::function<std::string(int fd)>& body) {
  return run_in_child([&](int fd) {
    try {
      write_all(fd, body(fd));
      return 0;
    } catch (const ConfigError& e) {
      write_all(fd, e.what());
      return kChildConfigError;
    } catch (const std::exception& e) {
      write_all(fd, e.what());
      return kChildOtherError;
    }
  });
}

}  // namespace systole

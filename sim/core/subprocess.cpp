#include "sim/core/subprocess.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <utility>

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

/// In the child after become_child: runs `body` and exits with its status (124: it threw),
/// through _exit (no static destructors: the SystemC kernel's, HDF5's).
template <class F>
[[noreturn]] void run_child_body(const F& body, int fd) {
  int code = 1;
  try {
    code = body(fd);
  } catch (...) {
    code = 124;
  }
  ::close(fd);
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(code);
}

/// The parent/zygote channel: requests {op, arg} (a start passes the pipe's write end along),
/// each answered by one number.
enum : std::int64_t { kStart = 1, kWait = 2 };
struct Request {
  std::int64_t op = 0, arg = 0;
};

bool send_request(int sock, const Request& r, int fd) {
  iovec iov{const_cast<Request*>(&r), sizeof r};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    msg.msg_control = ctl;
    msg.msg_controllen = sizeof ctl;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  for (;;) {
    if (::sendmsg(sock, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof r)) return true;
    if (errno != EINTR) return false;
  }
}

/// One request (false: the other end closed); `fd` gets a passed descriptor or -1.
bool recv_request(int sock, Request& r, int& fd) {
  iovec iov{&r, sizeof r};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  msg.msg_control = ctl;
  msg.msg_controllen = sizeof ctl;
  ssize_t n;
  while ((n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  fd = -1;
  if (n != static_cast<ssize_t>(sizeof r)) return false;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return true;
}

bool send_reply(int sock, std::int64_t v) {
  for (;;) {
    if (::send(sock, &v, sizeof v, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof v)) return true;
    if (errno != EINTR) return false;
  }
}

/// The zygote's loop: forks a child per start request, reaps one per wait request; ends when
/// the parent closes the channel.
[[noreturn]] void zygote_loop(int sock, const ChildFactory::Body& body) {
  const pid_t self = ::getpid();
  // Every fork copies the zygote's page tables: give the heap the parent freed back first.
  ::malloc_trim(0);
  Request r;
  int fd = -1;
  while (recv_request(sock, r, fd)) {
    std::int64_t reply = -EINVAL;
    if (r.op == kStart && fd >= 0) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        const int out = become_child(self, fd);
        const std::uint64_t task = static_cast<std::uint64_t>(r.arg);
        run_child_body([&](int f) { return body(task, f); }, out);
      }
      reply = pid < 0 ? -errno : pid;
      ::close(fd);
    } else if (r.op == kWait) {
      int status = 0;
      pid_t got;
      while ((got = ::waitpid(static_cast<pid_t>(r.arg), &status, 0)) < 0 && errno == EINTR) {
      }
      reply = got < 0 ? -errno : status;
    } else if (fd >= 0) {
      ::close(fd);
    }
    if (!send_reply(sock, reply)) break;
  }
  ::_exit(0);
}

/// A child's outcome from its wait status.
void decode_status(int status, ChildOutcome& out) {
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
}

/// Reads `fd` to its end into `out`, then closes it.
void drain(int fd, std::string& out) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(fd);
}

/// Flushes stdio (so buffered output is not written twice) and forks; when fork fails, closes
/// both ends of the new pipe or socket pair and throws SimError.
pid_t fork_or_close(const int (&ends)[2]) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(ends[0]);
    ::close(ends[1]);
    throw SimError(std::string("fork failed: ") + std::strerror(err));
  }
  return pid;
}

}  // namespace

ChildFactory::ChildFactory(Body body) : body_(std::move(body)) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    throw SimError(std::string("socketpair failed: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = fork_or_close(sv);
  if (pid == 0) {
    ::close(sv[0]);
    zygote_loop(become_child(parent, sv[1]), body_);
  }
  ::close(sv[1]);
  zygote_ = pid;
  sock_ = sv[0];
}

ChildFactory::~ChildFactory() {
  ::close(sock_);  // the zygote's loop ends
  while (::waitpid(zygote_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

std::int64_t ChildFactory::call(std::int64_t op, std::int64_t arg, int fd) {
  std::int64_t reply = 0;
  if (!send_request(sock_, {op, arg}, fd))
    throw SimError(std::string("worker zygote unreachable: ") + std::strerror(errno));
  ssize_t n;
  while ((n = ::recv(sock_, &reply, sizeof reply, 0)) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof reply)) throw SimError("worker zygote ended unexpectedly");
  return reply;
}

Child ChildFactory::start(std::uint64_t task) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw SimError(std::string("pipe failed: ") + std::strerror(errno));
  std::int64_t pid = -EIO;
  try {
    pid = call(kStart, static_cast<std::int64_t>(task), fds[1]);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    throw SimError(std::string("fork failed: ") + std::strerror(static_cast<int>(-pid)));
  }
  return {static_cast<pid_t>(pid), fds[0]};
}

ChildOutcome ChildFactory::finish(Child c) {
  ChildOutcome out;
  drain(c.fd, out.data);
  const std::int64_t status = call(kWait, c.pid, -1);
  if (status < 0)
    throw SimError(std::string("waiting for a worker failed: ") +
                   std::strerror(static_cast<int>(-status)));
  decode_status(static_cast<int>(status), out);
  return out;
}

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
  const pid_t parent = ::getpid();
  const pid_t pid = fork_or_close(fds);
  if (pid == 0) {
    ::close(fds[0]);
    run_child_body(body, become_child(parent, fds[1]));
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

ChildOutcome finish_child(Child c) {
  ChildOutcome out;
  drain(c.fd, out.data);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  decode_status(status, out);
  return out;
}

void silence_stderr() {
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0) return;
  ::dup2(null, STDERR_FILENO);
  ::close(null);
}

void allow_cpu_seconds_from_now(std::uint64_t seconds) {
  rusage used{};
  rlimit cpu{};
  if (::getrusage(RUSAGE_SELF, &used) != 0 || ::getrlimit(RLIMIT_CPU, &cpu) != 0) return;
  // RLIMIT_CPU counts whole seconds of user + system time; round what was used up.
  const auto spent = static_cast<std::uint64_t>(used.ru_utime.tv_sec + used.ru_stime.tv_sec) + 1;
  const rlim_t want = static_cast<rlim_t>(spent + seconds);
  cpu.rlim_cur = cpu.rlim_max == RLIM_INFINITY ? want : std::min(want, cpu.rlim_max);
  ::setrlimit(RLIMIT_CPU, &cpu);
}

ChildOutcome run_in_child(const std::function<int(int fd)>& body) {
  return finish_child(fork_child(body));
}

ChildOutcome run_catching_in_child(const std::function<std::string(int fd)>& body) {
  return finish_child(start_catching_child(body));
}

Child start_catching_child(const std::function<std::string(int fd)>& body) {
  return fork_child([&](int fd) {
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

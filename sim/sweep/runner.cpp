#include "sim/sweep/runner.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <string>

#include "sim/core/error.h"

namespace systole::sweep {

namespace {

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  const Point* point = nullptr;
  std::string data;
};

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    off += static_cast<size_t>(n);
  }
}

stats::PointResult failed(const Point& p, const std::string& why) {
  stats::PointResult r;
  r.id = p.id;
  r.key = p.key;
  r.config_hash = p.config_hash;
  r.label = p.label();
  for (const auto& [k, v] : p.assignments) r.assignments.emplace_back(k, value_text(v));
  r.config_yaml = p.root.to_yaml();
  r.status = "failed";
  r.error = why;
  return r;
}

}  // namespace

stats::PointResult run_point_here(const Point& p, const PointFn& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  stats::PointResult r;
  try {
    r = fn(p);
  } catch (const std::exception& e) {
    r = failed(p, e.what());
  }
  r.id = p.id;
  r.key = p.key;
  r.config_hash = p.config_hash;
  r.label = p.label();
  r.assignments.clear();
  for (const auto& [k, v] : p.assignments) r.assignments.emplace_back(k, value_text(v));
  if (r.config_yaml.empty()) r.config_yaml = p.root.to_yaml();
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void run_points(const std::vector<const Point*>& points, const PointFn& fn,
                const RunnerOptions& opt, const DoneFn& on_done) {
  const size_t jobs = static_cast<size_t>(std::max(1, opt.jobs));
  std::vector<Worker> running;
  size_t next = 0;
  std::fflush(stdout);
  std::fflush(stderr);
  while (next < points.size() || !running.empty()) {
    while (running.size() < jobs && next < points.size()) {
      int fds[2];
      if (::pipe(fds) != 0) throw SimError(std::string("pipe failed: ") + std::strerror(errno));
      const Point* p = points[next++];
      const pid_t pid = ::fork();
      if (pid < 0) throw SimError(std::string("fork failed: ") + std::strerror(errno));
      if (pid == 0) {
        ::close(fds[0]);
        for (const auto& w : running) ::close(w.fd);
        const stats::PointResult r = run_point_here(*p, fn);
        write_all(fds[1], stats::serialize(r));
        ::close(fds[1]);
        std::fflush(stdout);
        ::_exit(0);  // skip static destructors of the simulation kernel
      }
      ::close(fds[1]);
      running.push_back({pid, fds[0], p, {}});
    }
    std::vector<pollfd> pfds;
    for (const auto& w : running) pfds.push_back({w.fd, POLLIN, 0});
    if (::poll(pfds.data(), pfds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw SimError(std::string("poll failed: ") + std::strerror(errno));
    }
    for (size_t i = running.size(); i-- > 0;) {
      if (!(pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = running[i];
      char buf[1 << 16];
      const ssize_t n = ::read(w.fd, buf, sizeof buf);
      if (n > 0) {
        w.data.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      ::close(w.fd);
      int status = 0;
      while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
      }
      stats::PointResult r;
      if (WIFSIGNALED(status)) {
        r = failed(*w.point, fmt::format("worker process crashed: {} (signal {})",
                                         strsignal(WTERMSIG(status)), WTERMSIG(status)));
      } else if (w.data.empty()) {
        r = failed(*w.point, fmt::format("worker process exited with status {} and no result",
                                         WEXITSTATUS(status)));
      } else {
        try {
          r = stats::deserialize(w.data);
        } catch (const std::exception& e) {
          r = failed(*w.point, std::string("unreadable worker result: ") + e.what());
        }
      }
      running.erase(running.begin() + static_cast<long>(i));
      on_done(std::move(r));
    }
  }
}

}  // namespace systole::sweep

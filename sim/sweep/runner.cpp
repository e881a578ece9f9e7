#include "sim/sweep/runner.h"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>

#include "sim/core/error.h"
#include "sim/core/subprocess.h"

namespace systole::sweep {

namespace {

using Clock = std::chrono::steady_clock;

/// How often on_tick runs while workers run (ms).
constexpr int kTickMs = 1000;

struct Worker {
  Child child;
  const Point* point = nullptr;
  std::string data;
  Clock::time_point deadline = Clock::time_point::max();
  bool timed_out = false;
};

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

/// `p` with its resolved tree: as given, or rebuilt by opt.resolve.
Point complete(const Point& p, const RunnerOptions& opt) {
  return opt.resolve ? opt.resolve(p) : p;
}

Worker start_worker(ChildFactory& factory, const std::vector<const Point*>& points, size_t i,
                    double timeout_s) {
  Worker w;
  w.point = points[i];
  w.child = factory.start(i);
  if (timeout_s > 0)
    w.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(timeout_s));
  return w;
}

/// The result of a worker whose pipe reached its end: reaps it.
stats::PointResult finish_worker(ChildFactory& factory, Worker& w, const RunnerOptions& opt) {
  const double timeout_s = opt.point_timeout_s;
  ChildOutcome o = factory.finish(w.child);
  o.data = std::move(w.data) + o.data;
  if (w.timed_out)
    return failed(complete(*w.point, opt),
                  fmt::format("the point ran longer than --point-timeout {:g} s and "
                              "was stopped",
                              timeout_s));
  if (o.signal)
    return failed(complete(*w.point, opt), fmt::format("worker process crashed: {} (signal {})",
                                                       strsignal(o.signal), o.signal));
  if (o.data.empty())
    return failed(complete(*w.point, opt),
                  fmt::format("worker process exited with status {} and no result", o.exit_code));
  try {
    return stats::deserialize(o.data);
  } catch (const std::exception& e) {
    return failed(complete(*w.point, opt), std::string("unreadable worker result: ") + e.what());
  }
}

/// Milliseconds until the earliest deadline (-1: none), for poll().
int poll_timeout_ms(const std::vector<Worker>& running) {
  auto first = Clock::time_point::max();
  for (const auto& w : running)
    if (!w.timed_out) first = std::min(first, w.deadline);
  if (first == Clock::time_point::max()) return -1;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(first - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 60'000));
}

/// Kills the workers past their deadline; their pipes then reach their end.
void stop_late_workers(std::vector<Worker>& running) {
  const auto now = Clock::now();
  for (auto& w : running) {
    if (w.timed_out || now < w.deadline) continue;
    ::kill(w.child.pid, SIGKILL);
    w.timed_out = true;
  }
}

}  // namespace

stats::PointResult run_point_here(const Point& p, const PointFn& fn) {
  const auto t0 = Clock::now();
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
  r.wall_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

void run_points(const std::vector<const Point*>& points, const PointFn& fn,
                const RunnerOptions& opt, const DoneFn& on_done) {
  const size_t jobs = static_cast<size_t>(std::max(1, opt.jobs));
  std::vector<Worker> running;
  size_t next = 0;
  if (points.empty()) return;
  // Workers are forked from a zygote made now, before this process grows with the results.
  ChildFactory factory([&](std::uint64_t i, int fd) {
    write_all(fd, stats::serialize(run_point_here(complete(*points[i], opt), fn)));
    return 0;
  });
  while (next < points.size() || !running.empty()) {
    while (running.size() < jobs && next < points.size())
      running.push_back(start_worker(factory, points, next++, opt.point_timeout_s));
    if (opt.on_tick) {
      std::vector<const Point*> now;
      for (const auto& w : running) now.push_back(w.point);
      opt.on_tick(now);
    }
    std::vector<pollfd> pfds;
    for (const auto& w : running) pfds.push_back({w.child.fd, POLLIN, 0});
    int wait_ms = poll_timeout_ms(running);
    if (opt.on_tick) wait_ms = wait_ms < 0 ? kTickMs : std::min(wait_ms, kTickMs);
    if (::poll(pfds.data(), pfds.size(), wait_ms) < 0) {
      if (errno == EINTR) continue;
      throw SimError(std::string("poll failed: ") + std::strerror(errno));
    }
    stop_late_workers(running);
    // Results are handed on (written to the results file) only after the freed slots are
    // refilled, so the next points simulate while this process writes.
    std::vector<stats::PointResult> done;
    for (size_t i = running.size(); i-- > 0;) {
      if (!(pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = running[i];
      char buf[1 << 16];
      const ssize_t n = ::read(w.child.fd, buf, sizeof buf);
      if (n > 0) {
        w.data.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      done.push_back(finish_worker(factory, w, opt));
      running.erase(running.begin() + static_cast<long>(i));
    }
    while (running.size() < jobs && next < points.size())
      running.push_back(start_worker(factory, points, next++, opt.point_timeout_s));
    for (auto& r : done) on_done(std::move(r));
  }
}

}  // namespace systole::sweep

#pragma once
// simrun in the background for end-to-end tests that stop or kill a run: start it, wait for a
// condition with a deadline, see whether it still runs, count the points of a partial file.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

#include "tests/support/run.h"

namespace systole::test {

/// True while `pid` runs (it exists and is no zombie).
inline bool running(pid_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

/// Starts "simrun ARGS" in `dir` in the background (stdout to bg.out, stderr to bg.err);
/// returns its pid.
inline pid_t start_simrun(const std::string& args, const TempDir& dir) {
  std::system(("cd " + dir.dir.string() + " && (" + simrun_path() + " " + args +
               " >bg.out 2>bg.err & echo $! > bg.pid)")
                  .c_str());
  return std::stoi(slurp(dir.file("bg.pid")));
}

/// Polls `cond` every 20 ms until it holds (true) or `seconds` pass (false).
inline bool wait_for(const std::function<bool()>& cond, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

/// Points stored so far in a results file that a running simrun holds open for writing, listed
/// with h5ls (hdf5-tools) without HDF5's file lock.
inline size_t points_in(const std::string& file, const TempDir& dir) {
  const auto r = run("HDF5_USE_FILE_LOCKING=FALSE h5ls " + file + "/points", dir);
  return r.exit_code == 0 ? static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')) : 0;
}

}  // namespace systole::test

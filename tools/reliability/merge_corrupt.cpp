// Merging corrupt inputs (issue 15): for TRIALS damaged copies of VICTIM.h5 (bits flipped, bytes
// overwritten, the file truncated, at random offsets) and for each EXTRA file as it is, runs
// `simrun merge out.h5 GOOD.h5 bad.h5 --force` and classifies the outcome:
//   clean      merge exit 2, one error line, no out.h5 or out.h5.partial left
//   equal      merge wrote out.h5; it reads back whole and holds GOOD's and VICTIM's points
//   input_data merge wrote out.h5; it holds what the inputs hold as read, but the damage changed
//              a stored value of VICTIM's that no reader can tell from a real one (HDF5 keeps no
//              checksum of this format's headers or data)
//   BUG        merge wrote out.h5 (exit 0 or 1), but out.h5 does not read back (a crash or error
//              in an isolated reader), or holds other points than the inputs, or bad.h5 itself
//              does not read back (the merge accepted an input no reader accepts)
//   other      anything else (another exit code, a signal, exit 2 leaving files or 2 lines)
// --force: an input of another experiment still reaches the copy (it must not skip the checks).
// Each BUG and other case is kept as WORKDIR/case-<n>-<class>.h5 for regression tests.
//
//   merge_corrupt SIMRUN GOOD.h5 VICTIM.h5 WORKDIR TRIALS SEED [EXTRA.h5...]
#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/subprocess.h"
#include "sim/stats/results_file.h"

using namespace systole;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// Point key -> serialised point, as an isolated reader sees the file (meta, sweep and compare
/// read too); `ok` false when any reader failed or crashed.
struct Readback {
  bool ok = false;
  std::map<std::string, std::string> points;
  std::string why;
};

Readback read_back(const std::string& path) {
  const ChildOutcome o = run_catching_in_child([&](int) {
    allow_cpu_seconds_from_now(20);
    (void)stats::read_meta(path);
    (void)stats::read_compare(path);
    const stats::Table sweep = stats::read_sweep(path);
    std::string out;
    for (const auto& p : stats::read_points(path)) {
      const std::string s = stats::serialize(p);
      out += fmt::format("{} {} {}\n", p.key.size(), s.size(), sweep.rows().size());
      out += p.key + s;
    }
    return out;
  });
  Readback r;
  if (o.signal || o.exit_code != 0) {
    r.why = o.signal ? fmt::format("signal {}", o.signal) : o.data;
    return r;
  }
  std::istringstream in(o.data);
  size_t nk = 0, ns = 0, rows = 0;
  while (in >> nk >> ns >> rows) {
    in.get();
    std::string k(nk, '\0'), s(ns, '\0');
    in.read(k.data(), static_cast<std::streamsize>(nk));
    in.read(s.data(), static_cast<std::streamsize>(ns));
    r.points[k] = s;
  }
  r.ok = true;
  return r;
}

/// A damaged copy of `bytes`: one of four kinds of damage at a random offset.
std::string damage(std::string bytes, std::mt19937_64& rng, std::string& what) {
  const auto at = [&](size_t n) { return static_cast<size_t>(rng() % std::max<size_t>(n, 1)); };
  switch (rng() % 4) {
    case 0: {
      const size_t flips = 1 + at(4);
      for (size_t i = 0; i < flips; ++i) bytes[at(bytes.size())] ^= static_cast<char>(1 << at(8));
      what = fmt::format("{} bit flips", flips);
      break;
    }
    case 1: {
      const size_t pos = at(bytes.size()), n = 1 + at(64);
      for (size_t i = pos; i < std::min(bytes.size(), pos + n); ++i)
        bytes[i] = static_cast<char>(rng());
      what = fmt::format("{} random bytes at {}", n, pos);
      break;
    }
    case 2: {
      const size_t pos = at(bytes.size()), n = 1 + at(16);
      const char c = rng() % 2 ? '\0' : '\xff';
      for (size_t i = pos; i < std::min(bytes.size(), pos + n); ++i) bytes[i] = c;
      what = fmt::format("{} bytes of {:#x} at {}", n, static_cast<unsigned char>(c), pos);
      break;
    }
    default: {
      const size_t pos = at(bytes.size());
      bytes.resize(pos);
      what = fmt::format("truncated at {}", pos);
    }
  }
  return bytes;
}

struct Counts {
  std::map<std::string, int> n;
  int kept = 0;
};

/// Merges GOOD with bad.h5 in `dir` and classifies the outcome (see the file comment).
std::string classify(const std::string& simrun, const std::string& dir,
                     const std::map<std::string, std::string>& expected, std::string& detail) {
  fs::remove(dir + "/out.h5");
  fs::remove(dir + "/out.h5.partial");
  const std::string cmd = fmt::format(
      "cd '{}' && timeout 300 '{}' merge out.h5 good.h5 bad.h5 --force >stdout 2>stderr", dir,
      simrun);
  const int status = std::system(cmd.c_str());
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const std::string err = slurp(dir + "/stderr");
  detail = fmt::format("exit {}: {}", rc, err.substr(0, 300));
  const bool left = fs::exists(dir + "/out.h5") || fs::exists(dir + "/out.h5.partial");
  if (rc == 2) {
    const bool one_line = std::count(err.begin(), err.end(), '\n') == 1;
    return one_line && !left ? "clean" : "other";
  }
  if (rc != 0 && rc != 1) return "other";
  if (!fs::exists(dir + "/out.h5")) return "other";
  const Readback out = read_back(dir + "/out.h5");
  if (!out.ok) {
    detail += " | out.h5: " + out.why.substr(0, 300);
    return "BUG";
  }
  const Readback bad = read_back(dir + "/bad.h5");
  if (!bad.ok) {
    detail += " | bad.h5: " + bad.why.substr(0, 300);
    return "BUG";
  }
  if (out.points == expected) return "equal";
  std::map<std::string, std::string> as_read = read_back(dir + "/good.h5").points;
  for (const auto& [k, v] : bad.points) as_read.emplace(k, v);
  if (out.points == as_read) return "input_data";
  detail +=
      fmt::format(" | out.h5 holds {} points, the inputs {}", out.points.size(), as_read.size());
  for (const auto& [k, v] : out.points) {
    const auto it = as_read.find(k);
    if (it == as_read.end()) {
      detail += fmt::format("; point {} is in no input", k);
      break;
    }
    if (it->second == v) continue;
    const auto m = std::mismatch(v.begin(), v.end(), it->second.begin(), it->second.end());
    detail += fmt::format("; point {} differs from byte {} of {}/{} (as read from the inputs)", k,
                          m.first - v.begin(), v.size(), it->second.size());
    break;
  }
  return "BUG";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::cerr
        << "usage: merge_corrupt SIMRUN GOOD.h5 VICTIM.h5 WORKDIR TRIALS SEED [EXTRA.h5...]\n";
    return 2;
  }
  const std::string simrun = fs::absolute(argv[1]).string(), dir = argv[4];
  const int trials = std::atoi(argv[5]);
  std::mt19937_64 rng(std::strtoull(argv[6], nullptr, 10));
  try {
    fs::create_directories(dir);
    fs::copy_file(argv[2], dir + "/good.h5", fs::copy_options::overwrite_existing);
    std::map<std::string, std::string> expected = read_back(argv[2]).points;
    const Readback victim = read_back(argv[3]);
    if (!victim.ok || expected.empty()) throw std::runtime_error("GOOD or VICTIM does not read");
    for (const auto& [k, v] : victim.points) expected.emplace(k, v);
    const std::string original = slurp(argv[3]);
    Counts c;
    for (int t = 0; t < trials + argc - 7; ++t) {
      std::string what;
      if (t < trials) {
        spit(dir + "/bad.h5", damage(original, rng, what));
      } else {
        what = argv[7 + t - trials];
        fs::copy_file(what, dir + "/bad.h5", fs::copy_options::overwrite_existing);
      }
      std::string detail;
      const std::string cls = classify(simrun, dir, expected, detail);
      ++c.n[cls];
      if (cls == "BUG" || cls == "other") {
        fs::copy_file(dir + "/bad.h5", fmt::format("{}/case-{}-{}.h5", dir, t, cls),
                      fs::copy_options::overwrite_existing);
        std::cout << fmt::format("case {} ({}): {}: {}\n", t, what, cls, detail);
      }
    }
    std::cout << fmt::format("{} inputs:", trials + argc - 7);
    for (const auto& [k, v] : c.n) std::cout << fmt::format(" {} {}", k, v);
    std::cout << "\n";
    return c.n.count("BUG") || c.n.count("other") ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "merge_corrupt: " << e.what() << "\n";
    return 2;
  }
}

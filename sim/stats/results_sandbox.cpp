// read_points_isolated: read_points() in a child process. libhdf5 does not validate every
// on-disk structure, and a corrupted file can crash it (SIGSEGV inside the library); reading in
// a child turns that into a one-line ConfigError instead of taking the caller down.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "sim/core/input_file.h"
#include "sim/core/subprocess.h"
#include "sim/stats/results_file.h"

namespace systole::stats {

namespace {

std::string frame(const std::vector<PointResult>& points) {
  std::string out;
  for (const auto& p : points) {
    const std::string bytes = serialize(p);
    const std::uint64_t n = bytes.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += bytes;
  }
  return out;
}

std::vector<PointResult> unframe(const std::string& data, const std::string& path) {
  std::vector<PointResult> out;
  size_t pos = 0;
  while (pos < data.size()) {
    std::uint64_t n = 0;
    if (data.size() - pos < sizeof n) throw ConfigError({path}, "", "unreadable results");
    std::memcpy(&n, data.data() + pos, sizeof n);
    pos += sizeof n;
    if (data.size() - pos < n) throw ConfigError({path}, "", "unreadable results");
    out.push_back(deserialize(data.substr(pos, n)));
    pos += n;
  }
  return out;
}

}  // namespace

std::vector<PointResult> read_points_isolated(const std::string& path) {
  if (non_regular_kind(path) != "missing") require_regular_file(path, {path});
  const ChildOutcome o = run_catching_in_child([&](int) { return frame(read_points(path)); });
  if (o.signal)
    throw ConfigError({path}, "",
                      fmt::format("the results file is corrupted: reading it crashed the HDF5 "
                                  "library ({})",
                                  strsignal(o.signal)));
  if (o.exit_code == kChildConfigError) throw ConfigError({}, "", o.data);
  if (o.exit_code != 0) throw ConfigError({path}, "", "cannot read results file: " + o.data);
  return unframe(o.data, path);
}

}  // namespace systole::stats

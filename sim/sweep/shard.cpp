#include "sim/sweep/shard.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "sim/core/error.h"

namespace systole::sweep {

namespace {

bool parse_count(const std::string& s, long& v) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  v = std::strtol(s.c_str(), nullptr, 10);
  return errno == 0 && v <= 1000000;
}

}  // namespace

std::string Shard::text() const { return fmt::format("{}/{}", index, count); }

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  long i = -1, n = -1;
  if (slash == std::string::npos || !parse_count(text.substr(0, slash), i) ||
      !parse_count(text.substr(slash + 1), n) || n < 1)
    throw ConfigError({"<command line>"}, "--shard",
                      fmt::format("expected I/N (shard I of N, counting from 0: --shard 0/4 ... "
                                  "--shard 3/4), got '{}'",
                                  text));
  if (i >= n)
    throw ConfigError({"<command line>"}, "--shard",
                      fmt::format("shard {} of {} does not exist: shards count from 0, so I is "
                                  "0..{}",
                                  i, n, n - 1));
  return {static_cast<int>(i), static_cast<int>(n)};
}

std::optional<Shard> shard_from_slurm(const Env& env) {
  const char* id = env("SLURM_ARRAY_TASK_ID");
  const char* count = env("SLURM_ARRAY_TASK_COUNT");
  if (id == nullptr || count == nullptr) return std::nullopt;
  const char* min = env("SLURM_ARRAY_TASK_MIN");
  const char* step = env("SLURM_ARRAY_TASK_STEP");
  long i = 0, n = 0, lo = 0, st = 1;
  auto bad = [&](const std::string& why) {
    return ConfigError({"<environment>"}, "SLURM_ARRAY_TASK_ID",
                       why + "; give the shard explicitly: --shard I/N");
  };
  if (!parse_count(id, i) || !parse_count(count, n) || (min && !parse_count(min, lo)) ||
      (step && !parse_count(step, st)) || st < 1)
    throw bad("the Slurm array variables are not plain numbers");
  if (n <= 1) return std::nullopt;
  if (i < lo || (i - lo) % st != 0 || (i - lo) / st >= n)
    throw bad(fmt::format("array task {} is not one of {} tasks numbered from {} in steps of {}", i,
                          n, lo, st));
  return Shard{static_cast<int>((i - lo) / st), static_cast<int>(n)};
}

std::string shard_file(const std::string& output, const Shard& shard) {
  if (!shard.split()) return output;
  const std::string tag = fmt::format(".shard-{}-of-{}", shard.index, shard.count);
  const auto slash = output.find_last_of('/');
  const auto dot = output.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1))
    return output + tag;
  return output.substr(0, dot) + tag + output.substr(dot);
}

}  // namespace systole::sweep

#include "sim/app/run_meta.h"

#include <ctime>

#include "systole/version.h"

namespace systole::app {

std::string code_version() { return std::string(kVersion) + "+" + kGitRevision; }

stats::RunMeta run_meta(const std::string& command_line) {
  stats::RunMeta meta;
  meta.version = kVersion;
  meta.git_revision = kGitRevision;
  meta.code_version = code_version();
  meta.command_line = command_line;
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  meta.start_time = buf;
  return meta;
}

}  // namespace systole::app

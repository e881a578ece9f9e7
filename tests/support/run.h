#pragma once
// Runs a shell command for end-to-end tests, capturing stdout, stderr and the exit code.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "tests/support/paths.h"
#include "tests/support/temp_dir.h"

namespace systole::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline CommandResult run(const std::string& cmd, const TempDir& dir) {
  const std::string out = dir.file(".stdout"), err = dir.file(".stderr");
  const int status = std::system((cmd + " >" + out + " 2>" + err).c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

/// "simrun ARGS" run inside `dir`.
inline CommandResult simrun(const std::string& args, const TempDir& dir) {
  return run("cd " + dir.dir.string() + " && " + simrun_path() + " " + args, dir);
}

}  // namespace systole::test

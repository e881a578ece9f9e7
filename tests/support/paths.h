#pragma once
// Paths handed to tests by CMake/ctest (never relative to the working directory).
#include <cstdlib>
#include <string>

namespace systole::test {
inline std::string source_dir() {
  const char* s = std::getenv("SYSTOLE_SOURCE_DIR");
  return s ? s : SYSTOLE_SOURCE_DIR_DEFAULT;
}
inline std::string simrun_path() {
  const char* s = std::getenv("SYSTOLE_SIMRUN");
  return s ? s : SYSTOLE_SIMRUN_DEFAULT;
}
inline std::string bin_dir() {
  const std::string s = simrun_path();
  return s.substr(0, s.find_last_of('/'));
}
}  // namespace systole::test

#pragma once
// Helpers for configuration tests: a section loaded through its schema, and the message of the
// ConfigError a call throws ("<no error>" when it throws none).
#include <string>

#include "sim/config/node.h"
#include "sim/core/error.h"

namespace systole::test {

/// `yaml` (read as file `file`) loaded as section `path` of config type C.
template <class C>
C load_section(const std::string& yaml, const std::string& file, const std::string& path) {
  return C::schema().load(config::parse_yaml(yaml, file), path);
}

/// The ConfigError message `f()` throws, or "<no error>".
template <class F>
std::string config_error(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace systole::test

#include "sim/core/error.h"

#include <fmt/format.h>

namespace systole {

std::string Origin::str() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

static std::string format_config_error(const Origin& o, const std::string& path,
                                       const std::string& msg) {
  std::string s = o.str();
  if (!s.empty()) s += ": ";
  if (!path.empty()) s += path + ": ";
  return s + msg;
}

ConfigError::ConfigError(const Origin& origin, const std::string& path, const std::string& message)
    : Error(format_config_error(origin, path, message)),
      origin_(origin),
      path_(path),
      message_(message) {}

void fail_invariant(const char* cond, const char* file, int line, const std::string& msg) {
  throw SimError(fmt::format("internal error at {}:{}: {} ({})", file, line, msg, cond));
}

}  // namespace systole

#include "sim/core/error.h"

#include <fmt/format.h>

namespace systole {

std::string Origin::str() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

/// `text` with control characters written as \xNN, so input bytes quoted in a message (a NUL or
/// an escape sequence in a .cfg line, a YAML key) cannot corrupt the terminal or split the error
/// line; `keep_newlines` keeps '\n' where a message holds several lines on purpose (usage).
static std::string printable(const std::string& text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && !(keep_newlines && c == '\n')) || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

static std::string format_config_error(const Origin& o, const std::string& path,
                                       const std::string& msg) {
  std::string s = printable(o.str(), false);
  if (!s.empty()) s += ": ";
  if (!path.empty()) s += printable(path, false) + ": ";
  return s + printable(msg, true);
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

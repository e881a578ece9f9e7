#include "sim/core/error.h"

#include <fmt/format.h>

namespace systole {

std::string Origin::str() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

/// `text` with control characters written as \xNN, so input bytes quoted in a message (a NUL or
/// an escape sequence in a .cfg line, a line break in a YAML key) can neither corrupt the
/// terminal nor split the error line.
static std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

/// printable(), except that a usage block the command-line front ends append on purpose
/// ("\nusage: ..." to the end) keeps its lines.
static std::string printable_message(const std::string& msg) {
  const size_t usage = msg.find("\nusage: ");
  if (usage == std::string::npos) return printable(msg);
  return printable(msg.substr(0, usage)) + msg.substr(usage);
}

static std::string format_config_error(const Origin& o, const std::string& path,
                                       const std::string& msg) {
  std::string s = printable(o.str());
  if (!s.empty()) s += ": ";
  if (!path.empty()) s += printable(path) + ": ";
  return s + printable_message(msg);
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

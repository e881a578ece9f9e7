#pragma once
// Text helpers shared by the SCALE-Sim readers: Python's str.strip / int() and CSV fields.

#include <cctype>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace systole::workloads {

inline std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

/// Python's int(text) for base-10 text: surrounding blanks, an optional sign, digits with
/// single underscores between them. False (v untouched) for anything else or on overflow.
inline bool parse_int64(const std::string& text, std::int64_t& v) {
  const std::string s = trim(text);
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i >= s.size()) return false;
  std::int64_t out = 0;
  bool digit_before = false;
  for (; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '_') {
      if (!digit_before || i + 1 >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i + 1])))
        return false;
      digit_before = false;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    const int d = ch - '0';
    if (out > (std::numeric_limits<std::int64_t>::max() - d) / 10) return false;
    out = out * 10 + d;
    digit_before = true;
  }
  v = neg ? -out : out;
  return true;
}

/// Splits on commas, keeping empty fields ("a,b," -> {"a", "b", ""}).
inline std::vector<std::string> split_fields(const std::string& s) {
  std::vector<std::string> out(1);
  for (char ch : s) {
    if (ch == ',')
      out.emplace_back();
    else
      out.back() += ch;
  }
  return out;
}

/// A YAML double-quoted scalar.
inline std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

}  // namespace systole::workloads

#pragma once
// A minimal JSON reader for tests (RFC 8259 values: objects, arrays, strings with escapes,
// numbers, true/false/null). Numbers keep their text too, so a test can read "12.345" exactly.
// Throws std::runtime_error with the byte offset on malformed input.
#include <cctype>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace systole::test {

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string text;  ///< a string's value, or a number's text
  std::vector<Json> items;
  std::map<std::string, Json> members;

  bool has(const std::string& k) const { return members.count(k) != 0; }
  const Json& operator[](const std::string& k) const {
    const auto it = members.find(k);
    if (it == members.end()) throw std::runtime_error("json: no member '" + k + "'");
    return it->second;
  }
  const std::string& str() const { return text; }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}
  Json parse() {
    Json v = value();
    space();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("json: " + what + " at byte " + std::to_string(i_));
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  char peek() {
    space();
    if (i_ >= s_.size()) fail("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool word(const char* w) {
    const std::string t(w);
    if (s_.compare(i_, t.size(), t) != 0) return false;
    i_ += t.size();
    return true;
  }
  Json value() {
    const char c = peek();
    Json v;
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') {
      v.type = Json::Type::kString;
      v.text = string();
    } else if (word("true") || word("false")) {
      v.type = Json::Type::kBool;
      v.boolean = s_[i_ - 1] == 'e' && s_[i_ - 2] == 'u';
    } else if (word("null")) {
      v.type = Json::Type::kNull;
    } else {
      number(v);
    }
    return v;
  }
  void number(Json& v) {
    const size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                              s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-'))
      ++i_;
    if (i_ == start) fail("unexpected character");
    v.type = Json::Type::kNumber;
    v.text = s_.substr(start, i_ - start);
    size_t used = 0;
    v.number = std::stod(v.text, &used);
    if (used != v.text.size()) fail("bad number '" + v.text + "'");
  }
  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          const unsigned long cp = std::stoul(s_.substr(i_, 4), nullptr, 16);
          i_ += 4;
          if (cp >= 0x80) fail("non-ASCII \\u escape (not needed by these tests)");
          out += static_cast<char>(cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }
  Json array() {
    Json v;
    v.type = Json::Type::kArray;
    expect('[');
    if (peek() == ']') {
      ++i_;
      return v;
    }
    for (;;) {
      v.items.push_back(value());
      if (peek() == ']') break;
      expect(',');
    }
    ++i_;
    return v;
  }
  Json object() {
    Json v;
    v.type = Json::Type::kObject;
    expect('{');
    if (peek() == '}') {
      ++i_;
      return v;
    }
    for (;;) {
      peek();
      std::string k = string();
      expect(':');
      if (!v.members.emplace(k, value()).second) fail("duplicate key '" + k + "'");
      if (peek() == '}') break;
      expect(',');
    }
    ++i_;
    return v;
  }

  const std::string& s_;
  size_t i_ = 0;
};

inline Json parse_json(const std::string& s) { return JsonReader(s).parse(); }

}  // namespace systole::test

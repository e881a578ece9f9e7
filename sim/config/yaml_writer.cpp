#include "sim/config/yaml_writer.h"

#include <yaml-cpp/yaml.h>

namespace systole::config {

namespace {

// yaml-cpp 0.7's emitter indents each nested block map or list by 2 columns (EmitterState's
// default indent) and writes null as "~".
constexpr size_t kIndent = 2;
constexpr const char* kNull = "~";

// A resolved chip config is 2-3 KB of text: one allocation for the common case.
constexpr size_t kReserveBytes = 4096;

// yaml-cpp 0.7 writes a key of more than 1024 bytes (before escaping) as a "? key" long key
// (measured on Debian's libyaml-cpp 0.7.0: 1024 bytes simple, 1025 long; 400 control characters,
// 1600 bytes escaped, simple). Keys this long never occur in a config: a tree holding one is
// written by the emitter as a whole.
constexpr size_t kMaxDirectKeyBytes = 1024;

/// A list is written in flow style ("[a, b]") when every item is a scalar (Node::to_yaml's rule).
bool flow_list(const Node& n) {
  for (const auto& i : n.items())
    if (!i.is_scalar()) return false;
  return true;
}

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '/' || c == '+';
}

/// A conservative subset of yaml-cpp 0.7's plain scalars (emitterutils.cpp IsValidPlainScalar):
/// ASCII letters, digits, "_./+-", inner spaces and, outside flow lists, inner commas; not
/// empty, not a null word ("null", "Null", "NULL"), no trailing space, starting with a word
/// character or with '-' and a non-space. Any other text may still be plain: the emitter decides.
bool certainly_plain(const std::string& s, bool in_flow) {
  if (s.empty() || s.back() == ' ') return false;
  if (!word_char(s[0]) && !(s[0] == '-' && s.size() > 1 && s[1] != ' ')) return false;
  for (const char c : s)
    if (!word_char(c) && c != '-' && c != ' ' && (in_flow || c != ',')) return false;
  if (s.size() != 4 || (s[0] != 'n' && s[0] != 'N')) return true;
  return s != "null" && s != "Null" && s != "NULL";
}

/// The emitter's text for one scalar (plain or double-quoted, never spanning lines), in a block
/// context or inside a flow list.
std::string emitted_scalar(const std::string& s, bool in_flow) {
  YAML::Emitter out;
  if (!in_flow) {
    out << s;
    return out.c_str();
  }
  out << YAML::Flow << YAML::BeginSeq << s << YAML::EndSeq;
  const std::string t = out.c_str();  // "[" text "]"
  return t.substr(1, t.size() - 2);
}

bool has_long_key(const Node& n) {
  for (const auto& e : n.entries())
    if (e.key.size() > kMaxDirectKeyBytes || has_long_key(e.value)) return true;
  for (const auto& i : n.items())
    if (has_long_key(i)) return true;
  return false;
}

/// Writes the layout of yaml-cpp 0.7's block emitter: a nested block map or list starts on a new
/// line, 2 columns in; a map inside a list starts on the item's line ("- a: 1"), a list inside a
/// list on the next line ("-\n  - x"); an empty map is "{}", on the next line after a key.
class Writer {
 public:
  std::string text;

  void root(const Node& n) {
    if (n.is_map() && !n.entries().empty())
      block_map(n, 0, true);
    else if (n.is_seq() && !flow_list(n))
      block_list(n, 0, true);
    else
      inline_value(n);
  }

 private:
  void newline(size_t indent) {
    text += '\n';
    text.append(indent, ' ');
  }

  void scalar(const std::string& s, bool in_flow) {
    if (certainly_plain(s, in_flow))
      text += s;
    else
      text += emitted_scalar(s, in_flow);
  }

  /// Null, a scalar, a flow list or an empty map: text on the current line.
  void inline_value(const Node& n) {
    switch (n.kind()) {
      case Node::Kind::kNull:
        text += kNull;
        return;
      case Node::Kind::kScalar:
        scalar(n.text(), false);
        return;
      case Node::Kind::kSeq:
        text += '[';
        for (size_t i = 0; i < n.items().size(); ++i) {
          if (i > 0) text += ", ";
          scalar(n.items()[i].text(), true);
        }
        text += ']';
        return;
      case Node::Kind::kMap:
        text += "{}";
        return;
    }
  }

  /// A map with entries at column `indent`; the first key goes on the current line when
  /// `on_line`.
  void block_map(const Node& n, size_t indent, bool on_line) {
    for (const auto& e : n.entries()) {
      if (!on_line) newline(indent);
      on_line = false;
      scalar(e.key, false);
      text += ':';
      map_value(e.value, indent);
    }
  }

  void map_value(const Node& v, size_t indent) {
    if (v.is_map()) {
      if (v.entries().empty()) {
        newline(indent + kIndent);
        text += "{}";
      } else {
        block_map(v, indent + kIndent, false);
      }
    } else if (v.is_seq() && !flow_list(v)) {
      block_list(v, indent + kIndent, false);
    } else {
      text += ' ';
      inline_value(v);
    }
  }

  /// A block list with its dashes at column `indent`.
  void block_list(const Node& n, size_t indent, bool on_line) {
    for (const auto& i : n.items()) {
      if (!on_line) newline(indent);
      on_line = false;
      text += '-';
      list_item(i, indent);
    }
  }

  void list_item(const Node& v, size_t indent) {
    if (v.is_map() && !v.entries().empty()) {
      text += ' ';
      block_map(v, indent + kIndent, true);
    } else if (v.is_seq() && !flow_list(v)) {
      block_list(v, indent + kIndent, false);
    } else {
      text += ' ';
      inline_value(v);
    }
  }
};

void emit(YAML::Emitter& out, const Node& n) {
  switch (n.kind()) {
    case Node::Kind::kNull:
      out << YAML::Null;
      break;
    case Node::Kind::kScalar:
      out << n.text();
      break;
    case Node::Kind::kSeq: {
      if (flow_list(n)) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& i : n.items()) emit(out, i);
      out << YAML::EndSeq;
      break;
    }
    case Node::Kind::kMap:
      out << YAML::BeginMap;
      for (const auto& e : n.entries()) {
        out << YAML::Key << e.key << YAML::Value;
        emit(out, e.value);
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

std::string write_yaml(const Node& node) {
  if (has_long_key(node)) return write_yaml_reference(node);
  Writer w;
  w.text.reserve(kReserveBytes);
  w.root(node);
  return std::move(w.text);
}

std::string write_yaml_reference(const Node& node) {
  YAML::Emitter out;
  emit(out, node);
  return out.c_str();
}

}  // namespace systole::config

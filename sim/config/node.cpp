#include "sim/config/node.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "sim/config/search_path.h"
#include "sim/config/yaml_writer.h"
#include "sim/core/input_file.h"
#include "sim/core/text.h"

namespace systole::config {

namespace fs = std::filesystem;

Node Node::scalar(std::string text, Origin origin) {
  Node n;
  n.kind_ = Kind::kScalar;
  n.text_ = std::move(text);
  n.origin_ = std::move(origin);
  return n;
}

Node Node::map(Origin origin) {
  Node n;
  n.kind_ = Kind::kMap;
  n.origin_ = std::move(origin);
  return n;
}

Node Node::seq(Origin origin) {
  Node n;
  n.kind_ = Kind::kSeq;
  n.origin_ = std::move(origin);
  return n;
}

const char* Node::kind_name() const {
  switch (kind_) {
    case Kind::kNull:
      return "nothing";
    case Kind::kScalar:
      return "a value";
    case Kind::kSeq:
      return "a list";
    case Kind::kMap:
      return "a mapping";
  }
  return "?";
}

const Node::Entry* Node::find_entry(const std::string& key) const {
  for (const auto& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

const Node* Node::find(const std::string& key) const {
  const Entry* e = find_entry(key);
  return e ? &e->value : nullptr;
}

Node* Node::find(const std::string& key) {
  for (auto& e : entries_)
    if (e.key == key) return &e.value;
  return nullptr;
}

Node& Node::set(const std::string& key, Node value, Origin key_origin) {
  if (kind_ != Kind::kMap) {
    *this = map(origin_);
  }
  for (auto& e : entries_) {
    if (e.key == key) {
      e.value = std::move(value);
      return e.value;
    }
  }
  if (key_origin.file.empty()) key_origin = value.origin();
  entries_.push_back({key, key_origin, std::move(value)});
  return entries_.back().value;
}

bool Node::erase(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->key == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<std::string> Node::keys() const {
  std::vector<std::string> k;
  for (const auto& e : entries_) k.push_back(e.key);
  return k;
}

namespace {

Origin origin_of(const YAML::Mark& m, const std::string& file) {
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

// Limits that keep a hostile file from exhausting the stack or the memory: real configs nest
// fewer than 10 levels and use few aliases, while a 10-line "billion laughs" file expands to
// 10^9 values. Without aliases a file has fewer values than characters, so the value budget is
// the file's size plus kMaxAliasValues.
constexpr size_t kMaxYamlDepth = 64;
constexpr size_t kMaxAliasValues = 100000;

bool allowed_tag(const std::string& tag) {
  // "?" untagged plain, "!" untagged quoted or block; the core schema's own tags are harmless.
  static const std::vector<std::string> core = {"", "?", "!"};
  static const std::string yaml = "tag:yaml.org,2002:";
  static const std::vector<std::string> kinds = {"str",  "int", "float", "bool",
                                                 "null", "seq", "map"};
  if (std::find(core.begin(), core.end(), tag) != core.end()) return true;
  return tag.rfind(yaml, 0) == 0 &&
         std::find(kinds.begin(), kinds.end(), tag.substr(yaml.size())) != kinds.end();
}

/// yaml-cpp 0.7 accepts a quoted scalar left open to the end of a file that ends with a newline
/// (the rest of the file becomes its text); true when the quote at `pos` is never closed.
bool unterminated_quote(const std::string& text, size_t pos) {
  if (pos >= text.size() || (text[pos] != '"' && text[pos] != '\'')) return false;
  const char q = text[pos];
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (q == '"' && text[i] == '\\') {
      ++i;
    } else if (text[i] == q) {
      if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;
        continue;
      }
      return false;
    }
  }
  return true;
}

/// yaml-cpp's node graph to our tree, checking what yaml-cpp lets through: alias cycles and
/// expansion, nesting depth, custom tags, unterminated quotes, non-scalar keys, duplicate keys.
class Converter {
 public:
  Converter(const std::string& text, const std::string& file)
      : text_(text), file_(file), budget_(text.size() + kMaxAliasValues) {}

  Node convert(const YAML::Node& y, const std::string& path) {
    const Origin o = origin_of(y.Mark(), file_);
    check(y, o, path);
    ancestors_.push_back(y);
    Node n = build(y, o, path);
    ancestors_.pop_back();
    return n;
  }

 private:
  void check(const YAML::Node& y, const Origin& o, const std::string& path) {
    for (const auto& a : ancestors_)
      if (a.is(y))
        throw ConfigError(o, path,
                          "a YAML alias refers to a node that contains it (the value would be "
                          "infinite)");
    if (ancestors_.size() >= kMaxYamlDepth)
      throw ConfigError(o, path,
                        fmt::format("the YAML nests more than {} levels deep", kMaxYamlDepth));
    if (values_++ >= budget_)
      throw ConfigError(o, path,
                        fmt::format("the YAML's aliases expand to more than {} values (an alias "
                                    "bomb?); write the values out instead",
                                    budget_));
    check_scalar_text(y, o, path);
  }

  void check_scalar_text(const YAML::Node& y, const Origin& o, const std::string& path) const {
    if (!allowed_tag(y.Tag()))
      throw ConfigError(
          o, path, fmt::format("YAML tag '{}' is not supported (write a plain value)", y.Tag()));
    if (y.IsScalar() && !y.Mark().is_null() && y.Mark().pos >= 0 &&
        unterminated_quote(text_, static_cast<size_t>(y.Mark().pos)))
      throw ConfigError(o, path,
                        fmt::format("YAML syntax error: the quoted string that starts here is "
                                    "never closed (missing {})",
                                    text_[static_cast<size_t>(y.Mark().pos)]));
  }

  Node build(const YAML::Node& y, const Origin& o, const std::string& path) {
    switch (y.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: {
        Node n;
        n.set_origin(o);
        return n;
      }
      case YAML::NodeType::Scalar:
        return Node::scalar(y.Scalar(), o);
      case YAML::NodeType::Sequence: {
        Node n = Node::seq(o);
        size_t i = 0;
        for (const auto& item : y)
          n.push_back(convert(item, path + "[" + std::to_string(i++) + "]"));
        return n;
      }
      case YAML::NodeType::Map:
        return build_map(y, o, path);
    }
    return Node();
  }

  Node build_map(const YAML::Node& y, const Origin& o, const std::string& path) {
    Node n = Node::map(o);
    for (const auto& kv : y) {
      const Origin ko = origin_of(kv.first.Mark(), file_);
      if (!kv.first.IsScalar()) throw ConfigError(ko, "", "mapping keys must be plain names");
      check_scalar_text(kv.first, ko, path);
      const std::string key = kv.first.Scalar();
      const std::string sub = path.empty() ? key : path + "." + key;
      if (const auto* prev = n.find_entry(key))
        throw ConfigError(
            ko, sub,
            "duplicate key (first given at line " + std::to_string(prev->key_origin.line) + ")");
      n.entries().push_back({key, ko, convert(kv.second, sub)});
    }
    return n;
  }

  const std::string& text_;
  const std::string& file_;
  size_t budget_;
  size_t values_ = 0;
  std::vector<YAML::Node> ancestors_;
};

}  // namespace

std::string Node::to_yaml() const { return write_yaml(*this) + "\n"; }

namespace {

/// Where each document of a YAML stream starts; nothing else is kept.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark start;  ///< of the document
  YAML::Mark root;   ///< of its root value
  void OnDocumentStart(const YAML::Mark& m) override { start = root = m, seen_ = false; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { value(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { value(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    value(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    value(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    value(m);
  }
  void OnMapEnd() override {}

 private:
  bool seen_ = false;
  void value(const YAML::Mark& m) {
    if (!seen_) root = m;
    seen_ = true;
  }
};

ConfigError yaml_syntax_error(const YAML::Exception& e, const std::string& name) {
  // yaml-cpp appends the offending text to some messages ("the referenced anchor is not
  // defined: NAME"); the position is enough, and a file that is no YAML is not quoted.
  return ConfigError(origin_of(e.mark, name), "",
                     "YAML syntax error: " + e.msg.substr(0, e.msg.find(": ")));
}

/// Whether `text` holds a YAML document; throws when it holds more than one. yaml-cpp 0.7's LoadAll
/// loops forever, allocating an empty document per turn, on a document that starts with a token no
/// node can start with (a file ",]": jbeder/yaml-cpp issue 1040, fixed upstream by pull request
/// 1319; found by fuzz_experiment). Documents are counted here instead, up to the second, and one
/// that starts where the previous one did is that syntax error.
bool has_one_document(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts h;
  try {
    if (!parser.HandleNextDocument(h)) return false;
    const YAML::Mark first = h.start;
    if (!parser.HandleNextDocument(h)) return true;
    if (h.start.pos == first.pos) {
      const size_t at = static_cast<size_t>(std::max(0, h.start.pos));
      const std::string c = at < text.size() ? text.substr(at, 1) : "end of file";
      throw ConfigError(origin_of(h.start, name), "",
                        "YAML syntax error: unexpected '" + c + "' (no value starts with it)");
    }
    throw ConfigError(origin_of(h.root, name), "",
                      "a second YAML document starts here ('---'); a Systole file holds one");
  } catch (const YAML::Exception& e) {
    throw yaml_syntax_error(e, name);
  }
}

}  // namespace

Node parse_yaml(const std::string& text, const std::string& name) {
  if (!has_one_document(text, name)) return Node();
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw yaml_syntax_error(e, name);
  }
  return Converter(text, name).convert(doc, "");
}

Node load_yaml_file(const std::string& path, const Origin& referenced_from) {
  const std::string text =
      read_regular_file(path, referenced_from.file.empty() ? Origin{path} : referenced_from);
  Node n = parse_yaml(text, path);
  if (n.is_null())
    throw ConfigError({path, 1, 1}, "", "the file is empty: expected a YAML mapping");
  return n;
}

namespace {

/// The entry of `map` named `key`, or nullptr.
Node::Entry* entry_of(Node& map, const std::string& key) {
  for (auto& e : map.entries())
    if (e.key == key) return &e;
  return nullptr;
}

/// Merges `over` (an entry of the overriding file) into `existing`: the key then points at
/// where it was last written, so errors about its value name the user's line, not a preset's.
void merge_entry(Node::Entry& existing, const Node::Entry& over, const Node& value) {
  merge_into(existing.value, value);
  if (!over.key_origin.file.empty()) existing.key_origin = over.key_origin;
}

}  // namespace

void merge_into(Node& base, const Node& over) {
  if (base.is_map() && over.is_map()) {
    for (const auto& e : over.entries()) {
      Node::Entry* existing = entry_of(base, e.key);
      if (existing)
        merge_entry(*existing, e, e.value);
      else
        base.entries().push_back(e);
    }
    base.set_origin(over.origin());
    return;
  }
  base = over;
}

std::string find_referenced_file(const std::string& name, const Origin& from,
                                 const std::string& yaml_path) {
  return find_on_search_path(name, from, yaml_path);
}

Node resolve_bases(const Node& node, int depth) {
  if (depth > 16) throw ConfigError(node.origin(), "base", "base files nest too deeply (a cycle?)");
  if (node.is_seq()) {
    Node out = node;
    for (auto& i : out.items()) i = resolve_bases(i, depth);
    return out;
  }
  if (!node.is_map()) return node;
  Node result = Node::map(node.origin());
  const Node::Entry* base = node.find_entry("base");
  if (base) {
    if (!base->value.is_scalar())
      throw ConfigError(base->value.origin(), "base",
                        "expected a file name, got " + std::string(base->value.kind_name()));
    const std::string file = find_referenced_file(base->value.text(), base->value.origin(), "base");
    Node loaded = load_yaml_file(file, base->value.origin());
    if (!loaded.is_map()) throw ConfigError(loaded.origin(), "", "a base file must hold a mapping");
    result = resolve_bases(loaded, depth + 1);
  }
  for (const auto& e : node.entries()) {
    if (e.key == "base") continue;
    Node v = resolve_bases(e.value, depth);
    Node::Entry* existing = entry_of(result, e.key);
    if (existing)
      merge_entry(*existing, e, v);
    else
      result.entries().push_back({e.key, e.key_origin, std::move(v)});
  }
  return result;
}

namespace {

/// The N of "[N]" in a path: decimal digits only, below 2^31 (std::stol threw
/// std::invalid_argument on "[x]", an internal error instead of a ConfigError).
long parse_index(const std::string& path, const std::string& digits) {
  const bool ok = !digits.empty() && digits.size() <= 9 &&
                  digits.find_first_not_of("0123456789") == std::string::npos;
  if (!ok)
    throw ConfigError({"<path>"}, path,
                      "index '[" + digits + "]' is not a list position (0, 1, 2, ...)");
  return std::stol(digits);
}

}  // namespace

std::vector<PathStep> split_path(const std::string& path) {
  std::vector<PathStep> steps;
  std::string cur;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      if (!cur.empty()) steps.push_back({cur, -1});
      cur.clear();
    } else if (c == '[') {
      if (!cur.empty()) steps.push_back({cur, -1});
      cur.clear();
      size_t close = path.find(']', i);
      if (close == std::string::npos) throw ConfigError({"<path>"}, path, "unclosed '['");
      steps.push_back({"", parse_index(path, path.substr(i + 1, close - i - 1))});
      i = close;
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) steps.push_back({cur, -1});
  if (steps.empty()) throw ConfigError({"<path>"}, path, "empty path");
  return steps;
}

void set_path(Node& root, const std::string& path, Node value) {
  Node* cur = &root;
  std::vector<PathStep> steps;
  try {
    steps = split_path(path);
  } catch (const ConfigError& e) {  // blame the -p argument or sweep key, not "<path>"
    throw ConfigError(value.origin(), path, e.message());
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const bool last = i + 1 == steps.size();
    const auto& s = steps[i];
    if (s.key.empty()) {
      if (!cur->is_seq() || s.index < 0 || static_cast<size_t>(s.index) >= cur->items().size())
        throw ConfigError(value.origin(), path,
                          "index [" + std::to_string(s.index) + "] is out of range");
      cur = &cur->items()[static_cast<size_t>(s.index)];
      if (last) *cur = std::move(value);
      continue;
    }
    if (!cur->is_map()) {
      if (!cur->is_null())
        throw ConfigError(value.origin(), path,
                          "cannot set '" + s.key + "' inside " + cur->kind_name());
      *cur = Node::map(value.origin());
    }
    Node* next = cur->find(s.key);
    if (last) {
      cur->set(s.key, std::move(value));
      return;
    }
    if (!next) next = &cur->set(s.key, Node::map(value.origin()), value.origin());
    cur = next;
  }
}

const Node* get_path(const Node& root, const std::string& path) {
  const Node* cur = &root;
  for (const auto& s : split_path(path)) {
    if (s.key.empty()) {
      if (!cur->is_seq() || s.index < 0 || static_cast<size_t>(s.index) >= cur->items().size())
        return nullptr;
      cur = &cur->items()[static_cast<size_t>(s.index)];
    } else {
      if (!cur->is_map()) return nullptr;
      cur = cur->find(s.key);
      if (!cur) return nullptr;
    }
  }
  return cur;
}

std::pair<std::string, Node> parse_override(const std::string& text) {
  const Origin o{"<command line -p " + text + ">"};
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(o, "", "expected key.path=value, e.g. -p system.chip.mxu.rows=256");
  const std::string key = text.substr(0, eq);
  Node v = parse_yaml(text.substr(eq + 1), o.file);
  // Give every node of the value the command-line origin.
  struct Fix {
    static void apply(Node& n, const Origin& o) {
      n.set_origin(o);
      for (auto& i : n.items()) apply(i, o);
      for (auto& e : n.entries()) {
        e.key_origin = o;
        apply(e.value, o);
      }
    }
  };
  Fix::apply(v, o);
  if (v.is_null()) v = Node::scalar("", o);
  return {key, v};
}

}  // namespace systole::config

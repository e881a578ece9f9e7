#include "sim/config/node.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

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

void emit(YAML::Emitter& out, const Node& n) {
  switch (n.kind()) {
    case Node::Kind::kNull:
      out << YAML::Null;
      break;
    case Node::Kind::kScalar:
      out << n.text();
      break;
    case Node::Kind::kSeq: {
      bool flat = true;
      for (const auto& i : n.items()) flat = flat && i.is_scalar();
      if (flat) out << YAML::Flow;
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

Origin origin_of(const YAML::Mark& m, const std::string& file) {
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

Node convert(const YAML::Node& y, const std::string& file, const std::string& path) {
  const Origin o = origin_of(y.Mark(), file);
  switch (y.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return [&] {
        Node n;
        n.set_origin(o);
        return n;
      }();
    case YAML::NodeType::Scalar:
      return Node::scalar(y.Scalar(), o);
    case YAML::NodeType::Sequence: {
      Node n = Node::seq(o);
      size_t i = 0;
      for (const auto& item : y)
        n.push_back(convert(item, file, path + "[" + std::to_string(i++) + "]"));
      return n;
    }
    case YAML::NodeType::Map: {
      Node n = Node::map(o);
      for (const auto& kv : y) {
        const Origin ko = origin_of(kv.first.Mark(), file);
        if (!kv.first.IsScalar()) throw ConfigError(ko, "", "mapping keys must be plain names");
        const std::string key = kv.first.Scalar();
        const std::string sub = path.empty() ? key : path + "." + key;
        if (const auto* prev = n.find_entry(key))
          throw ConfigError(
              ko, sub,
              "duplicate key (first given at line " + std::to_string(prev->key_origin.line) + ")");
        n.entries().push_back({key, ko, convert(kv.second, file, sub)});
      }
      return n;
    }
  }
  return Node();
}

}  // namespace

std::string Node::to_yaml() const {
  YAML::Emitter out;
  emit(out, *this);
  return std::string(out.c_str()) + "\n";
}

Node parse_yaml(const std::string& text, const std::string& name) {
  YAML::Node y;
  try {
    y = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(origin_of(e.mark, name), "", "YAML syntax error: " + e.msg);
  }
  return convert(y, name, "");
}

Node load_yaml_file(const std::string& path, const Origin& referenced_from) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw ConfigError(referenced_from.file.empty() ? Origin{path} : referenced_from, "",
                      "file '" + path + "' does not exist");
  }
  if (fs::is_directory(path, ec))
    throw ConfigError({path}, "", "is a directory, expected a YAML file");
  std::ifstream in(path);
  if (!in) throw ConfigError({path}, "", "cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  Node n = parse_yaml(ss.str(), path);
  if (n.is_null())
    throw ConfigError({path, 1, 1}, "", "the file is empty: expected a YAML mapping");
  return n;
}

void merge_into(Node& base, const Node& over) {
  if (base.is_map() && over.is_map()) {
    for (const auto& e : over.entries()) {
      Node* existing = base.find(e.key);
      if (existing)
        merge_into(*existing, e.value);
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
  std::vector<std::string> tried;
  auto ok = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
  };
  fs::path p(name);
  if (p.is_absolute()) {
    if (ok(p)) return p.string();
    tried.push_back(p.string());
  } else {
    if (!from.file.empty() && from.file[0] != '<') {
      fs::path dir = fs::path(from.file).parent_path();
      for (int up = 0; up < 4; ++up) {
        fs::path cand = dir / p;
        if (ok(cand)) return cand.lexically_normal().string();
        tried.push_back(cand.lexically_normal().string());
        if (dir.empty() || dir == dir.parent_path()) break;
        dir = dir.parent_path();
      }
    }
    if (ok(p)) return p.string();
    tried.push_back(p.string());
  }
  std::vector<std::string> unique;
  for (const auto& t : tried)
    if (std::find(unique.begin(), unique.end(), t) == unique.end()) unique.push_back(t);
  throw ConfigError(from, yaml_path,
                    "file '" + name + "' not found (looked for " + join(unique, ", ") + ")");
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
    Node* existing = result.find(e.key);
    if (existing)
      merge_into(*existing, v);
    else
      result.entries().push_back({e.key, e.key_origin, std::move(v)});
  }
  return result;
}

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
      steps.push_back({"", std::stol(path.substr(i + 1, close - i - 1))});
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
  const auto steps = split_path(path);
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

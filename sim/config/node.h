#pragma once
// The configuration tree: YAML read into our own node type, each node remembering the file,
// line and column it came from, so every later error (after base-file merging, sweeps and -p
// overrides) can still point at the text that caused it.

#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.h"

namespace systole::config {

/// A YAML value with its origin. Maps keep their key order.
class Node {
 public:
  enum class Kind { kNull, kScalar, kSeq, kMap };
  struct Entry;

  Node() = default;
  static Node scalar(std::string text, Origin origin = {});
  static Node map(Origin origin = {});
  static Node seq(Origin origin = {});

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_scalar() const { return kind_ == Kind::kScalar; }
  bool is_map() const { return kind_ == Kind::kMap; }
  bool is_seq() const { return kind_ == Kind::kSeq; }
  /// "a mapping", "a list", "a value", "nothing" — for error messages.
  const char* kind_name() const;

  const Origin& origin() const { return origin_; }
  void set_origin(const Origin& o) { origin_ = o; }

  // Scalar.
  const std::string& text() const { return text_; }

  // Sequence.
  const std::vector<Node>& items() const { return items_; }
  std::vector<Node>& items() { return items_; }
  void push_back(Node n) { items_.push_back(std::move(n)); }

  // Map.
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<Entry>& entries() { return entries_; }
  const Node* find(const std::string& key) const;
  Node* find(const std::string& key);
  const Entry* find_entry(const std::string& key) const;
  /// Inserts or replaces `key`.
  Node& set(const std::string& key, Node value, Origin key_origin = {});
  bool erase(const std::string& key);
  std::vector<std::string> keys() const;

  /// Serialises back to YAML (block style, keys in order).
  std::string to_yaml() const;

 private:
  Kind kind_ = Kind::kNull;
  Origin origin_;
  std::string text_;
  std::vector<Node> items_;
  std::vector<Entry> entries_;
};

struct Node::Entry {
  std::string key;
  Origin key_origin;
  Node value;
};

/// Parses YAML text. `name` is used as the file in origins. Throws ConfigError on syntax errors
/// and duplicate keys.
Node parse_yaml(const std::string& text, const std::string& name);

/// Reads and parses a file. Throws ConfigError if it is missing, unreadable or malformed.
/// `referenced_from` is the origin of the reference (for "missing file" errors).
Node load_yaml_file(const std::string& path, const Origin& referenced_from = {});

/// Deep-merges `over` into `base`: maps merge key by key, anything else replaces.
void merge_into(Node& base, const Node& over);

/// Resolves every `base: FILE` key (in any mapping): the named file is loaded (relative to the
/// file that names it, see find_referenced_file), resolved recursively, and the mapping is merged
/// on top of it.
Node resolve_bases(const Node& node, int depth = 0);

/// Finds the file `name` referenced from `from` (an origin in some file, or the command line) on
/// the search path (sim/config/search_path.h). Throws ConfigError naming the folders searched
/// when nothing exists.
std::string find_referenced_file(const std::string& name, const Origin& from,
                                 const std::string& yaml_path);

/// Splits "a.b[2].c" into path steps; a step is a key or an index.
struct PathStep {
  std::string key;  // empty for an index step
  long index = -1;
};
std::vector<PathStep> split_path(const std::string& path);

/// Sets `path` in `root` to `value`, creating intermediate maps. The first missing key is
/// created too: unknown keys are rejected later by schema validation, with a suggestion.
void set_path(Node& root, const std::string& path, Node value);
const Node* get_path(const Node& root, const std::string& path);

/// Parses "a.b.c=value" (value is YAML, so lists work) with origin "<command line>".
std::pair<std::string, Node> parse_override(const std::string& text);

}  // namespace systole::config

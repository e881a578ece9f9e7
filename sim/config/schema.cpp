#include "sim/config/schema.h"

#include <fmt/format.h>
#include <cmath>
#include <cstdlib>

#include "sim/core/text.h"

namespace systole::config {

namespace {

const Node& expect_scalar(const Node& n, const std::string& path, const char* what) {
  if (!n.is_scalar())
    throw ConfigError(n.origin(), path, fmt::format("expected {}, got {}", what, n.kind_name()));
  return n;
}

const char* type_label(ParamType t) {
  switch (t) {
    case ParamType::kInt:
      return "integer";
    case ParamType::kFloat:
      return "number";
    case ParamType::kBool:
      return "bool";
    case ParamType::kString:
      return "string";
    case ParamType::kEnum:
      return "choice";
    case ParamType::kBytes:
      return "size";
    case ParamType::kFrequency:
      return "frequency";
    case ParamType::kBandwidth:
      return "bandwidth";
    case ParamType::kTime:
      return "time";
  }
  return "?";
}

/// `key: ~` or `key:` with nothing: an error, not the default (which the file would then
/// record as ~ while the run used something else).
[[noreturn]] void reject_null(const Origin& key, const Schema::Entry& e, const std::string& path) {
  throw ConfigError(key, path,
                    fmt::format("no value given (~ or nothing): give a value ({}) or leave the "
                                "key out{}",
                                type_label(e.type),
                                e.default_text ? " to use the default, " + *e.default_text : ""));
}

}  // namespace

std::string format_schema_double(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:g}", v);
}

std::int64_t to_int(const Node& n, const std::string& path, std::int64_t min, std::int64_t max) {
  const std::string& t = expect_scalar(n, path, "an integer").text();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (t.empty() || *end != '\0' || errno == ERANGE) {
    // Accept integral floats such as 1e3.
    char* fend = nullptr;
    const double d = std::strtod(t.c_str(), &fend);
    if (!t.empty() && *fend == '\0' && std::isfinite(d) && d == std::floor(d) &&
        std::fabs(d) < 9.2e18) {
      return to_int(Node::scalar(fmt::format("{:.0f}", d), n.origin()), path, min, max);
    }
    throw ConfigError(n.origin(), path, fmt::format("expected an integer, got '{}'", t));
  }
  if (v < min || v > max)
    throw ConfigError(n.origin(), path,
                      fmt::format("expected an integer in [{}, {}], got {}", min, max, v));
  return v;
}

double to_float(const Node& n, const std::string& path, double min, double max) {
  const std::string& t = expect_scalar(n, path, "a number").text();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(v))
    throw ConfigError(n.origin(), path, fmt::format("expected a number, got '{}'", t));
  if (v < min || v > max)
    throw ConfigError(n.origin(), path,
                      fmt::format("expected a number in [{}, {}], got {}",
                                  format_schema_double(min), format_schema_double(max), t));
  return v;
}

bool to_bool(const Node& n, const std::string& path) {
  const std::string& t = expect_scalar(n, path, "true or false").text();
  if (t == "true" || t == "True" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "False" || t == "no" || t == "off") return false;
  throw ConfigError(n.origin(), path, fmt::format("expected true or false, got '{}'", t));
}

std::string to_string(const Node& n, const std::string& path) {
  return expect_scalar(n, path, "a string").text();
}

double to_quantity(const Node& n, const std::string& path, Dimension dim, double min, double max) {
  const std::string what = fmt::format("a {} such as {}", dimension_name(dim), unit_examples(dim));
  const std::string& t = expect_scalar(n, path, what.c_str()).text();
  ParsedQuantity q;
  std::string why;
  if (!parse_quantity(t, q, why))
    throw ConfigError(n.origin(), path, fmt::format("expected {}: {}", what, why));
  if (q.dim == Dimension::kNone)
    throw ConfigError(n.origin(), path, fmt::format("expected {}: '{}' has no unit", what, t));
  if (q.dim != dim)
    throw ConfigError(n.origin(), path,
                      fmt::format("expected {}, got a {} ('{}')", what, dimension_name(q.dim), t));
  if (q.value < min || q.value > max)
    throw ConfigError(n.origin(), path,
                      fmt::format("expected a {} in [{}, {}], got {}", dimension_name(dim),
                                  format_quantity(min, dim), format_quantity(max, dim), t));
  if (dim == Dimension::kBytes && q.value != std::floor(q.value))
    throw ConfigError(n.origin(), path, fmt::format("'{}' is not a whole number of bytes", t));
  return q.value;
}

size_t to_choice(const Node& n, const std::string& path, const std::vector<std::string>& choices) {
  const std::string what = "one of " + join(choices, ", ");
  const std::string& t = expect_scalar(n, path, what.c_str()).text();
  for (size_t i = 0; i < choices.size(); ++i)
    if (choices[i] == t) return i;
  throw ConfigError(n.origin(), path,
                    fmt::format("expected {}, got '{}'{}", what, t, did_you_mean(t, choices)));
}

std::vector<std::string> Schema::keys() const {
  std::vector<std::string> k;
  for (const auto& e : entries_) k.push_back(e.name);
  return k;
}

const Schema::Entry* Schema::find(const std::string& key) const {
  for (const auto& e : entries_)
    if (e.name == key) return &e;
  return nullptr;
}

void Schema::load_into(void* obj, const Node& node, const std::string& path) const {
  auto sub_path = [&](const std::string& k) { return path.empty() ? k : path + "." + k; };
  if (!node.is_map() && !node.is_null())
    throw ConfigError(
        node.origin(), path,
        fmt::format("expected a mapping of {} parameters, got {}", name_, node.kind_name()));
  // Unknown keys first: a typo is the likeliest mistake.
  for (const auto& e : node.entries()) {
    if (find(e.key)) continue;
    bool ignored = false;
    for (const auto& k : ignored_keys_) ignored = ignored || k == e.key;
    if (ignored) continue;
    throw ConfigError(
        e.key_origin, sub_path(e.key),
        fmt::format("unknown key for {}{}", name_, did_you_mean(e.key, keys())) +
            (close_matches(e.key, keys()).empty() ? "; allowed keys: " + join(keys()) : ""));
  }
  for (const auto& e : entries_) {
    const Node::Entry* given = node.is_map() ? node.find_entry(e.name) : nullptr;
    const Node* v = given ? &given->value : nullptr;
    if (e.is_group) {
      static const Node kNull;
      e.sub->load_into(e.member(obj), v ? *v : kNull, sub_path(e.name));
      continue;
    }
    if (v && v->is_null()) reject_null(given->key_origin, e, sub_path(e.name));
    if (v) {
      e.assign(obj, *v, sub_path(e.name));
    } else if (e.default_text) {
      e.assign(obj, Node::scalar(*e.default_text, {"<default of " + name_ + "." + e.name + ">"}),
               sub_path(e.name));
    } else {
      throw ConfigError(v ? v->origin() : node.origin(), sub_path(e.name),
                        fmt::format("missing required {} ({})", type_label(e.type), e.doc));
    }
  }
  if (check_) check_(obj, node, path);
}

void Schema::describe(std::ostream& os, const std::string& prefix) const {
  for (const auto& e : entries_) {
    const std::string p = prefix.empty() ? e.name : prefix + "." + e.name;
    if (e.is_group) {
      os << fmt::format("{:<34} {}\n", p + ":", e.doc);
      e.sub->describe(os, p);
      continue;
    }
    std::string unit =
        e.unit.empty() ? type_label(e.type) : fmt::format("{} [{}]", type_label(e.type), e.unit);
    os << fmt::format("{:<34} {:<18} default {:<10} range {:<22} {}\n", p, unit,
                      e.default_text ? *e.default_text : "(required)", e.range_text, e.doc);
  }
}

Node Schema::defaults_node() const {
  Node n = Node::map();
  for (const auto& e : entries_) {
    if (e.is_group)
      n.set(e.name, e.sub->defaults_node());
    else if (e.default_text)
      n.set(e.name, Node::scalar(*e.default_text));
  }
  return n;
}

}  // namespace systole::config

#pragma once
// Typed configuration schemas. A schema declares each parameter once — name, type, unit,
// default, range, one-line doc — bound to a member of a plain config struct. Loading a YAML
// node through it validates every key (unknown keys are errors with a suggestion), applies
// defaults (the schema is the only place a default is written) and fills the struct.
// `simrun --describe` prints the same declarations.

#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/node.h"
#include "sim/core/units.h"

namespace systole::config {

enum class ParamType { kInt, kFloat, kBool, kString, kEnum, kBytes, kFrequency, kBandwidth, kTime };

/// Scalar conversion helpers; each throws ConfigError naming `path` and the node's origin.
std::int64_t to_int(const Node& n, const std::string& path, std::int64_t min, std::int64_t max);
double to_float(const Node& n, const std::string& path, double min, double max);
bool to_bool(const Node& n, const std::string& path);
std::string to_string(const Node& n, const std::string& path);
/// A quantity in base units of `dim`, in [min, max] (base units).
double to_quantity(const Node& n, const std::string& path, Dimension dim, double min, double max);
/// Index of n's text in `choices`, with a did-you-mean on mismatch.
size_t to_choice(const Node& n, const std::string& path, const std::vector<std::string>& choices);

/// Type-erased schema; see SchemaOf<T> for the typed builder.
class Schema {
 public:
  struct Entry {
    std::string name;
    std::string doc;
    bool is_group = false;
    ParamType type = ParamType::kInt;
    std::string unit;                         // "", "B", "Hz", "B/s", "s" or a count label
    std::optional<std::string> default_text;  // YAML spelling; nullopt = required
    std::string range_text;                   // "[1, 4096]", "ws | os | is"
    const Schema* sub = nullptr;              // group schema
    std::function<void(void*, const Node&, const std::string&)> assign;
    std::function<void*(void*)> member;  // group: address of the sub-struct
  };

  Schema(std::string name, std::string doc) : name_(std::move(name)), doc_(std::move(doc)) {}
  virtual ~Schema() = default;
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;
  Schema(Schema&&) = default;
  Schema& operator=(Schema&&) = default;

  const std::string& name() const { return name_; }
  const std::string& doc() const { return doc_; }
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<std::string> keys() const;
  const Entry* find(const std::string& key) const;

  /// Validates `node` (a mapping, or null for "all defaults") and fills `obj`.
  void load_into(void* obj, const Node& node, const std::string& path) const;

  /// Prints one line per parameter: path, type/unit, default, range, doc.
  void describe(std::ostream& os, const std::string& prefix = "") const;
  /// The mapping with every default filled in (what a run actually used).
  Node defaults_node() const;

 protected:
  void add(Entry e) { entries_.push_back(std::move(e)); }
  std::function<void(const void*, const Node&, const std::string&)> check_;
  std::vector<std::string> ignored_keys_;

 private:
  std::string name_;
  std::string doc_;
  std::vector<Entry> entries_;
};

/// Builder binding schema entries to members of T.
template <class T>
class SchemaOf : public Schema {
 public:
  using Schema::Schema;

  SchemaOf& integer(const char* name, std::int64_t T::*m, std::optional<std::int64_t> def,
                    std::int64_t min, std::int64_t max, const char* doc, const char* unit = "") {
    Entry e = base(name, doc, ParamType::kInt, unit);
    if (def) e.default_text = std::to_string(*def);
    e.range_text = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    e.assign = [m, min, max](void* o, const Node& n, const std::string& p) {
      static_cast<T*>(o)->*m = to_int(n, p, min, max);
    };
    add(std::move(e));
    return *this;
  }

  SchemaOf& real(const char* name, double T::*m, std::optional<double> def, double min, double max,
                 const char* doc, const char* unit = "") {
    Entry e = base(name, doc, ParamType::kFloat, unit);
    if (def) e.default_text = fmt_double(*def);
    e.range_text = "[" + fmt_double(min) + ", " + fmt_double(max) + "]";
    e.assign = [m, min, max](void* o, const Node& n, const std::string& p) {
      static_cast<T*>(o)->*m = to_float(n, p, min, max);
    };
    add(std::move(e));
    return *this;
  }

  SchemaOf& boolean(const char* name, bool T::*m, std::optional<bool> def, const char* doc) {
    Entry e = base(name, doc, ParamType::kBool, "");
    if (def) e.default_text = *def ? "true" : "false";
    e.range_text = "true | false";
    e.assign = [m](void* o, const Node& n, const std::string& p) {
      static_cast<T*>(o)->*m = to_bool(n, p);
    };
    add(std::move(e));
    return *this;
  }

  SchemaOf& text(const char* name, std::string T::*m, std::optional<std::string> def,
                 const char* doc) {
    Entry e = base(name, doc, ParamType::kString, "");
    e.default_text = def;
    e.assign = [m](void* o, const Node& n, const std::string& p) {
      static_cast<T*>(o)->*m = to_string(n, p);
    };
    add(std::move(e));
    return *this;
  }

  template <class E>
  SchemaOf& choice(const char* name, E T::*m, std::vector<std::pair<std::string, E>> options,
                   std::optional<std::string> def, const char* doc) {
    Entry e = base(name, doc, ParamType::kEnum, "");
    e.default_text = def;
    std::vector<std::string> names;
    for (const auto& opt : options) names.push_back(opt.first);
    std::string r;
    for (size_t i = 0; i < names.size(); ++i) r += (i ? " | " : "") + names[i];
    e.range_text = r;
    e.assign = [m, options, names](void* o, const Node& n, const std::string& p) {
      static_cast<T*>(o)->*m = options[to_choice(n, p, names)].second;
    };
    add(std::move(e));
    return *this;
  }

  SchemaOf& bytes(const char* name, Bytes T::*m, std::optional<std::string> def, Bytes min,
                  Bytes max, const char* doc) {
    return quantity<Bytes>(name, m, def, static_cast<double>(min.value()),
                           static_cast<double>(max.value()), doc, Dimension::kBytes);
  }
  SchemaOf& frequency(const char* name, Hz T::*m, std::optional<std::string> def, Hz min, Hz max,
                      const char* doc) {
    return quantity<Hz>(name, m, def, min.value(), max.value(), doc, Dimension::kFrequency);
  }
  SchemaOf& bandwidth(const char* name, BytesPerSecond T::*m, std::optional<std::string> def,
                      BytesPerSecond min, BytesPerSecond max, const char* doc) {
    return quantity<BytesPerSecond>(name, m, def, min.value(), max.value(), doc,
                                    Dimension::kBandwidth);
  }
  /// Time, stored as picoseconds; min/max in seconds.
  SchemaOf& time(const char* name, Picoseconds T::*m, std::optional<std::string> def, double min_s,
                 double max_s, const char* doc) {
    return quantity<Picoseconds>(name, m, def, min_s, max_s, doc, Dimension::kTime);
  }

  template <class U>
  SchemaOf& group(const char* name, U T::*m, const Schema& sub, const char* doc) {
    Entry e;
    e.name = name;
    e.doc = doc;
    e.is_group = true;
    e.sub = &sub;
    e.member = [m](void* o) -> void* { return &(static_cast<T*>(o)->*m); };
    add(std::move(e));
    return *this;
  }

  /// Cross-field validation, run after all fields are set. Throw ConfigError from it.
  SchemaOf& check(std::function<void(const T&, const Node&, const std::string&)> f) {
    check_ = [f](const void* o, const Node& n, const std::string& p) {
      f(*static_cast<const T*>(o), n, p);
    };
    return *this;
  }

  /// Keys accepted and skipped (e.g. `kind`, read by whoever picked this schema).
  SchemaOf& ignore(const char* key) {
    ignored_keys_.push_back(key);
    return *this;
  }

  T load(const Node& node, const std::string& path) const {
    T t{};
    load_into(&t, node, path);
    return t;
  }

 private:
  static Entry base(const char* name, const char* doc, ParamType t, const char* unit) {
    Entry e;
    e.name = name;
    e.doc = doc;
    e.type = t;
    e.unit = unit;
    return e;
  }
  static std::string fmt_double(double v);

  template <class Q, class M>
  SchemaOf& quantity(const char* name, M T::*m, std::optional<std::string> def, double min,
                     double max, const char* doc, Dimension dim) {
    Entry e = base(name, doc, type_of(dim), base_unit(dim));
    e.default_text = def;
    e.range_text = "[" + format_quantity(min, dim) + ", " + format_quantity(max, dim) + "]";
    e.assign = [m, min, max, dim](void* o, const Node& n, const std::string& p) {
      const double v = to_quantity(n, p, dim, min, max);
      if constexpr (std::is_same_v<M, Picoseconds>) {
        static_cast<T*>(o)->*m = Picoseconds(static_cast<std::uint64_t>(v * 1e12 + 0.5));
      } else if constexpr (std::is_same_v<M, Bytes>) {
        static_cast<T*>(o)->*m = Bytes(static_cast<std::uint64_t>(v));
      } else {
        static_cast<T*>(o)->*m = M(v);
      }
    };
    add(std::move(e));
    return *this;
  }
  static ParamType type_of(Dimension d) {
    switch (d) {
      case Dimension::kBytes:
        return ParamType::kBytes;
      case Dimension::kFrequency:
        return ParamType::kFrequency;
      case Dimension::kBandwidth:
        return ParamType::kBandwidth;
      case Dimension::kTime:
        return ParamType::kTime;
      case Dimension::kNone:
        break;
    }
    return ParamType::kFloat;
  }
};

std::string format_schema_double(double v);
template <class T>
std::string SchemaOf<T>::fmt_double(double v) {
  return format_schema_double(v);
}

inline constexpr std::int64_t kIntMax = std::numeric_limits<std::int64_t>::max();

}  // namespace systole::config

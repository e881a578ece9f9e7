#include "sim/sweep/sample.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <set>

#include "sim/core/text.h"
#include "sim/core/units.h"
#include "sim/sweep/expand.h"

namespace systole::sweep {

using config::Node;

const config::SchemaOf<SampleConfig>& SampleConfig::schema() {
  static const config::SchemaOf<SampleConfig> s = [] {
    config::SchemaOf<SampleConfig> b("sweep.sample",
                                     "design points drawn from ranges instead of a grid");
    b.choice("method", &SampleConfig::method,
             {{"random", SampleMethod::kRandom}, {"lhs", SampleMethod::kLhs}},
             std::string("random"),
             "random: every coordinate drawn on its own; lhs: Latin hypercube (one point per "
             "stratum of every axis)")
        .integer("points", &SampleConfig::points, std::nullopt, 1, 1000000,
                 "how many design points to draw")
        .integer("seed", &SampleConfig::seed, 0, 0, INT64_MAX,
                 "random seed: the same seed draws the same points")
        .ignore("axes");
    return b;
  }();
  return s;
}

namespace {

enum class Scale { kLog, kLin, kInt };
const std::vector<std::string> kScales = {"log", "lin", "int"};

/// One sampled axis: a numeric range or a list of choices.
struct AxisSpec {
  std::string path;
  Origin origin;
  std::vector<Node> choices;  // non-empty: a choice axis
  Scale scale = Scale::kLin;
  double lo = 0, hi = 0;  // in the unit of the first bound
  std::string unit;       // "TB/s", "" for plain numbers
  bool integral = false;  // integer bounds: integer values
};

/// The number in front of a quantity's unit: "1.2TB/s" -> 1.2, "TB/s".
double leading_number(const std::string& text, std::string& unit) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  unit = end;
  return v;
}

bool is_integer_text(const std::string& number_text) {
  return number_text.find_first_of(".eE") == std::string::npos;
}

AxisSpec range_axis(const std::string& path, const Node& list, const std::string& where) {
  const auto& it = list.items();
  AxisSpec a;
  a.path = path;
  a.origin = list.origin();
  a.scale = static_cast<Scale>(config::to_choice(it[2], where + "[2]", kScales));
  ParsedQuantity lo, hi;
  std::string why;
  for (size_t i = 0; i < 2; ++i)
    if (!parse_quantity(it[i].text(), i == 0 ? lo : hi, why))
      throw ConfigError(it[i].origin(), fmt::format("{}[{}]", where, i),
                        "expected a number or a quantity such as 1.2TB/s: " + why);
  if (lo.dim != hi.dim)
    throw ConfigError(it[1].origin(), where + "[1]",
                      fmt::format("the bounds must have the same dimension ({} vs {})",
                                  dimension_name(lo.dim), dimension_name(hi.dim)));
  std::string unit_lo, unit_hi;
  const double n_lo = leading_number(it[0].text(), unit_lo);
  const double n_hi = leading_number(it[1].text(), unit_hi);
  // Values are written in the unit of the first bound (of the second when the first is 0).
  const bool use_hi_unit = n_lo == 0 && n_hi != 0;
  a.unit = use_hi_unit ? unit_hi : unit_lo;
  const double factor = use_hi_unit ? hi.value / n_hi : (n_lo != 0 ? lo.value / n_lo : 1.0);
  a.lo = lo.value / factor;
  a.hi = hi.value / factor;
  if (!(a.lo < a.hi))
    throw ConfigError(list.origin(), where,
                      fmt::format("the range [{}, {}] is empty: the first bound must be below the "
                                  "second",
                                  it[0].text(), it[1].text()));
  if (a.scale == Scale::kLog && a.lo <= 0)
    throw ConfigError(it[0].origin(), where + "[0]", "a log range needs a positive lower bound");
  a.integral = is_integer_text(it[0].text()) && is_integer_text(it[1].text()) &&
               a.lo == std::floor(a.lo) && a.hi == std::floor(a.hi);
  if (a.scale == Scale::kInt && !a.integral)
    throw ConfigError(list.origin(), where,
                      "an int range needs integer bounds (in the same unit), e.g. [64, 512, int]");
  return a;
}

/// `[lo, hi, log|lin|int]` when its first two items are numbers (or quantities) and the third is
/// not; any other list is a set of choices.
bool looks_like_range(const Node& list) {
  const auto& it = list.items();
  if (it.size() != 3 || !it[0].is_scalar() || !it[1].is_scalar() || !it[2].is_scalar())
    return false;
  ParsedQuantity q;
  std::string why;
  return parse_quantity(it[0].text(), q, why) && parse_quantity(it[1].text(), q, why) &&
         !parse_quantity(it[2].text(), q, why);
}

std::vector<AxisSpec> axis_specs(const Node& axes) {
  if (!axes.is_map() || axes.entries().empty())
    throw ConfigError(axes.origin(), "sweep.sample.axes",
                      "expected a mapping of config paths to ranges ([lo, hi, log|lin|int]) or "
                      "lists of choices");
  std::vector<AxisSpec> out;
  for (const auto& e : axes.entries()) {
    const std::string where = "sweep.sample.axes." + e.key;
    const std::string root = e.key.substr(0, e.key.find_first_of(".["));
    if (root != "system" && root != "workload")
      throw ConfigError(e.key_origin, where,
                        "a sampled path must start with system. or workload." +
                            did_you_mean(root, {"system", "workload"}));
    if (!e.value.is_seq() || e.value.items().empty())
      throw ConfigError(e.value.origin(), where,
                        fmt::format("expected [lo, hi, log|lin|int] or a list of choices, got {}",
                                    e.value.is_seq() ? "an empty list" : e.value.kind_name()));
    if (looks_like_range(e.value)) {
      out.push_back(range_axis(e.key, e.value, where));
    } else {
      AxisSpec a;
      a.path = e.key;
      a.origin = e.value.origin();
      a.choices = e.value.items();
      out.push_back(std::move(a));
    }
  }
  return out;
}

/// A uniform number in [0, 1) from 53 bits of the generator.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

/// Per point, a position in [0, 1) along one axis: independent draws, or one per stratum in
/// a random order of the strata (Latin hypercube).
std::vector<double> positions(std::mt19937_64& rng, size_t n, SampleMethod method) {
  std::vector<double> u(n);
  if (method == SampleMethod::kRandom) {
    for (auto& x : u) x = uniform01(rng);
    return u;
  }
  std::vector<size_t> stratum(n);
  for (size_t i = 0; i < n; ++i) stratum[i] = i;
  for (size_t i = n; i-- > 1;) {  // Fisher-Yates, own index draw (portable)
    const auto j = static_cast<size_t>(uniform01(rng) * static_cast<double>(i + 1));
    std::swap(stratum[i], stratum[std::min(j, i)]);
  }
  for (size_t i = 0; i < n; ++i)
    u[i] = (static_cast<double>(stratum[i]) + uniform01(rng)) / static_cast<double>(n);
  return u;
}

std::string number_text(double v, bool integral) {
  if (integral) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:.6g}", v);
}

Node value_at(const AxisSpec& a, double u) {
  if (!a.choices.empty()) {
    const auto k = a.choices.size();
    return a.choices[std::min(k - 1, static_cast<size_t>(u * static_cast<double>(k)))];
  }
  double v = 0;
  switch (a.scale) {
    case Scale::kLin:
      v = a.lo + u * (a.hi - a.lo);
      break;
    case Scale::kLog:
      v = std::exp(std::log(a.lo) + u * (std::log(a.hi) - std::log(a.lo)));
      break;
    case Scale::kInt:
      v = a.lo + std::floor(u * (a.hi - a.lo + 1));
      break;
  }
  if (a.integral) v = std::round(v);
  v = std::min(a.hi, std::max(a.lo, v));
  return Node::scalar(number_text(v, a.integral) + a.unit, a.origin);
}

}  // namespace

std::int64_t sample_size(const Node& spec) {
  return SampleConfig::schema().load(spec, "sweep.sample").points;
}

SampledAxes sample_axes(const Node& spec) {
  if (!spec.is_map())
    throw ConfigError(spec.origin(), "sweep.sample",
                      fmt::format("expected a mapping {{method: random|lhs, points: N, seed: S, "
                                  "axes: {{...}}}}, got {}",
                                  spec.kind_name()));
  const SampleConfig cfg = SampleConfig::schema().load(spec, "sweep.sample");
  const Node* axes = spec.find("axes");
  if (axes == nullptr)
    throw ConfigError(spec.origin(), "sweep.sample.axes",
                      "missing 'axes:' (the paths to sample and their ranges)");
  const auto specs = axis_specs(*axes);
  const auto n = static_cast<size_t>(cfg.points);
  std::mt19937_64 rng(static_cast<std::uint64_t>(cfg.seed));
  std::vector<std::vector<Node>> drawn;
  for (const auto& a : specs) {
    drawn.emplace_back();
    for (const double u : positions(rng, n, cfg.method)) drawn.back().push_back(value_at(a, u));
  }
  SampledAxes out;
  for (const auto& a : specs) out.paths.push_back(a.path);
  out.values.resize(specs.size());
  std::set<std::string> seen;
  for (size_t i = 0; i < n; ++i) {
    std::string row;
    for (const auto& axis : drawn) row += value_text(axis[i]) + "\n";
    if (!seen.insert(row).second) {
      ++out.repeated;
      continue;
    }
    for (size_t k = 0; k < drawn.size(); ++k) out.values[k].push_back(drawn[k][i]);
  }
  return out;
}

}  // namespace systole::sweep

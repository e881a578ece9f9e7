#pragma once
// Sampling a design space instead of gridding it (DESIGN.md §5):
//   sweep:
//     sample: {method: random | lhs, points: N, seed: S,
//              axes: {PATH: [lo, hi, log | lin | int], PATH: [a, b, c], ...}}
// A range axis draws numbers between its bounds (log: log-uniform, lin: uniform, int: uniform
// integers); bounds with units ("1TB/s") give values in the first bound's unit, integer bounds
// give integers. Any other list is a set of choices. `random` draws every coordinate on its own;
// `lhs` (Latin hypercube, McKay, Beckman & Conover, Technometrics 21(2), 1979) cuts each axis
// into N equal strata and puts exactly one point in each. The sample is one sweep axis of N
// points: grid axes and zip groups beside it multiply it.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/node.h"
#include "sim/config/schema.h"

namespace systole::sweep {

enum class SampleMethod { kRandom, kLhs };

/// The scalar keys of `sweep.sample` (its `axes:` are read by sample_axes).
struct SampleConfig {
  SampleMethod method = SampleMethod::kRandom;
  std::int64_t points = 0;
  std::int64_t seed = 0;
  static const config::SchemaOf<SampleConfig>& schema();
};

/// The drawn design points: values[path][point], one list per axis path. A drawn point equal to
/// an earlier one (int and choice axes can repeat) is dropped and counted in `repeated`.
struct SampledAxes {
  std::vector<std::string> paths;
  std::vector<std::vector<config::Node>> values;
  size_t repeated = 0;
};

/// Checks `sweep.sample` (ConfigError naming file, line and key) and draws its points. The same
/// spec and seed give the same points on every machine: the generator is std::mt19937_64, whose
/// sequence the C++ standard fixes, mapped to [0, 1) by our own code (the standard
/// distributions differ between libraries).
SampledAxes sample_axes(const config::Node& spec);

/// The number of points `sweep.sample` asks for, without drawing them.
std::int64_t sample_size(const config::Node& spec);

}  // namespace systole::sweep

// Lane allocation of the trace export (tools/trace/trace_lanes.h): on random interval sets, no
// two intervals of one lane overlap, and the lanes are as few as the most intervals in flight
// at one time (no allocation can use fewer); the count of improperly nested intervals matches
// a brute-force replay of the viewers' rule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "tools/trace/trace_lanes.h"

using systole::trace::assign_lanes;
using systole::trace::improper_overlaps;
using systole::trace::Interval;

namespace {

/// The most intervals that pairwise overlap (share more than an end point): the least number
/// of lanes. For a non-empty interval, those in flight at its begin; for an empty one, itself
/// and the non-empty ones strictly around it (empty ones at one time only touch).
std::size_t max_depth(const std::vector<Interval>& v) {
  std::size_t best = 0;
  for (const Interval& x : v) {
    const bool empty = x.begin == x.end;
    std::size_t d = empty ? 1 : 0;
    for (const Interval& y : v)
      if (y.begin < y.end && x.begin < y.end && (empty ? y.begin < x.begin : y.begin <= x.begin))
        ++d;
    best = std::max(best, d);
  }
  return best;
}

std::vector<Interval> random_intervals(std::mt19937& rng, std::size_t n) {
  std::uniform_int_distribution<std::uint64_t> at(0, 200), len(0, 40);
  std::vector<Interval> v;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t b = at(rng);
    v.push_back({b, b + len(rng)});
  }
  return v;
}

}  // namespace

TEST_CASE("trace lanes: no overlap within a lane, as few lanes as the deepest overlap",
          "[unit][trace]") {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 300; ++round) {
    const auto v = random_intervals(rng, 1 + static_cast<std::size_t>(round % 60));
    const auto lane = assign_lanes(v);
    REQUIRE(lane.size() == v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t j = i + 1; j < v.size(); ++j) {
        if (lane[i] != lane[j]) continue;
        INFO("round " << round << ": [" << v[i].begin << ", " << v[i].end << ") and [" << v[j].begin
                      << ", " << v[j].end << ") share lane " << lane[i]);
        const bool disjoint = v[i].end <= v[j].begin || v[j].end <= v[i].begin;
        // Two empty intervals at one time may share a lane (they touch), nothing else may.
        CHECK((disjoint || (v[i].begin == v[i].end && v[j].begin == v[j].end)));
      }
    const auto lanes = *std::max_element(lane.begin(), lane.end()) + 1;
    CHECK(lanes == max_depth(v));
    // A lane's intervals never overlap, so none of them would be dropped.
    for (std::uint32_t l = 0; l < lanes; ++l) {
      std::vector<Interval> one;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (lane[i] == l) one.push_back(v[i]);
      CHECK(improper_overlaps(one) == 0);
    }
  }
}

TEST_CASE("trace lanes: improper overlaps are counted as the viewers drop them", "[unit][trace]") {
  // Nested and back-to-back intervals are fine on one track.
  CHECK(improper_overlaps({{0, 10}, {2, 5}, {5, 10}, {10, 12}}) == 0);
  // [5, 15) starts inside [0, 10) and ends after it: dropped.
  CHECK(improper_overlaps({{0, 10}, {5, 15}}) == 1);
  // Four transfers in flight at once, each starting before the previous ends: three dropped.
  CHECK(improper_overlaps({{0, 10}, {1, 11}, {2, 12}, {3, 13}}) == 3);
  // A dropped slice opens nothing: [12, 14) nests in [0, 20) even though it is after [5, 25).
  CHECK(improper_overlaps({{0, 20}, {5, 25}, {12, 14}}) == 1);
  CHECK(assign_lanes({{0, 10}, {1, 11}, {10, 12}}) == std::vector<std::uint32_t>{0, 1, 0});
}

#pragma once
// Lane allocation for the trace export. A unit with several operations in flight (a DMA engine
// with transfers outstanding, a double-buffered MXU, an SM running several CTAs) cannot show
// them as complete events on one track: Perfetto and chrome://tracing keep only properly
// nested slices and drop the rest. Each unit's operations are spread over lanes (sub-tracks)
// so that the operations of one lane never overlap. Plain C++.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace systole::trace {

/// A half-open interval [begin, end) of simulated time (cycles).
struct Interval {
  std::uint64_t begin = 0, end = 0;
};

/// The lane of each interval (in input order): intervals sorted by (begin, end) go to the
/// lowest-numbered lane whose last interval has ended (an interval may start when the one
/// before it ends). Greedy interval partitioning: it opens as many lanes as the most intervals
/// in progress at one time, the fewest possible.
std::vector<std::uint32_t> assign_lanes(const std::vector<Interval>& intervals);

/// Intervals that would be dropped if all were put on one track: each that starts inside an
/// earlier one and ends after it (improper nesting), counted as the trace viewers count them
/// (intervals in order of begin, the longer first; a dropped one opens nothing).
std::size_t improper_overlaps(std::vector<Interval> intervals);

}  // namespace systole::trace

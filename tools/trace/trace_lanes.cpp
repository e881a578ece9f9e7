#include "tools/trace/trace_lanes.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <set>
#include <utility>

namespace systole::trace {

std::vector<std::uint32_t> assign_lanes(const std::vector<Interval>& intervals) {
  std::vector<std::size_t> order(intervals.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Interval& x = intervals[a];
    const Interval& y = intervals[b];
    return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
  });
  using Busy = std::pair<std::uint64_t, std::uint32_t>;  // end, lane
  std::priority_queue<Busy, std::vector<Busy>, std::greater<Busy>> busy;
  std::set<std::uint32_t> free;
  std::uint32_t lanes = 0;
  std::vector<std::uint32_t> lane(intervals.size(), 0);
  for (const std::size_t i : order) {
    const Interval& v = intervals[i];
    while (!busy.empty() && busy.top().first <= v.begin) {
      free.insert(busy.top().second);
      busy.pop();
    }
    std::uint32_t l = lanes;
    if (free.empty()) {
      ++lanes;
    } else {
      l = *free.begin();
      free.erase(free.begin());
    }
    lane[i] = l;
    busy.emplace(std::max(v.end, v.begin), l);
  }
  return lane;
}

std::size_t improper_overlaps(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& x, const Interval& y) {
    return x.begin != y.begin ? x.begin < y.begin : x.end > y.end;
  });
  std::vector<std::uint64_t> open;  // ends of the enclosing intervals, innermost last
  std::size_t bad = 0;
  for (const Interval& v : intervals) {
    while (!open.empty() && open.back() <= v.begin) open.pop_back();
    if (!open.empty() && v.end > open.back()) {
      ++bad;
      continue;
    }
    open.push_back(v.end);
  }
  return bad;
}

}  // namespace systole::trace

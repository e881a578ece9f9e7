#pragma once
// A requester's acceptance queue at a memory that knows when each transfer completes as soon as
// it accepts it (the bandwidth HBM model, CMEM): plain C++, picoseconds. A transfer holds one of
// `depth` places from its acceptance until its data has arrived; a full queue refuses the next
// transfer until its earliest one completes. Fidelity: the count of accepted transfers only.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace systole::models {

/// At most `depth` accepted, not yet completed transfers of one requester.
class AcceptanceQueue {
 public:
  explicit AcceptanceQueue(std::uint32_t depth) : depth_(std::max<std::uint32_t>(depth, 1)) {}

  /// Whether a transfer offered at `now_ps` finds a place (the completed ones leave first).
  bool has_room(double now_ps) {
    while (!done_.empty() && done_.top() <= now_ps) done_.pop();
    return done_.size() < depth_;
  }
  /// Takes a place for a transfer whose data arrives at `done_ps`.
  void accept(double done_ps) { done_.push(done_ps); }
  /// When the earliest accepted transfer completes (a place frees); only when not empty.
  double next_free_ps() const { return done_.top(); }
  std::size_t size() const { return done_.size(); }
  std::uint32_t depth() const { return depth_; }

 private:
  std::uint32_t depth_;
  std::priority_queue<double, std::vector<double>, std::greater<double>> done_;  // min-heap
};

}  // namespace systole::models

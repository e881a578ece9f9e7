#pragma once
// One ordered stream of downstream transfers of the L2 (its fetches, or its write-backs),
// gathered into groups: a group is the transfers one upstream access caused. The L2 finishes
// the transfers of a stream in issue order, so groups finish in order too; upstream accesses
// that wait for a group are settled, each with its own latency added, when it finishes.
// Plain C++, time in picoseconds.

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/core/error.h"

namespace systole::models {

/// Groups of in-order downstream transfers and the accesses waiting for each group.
class L2Order {
 public:
  struct Waiter {
    std::uint64_t access;
    double latency_ps;  ///< from the group's end to the access's data
  };

  /// Opens a group (its transfers are added with add()); returns its id (from 1).
  std::uint64_t open() {
    groups_.push_back({});
    return first_ + groups_.size() - 1;
  }
  /// Adds a transfer to the latest group, `g`.
  void add(std::uint64_t g) {
    SYSTOLE_ASSERT(g == first_ + groups_.size() - 1, "L2: transfers join the latest group");
    ++groups_.back().left;
  }
  /// Whether group `g` has finished (every group up to it has).
  bool finished(std::uint64_t g) const { return g < first_; }
  void wait(std::uint64_t g, std::uint64_t access, double latency_ps) {
    groups_.at(g - first_).waiters.push_back({access, latency_ps});
  }
  /// The oldest unfinished transfer has finished: when that ends its group, calls
  /// `settle(access, latency_ps)` for each waiter.
  template <class F>
  void finish_one(F&& settle) {
    SYSTOLE_ASSERT(!groups_.empty() && groups_.front().left > 0,
                   "L2: a downstream transfer finished that was never issued");
    if (--groups_.front().left > 0) return;
    for (const Waiter& w : groups_.front().waiters) settle(w.access, w.latency_ps);
    groups_.pop_front();
    ++first_;
  }
  /// Groups opened and not finished.
  std::size_t open_groups() const { return groups_.size(); }

 private:
  struct Group {
    std::uint32_t left = 0;
    std::vector<Waiter> waiters;
  };
  std::deque<Group> groups_;
  std::uint64_t first_ = 1;  // id of groups_.front()
};

}  // namespace systole::models

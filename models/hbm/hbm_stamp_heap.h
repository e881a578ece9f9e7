#pragma once
// A min-heap of (key, slot, stamp) with lazy deletion: an entry counts only while its slot's
// stamp still equals the entry's (the owner bumps a slot's stamp whenever the slot's key
// changes or the slot dies). HbmTiming keeps its transfers' completion-bound terms in two of
// them, so the bound is read off the tops instead of a scan over every transfer.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/hbm/hbm_device.h"

namespace systole::models {

/// Min-heap of keyed slots whose stale entries are dropped when met (or in a compaction).
class HbmStampHeap {
 public:
  struct Entry {
    Cycle key;
    std::uint32_t slot, stamp;
  };
  void push(Cycle key, std::uint32_t slot, std::uint32_t stamp) {
    heap_.push_back({key, slot, stamp});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  /// The least key among the entries `fresh(slot, stamp)` accepts, dropping the stale ones
  /// on top; kNever when none is left.
  template <class Fresh>
  Cycle top(const Fresh& fresh) {
    while (!heap_.empty() && !fresh(heap_.front().slot, heap_.front().stamp)) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      heap_.pop_back();
    }
    return heap_.empty() ? kNever : heap_.front().key;
  }
  /// Drops every stale entry once the heap holds more than twice `live` + 64 entries (stale
  /// entries whose keys are not the least would otherwise stay).
  template <class Fresh>
  void compact(std::size_t live, const Fresh& fresh) {
    if (heap_.size() <= 2 * live + 64) return;
    heap_.erase(std::remove_if(heap_.begin(), heap_.end(),
                               [&](const Entry& e) { return !fresh(e.slot, e.stamp); }),
                heap_.end());
    std::make_heap(heap_.begin(), heap_.end(), later);
  }
  std::size_t size() const { return heap_.size(); }

 private:
  static bool later(const Entry& a, const Entry& b) { return a.key > b.key; }
  std::vector<Entry> heap_;
};

}  // namespace systole::models

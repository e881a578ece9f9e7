#pragma once
// An indexed binary min-heap of slots by key: a slot's key is set (inserted or moved up or
// down in place) or erased in O(log n), and the least key is read at once. HbmTiming keeps its
// transfers' completion-bound terms in two of them, so the bound is read off the tops instead of
// a scan over every transfer.

#include <cstdint>
#include <vector>

#include "models/hbm/hbm_device.h"

namespace systole::models {

/// Min-heap of slots (small integers) by key, each slot at most once, with its position kept.
class HbmSlotHeap {
 public:
  /// Inserts `slot` with `key`, or moves it to `key` when it is in already.
  void set(std::uint32_t slot, Cycle key) {
    if (slot >= pos_.size()) pos_.resize(slot + 1, kAbsent);
    std::uint32_t i = pos_[slot];
    if (i == kAbsent) {
      i = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back({key, slot});
      pos_[slot] = i;
      up(i);
      return;
    }
    const Cycle old = heap_[i].key;
    heap_[i].key = key;
    if (key < old)
      up(i);
    else
      down(i);
  }
  /// Removes `slot` (nothing when it is not in).
  void erase(std::uint32_t slot) {
    if (slot >= pos_.size() || pos_[slot] == kAbsent) return;
    const std::uint32_t i = pos_[slot];
    pos_[slot] = kAbsent;
    const Node last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    heap_[i] = last;
    pos_[last.slot] = i;
    up(i);
    down(pos_[last.slot]);
  }
  /// The least key; kNever when empty.
  Cycle top() const { return heap_.empty() ? kNever : heap_.front().key; }
  /// The slot with the least key (the heap must not be empty).
  std::uint32_t top_slot() const { return heap_.front().slot; }
  std::size_t size() const { return heap_.size(); }

 private:
  static constexpr std::uint32_t kAbsent = ~0u;
  struct Node {
    Cycle key;
    std::uint32_t slot;
  };
  void place(std::uint32_t i, const Node& n) {
    heap_[i] = n;
    pos_[n.slot] = i;
  }
  void up(std::uint32_t i) {
    const Node n = heap_[i];
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / 2;
      if (heap_[parent].key <= n.key) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, n);
  }
  void down(std::uint32_t i) {
    const Node n = heap_[i];
    const auto size = static_cast<std::uint32_t>(heap_.size());
    for (;;) {
      std::uint32_t child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && heap_[child + 1].key < heap_[child].key) ++child;
      if (n.key <= heap_[child].key) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, n);
  }
  std::vector<Node> heap_;
  std::vector<std::uint32_t> pos_;  // per slot: its index in heap_, kAbsent when not in
};

}  // namespace systole::models

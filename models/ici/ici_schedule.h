#pragma once
// Messages with dependencies between them (a collective's steps, or any traffic pattern), and
// the runner that plays them on an ICI network model: a message starts when every message it
// depends on has arrived (and not before its release time), plus its own delay. Plain C++,
// picoseconds.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "models/ici/ici_network.h"

namespace systole::models {

using IciMessageId = std::uint32_t;

/// A list of messages; each names the earlier messages it waits for.
class IciSchedule {
 public:
  struct Message {
    ChipId src = 0;
    ChipId dst = 0;
    std::uint64_t bytes = 0;
    std::uint64_t release_ps = 0;  ///< the earliest start
    std::uint64_t delay_ps = 0;    ///< time from its last dependency's arrival to its start
  };

  /// Adds a message that waits for `deps` (earlier ids) to arrive; returns its id.
  IciMessageId add(ChipId src, ChipId dst, std::uint64_t bytes, const IciMessageId* deps,
                   std::size_t ndeps, std::uint64_t release_ps = 0);
  IciMessageId add(ChipId src, ChipId dst, std::uint64_t bytes,
                   std::initializer_list<IciMessageId> deps = {}, std::uint64_t release_ps = 0) {
    return add(src, dst, bytes, deps.begin(), deps.size(), release_ps);
  }
  IciMessageId add(ChipId src, ChipId dst, std::uint64_t bytes,
                   const std::vector<IciMessageId>& deps, std::uint64_t release_ps = 0) {
    return add(src, dst, bytes, deps.data(), deps.size(), release_ps);
  }

  /// Message `i` starts `ps` after its last dependency arrived (or after the schedule's start):
  /// a sender's reaction time, e.g. a flag seen and a copy launched (run_schedule honours it;
  /// the SystemC shell IciNetworkModule does not).
  void set_delay(IciMessageId i, std::uint64_t ps) { messages_[i].delay_ps = ps; }
  std::size_t size() const { return messages_.size(); }
  const Message& message(IciMessageId i) const { return messages_[i]; }
  /// The dependencies of message `i`.
  const IciMessageId* deps_begin(IciMessageId i) const { return deps_.data() + dep_at_[i]; }
  const IciMessageId* deps_end(IciMessageId i) const { return deps_.data() + dep_at_[i + 1]; }
  void reserve(std::size_t messages, std::size_t deps);

 private:
  std::vector<Message> messages_;
  std::vector<std::uint32_t> dep_at_{0};  ///< CSR offsets into deps_
  std::vector<IciMessageId> deps_;
};

/// When each message started and arrived, and when the last one arrived.
struct IciScheduleResult {
  std::vector<std::uint64_t> start_ps;
  std::vector<std::uint64_t> arrive_ps;
  std::uint64_t end_ps = 0;
};

/// Plays `s` on `net` (idle, and not past `t0`) from time `t0` until every message has arrived;
/// throws SimError if some message never can (a dependency cycle).
IciScheduleResult run_schedule(IciNetwork& net, const IciSchedule& s, std::uint64_t t0 = 0);

/// Feeds a schedule into a network as its dependencies arrive; run_schedule() and the SystemC
/// shell both use it. Messages are handed to `start` (which returns nothing: the caller
/// reports each arrival back with arrived()).
class IciScheduleCursor {
 public:
  explicit IciScheduleCursor(const IciSchedule& s);
  /// The messages with no dependencies.
  const std::vector<IciMessageId>& initial() const { return initial_; }
  /// Records that message `m` arrived; appends the messages that become ready to `ready`.
  void arrived(IciMessageId m, std::vector<IciMessageId>& ready);
  std::size_t remaining() const { return remaining_; }

 private:
  const IciSchedule& s_;
  std::vector<std::uint32_t> pending_;
  std::vector<std::uint32_t> succ_at_;
  std::vector<IciMessageId> succ_;
  std::vector<IciMessageId> initial_;
  std::size_t remaining_;
};

}  // namespace systole::models

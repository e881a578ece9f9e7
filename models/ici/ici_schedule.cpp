#include "models/ici/ici_schedule.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.h"

namespace systole::models {

IciMessageId IciSchedule::add(ChipId src, ChipId dst, std::uint64_t bytes, const IciMessageId* deps,
                              std::size_t ndeps, std::uint64_t release_ps) {
  const auto id = static_cast<IciMessageId>(messages_.size());
  for (std::size_t i = 0; i < ndeps; ++i)
    SYSTOLE_ASSERT(deps[i] < id, "a message may only wait for earlier messages");
  messages_.push_back({src, dst, bytes, release_ps, 0});
  deps_.insert(deps_.end(), deps, deps + ndeps);
  dep_at_.push_back(static_cast<std::uint32_t>(deps_.size()));
  return id;
}

void IciSchedule::reserve(std::size_t messages, std::size_t deps) {
  messages_.reserve(messages);
  dep_at_.reserve(messages + 1);
  deps_.reserve(deps);
}

IciScheduleCursor::IciScheduleCursor(const IciSchedule& s)
    : s_(s), pending_(s.size()), succ_at_(s.size() + 1, 0), remaining_(s.size()) {
  for (IciMessageId i = 0; i < s.size(); ++i) {
    pending_[i] = static_cast<std::uint32_t>(s.deps_end(i) - s.deps_begin(i));
    for (const IciMessageId* d = s.deps_begin(i); d != s.deps_end(i); ++d) ++succ_at_[*d + 1];
    if (pending_[i] == 0) initial_.push_back(i);
  }
  for (std::size_t i = 0; i < s.size(); ++i) succ_at_[i + 1] += succ_at_[i];
  succ_.resize(succ_at_.back());
  std::vector<std::uint32_t> fill(succ_at_.begin(), succ_at_.end() - 1);
  for (IciMessageId i = 0; i < s.size(); ++i)
    for (const IciMessageId* d = s.deps_begin(i); d != s.deps_end(i); ++d) succ_[fill[*d]++] = i;
}

void IciScheduleCursor::arrived(IciMessageId m, std::vector<IciMessageId>& ready) {
  --remaining_;
  for (std::uint32_t k = succ_at_[m]; k < succ_at_[m + 1]; ++k)
    if (--pending_[succ_[k]] == 0) ready.push_back(succ_[k]);
}

IciScheduleResult run_schedule(IciNetwork& net, const IciSchedule& s, std::uint64_t t0) {
  IciScheduleResult r;
  r.start_ps.assign(s.size(), 0);
  r.arrive_ps.assign(s.size(), 0);
  r.end_ps = t0;
  SYSTOLE_ASSERT(net.in_flight() == 0, "run_schedule needs an idle network");
  IciScheduleCursor cursor(s);
  std::vector<IciMessageId> by_transfer;  // transfer id - base -> message
  std::uint32_t base = 0;
  bool have_base = false;
  const auto launch = [&](IciMessageId m, std::uint64_t now) {
    const IciSchedule::Message& msg = s.message(m);
    const std::uint64_t at = std::max(now + msg.delay_ps, t0 + msg.release_ps);
    const std::uint32_t id = net.start(msg.src, msg.dst, msg.bytes, at);
    if (!have_base) {
      base = id;
      have_base = true;
    }
    SYSTOLE_ASSERT(id - base == by_transfer.size(), "network transfer ids are not consecutive");
    by_transfer.push_back(m);
    r.start_ps[m] = at;
  };
  for (IciMessageId m : cursor.initial()) launch(m, t0);
  std::vector<IciCompletion> done;
  std::vector<IciMessageId> ready;
  while (net.next_event_ps() != IciNetwork::kNever) {
    done.clear();
    net.step(done);
    for (const IciCompletion& c : done) {
      const IciMessageId m = by_transfer[c.transfer - base];
      r.arrive_ps[m] = c.at_ps;
      r.end_ps = std::max(r.end_ps, c.at_ps);
      ready.clear();
      cursor.arrived(m, ready);
      for (IciMessageId n : ready) launch(n, c.at_ps);
    }
  }
  if (cursor.remaining() != 0)
    throw SimError(
        fmt::format("ICI schedule: {} of {} messages never started", cursor.remaining(), s.size()));
  return r;
}

}  // namespace systole::models

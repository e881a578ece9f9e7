#include "models/l2/l2_module.h"

#include <cmath>

#include "sim/core/error.h"

namespace systole::models {

namespace {
double now_ps() { return static_cast<double>(sc_core::sc_time_stamp().value()); }
/// From now until `ps` (whole picoseconds, rounded up so nothing ends early).
sc_core::sc_time until(double ps) {
  const double d = std::ceil(ps - 1e-6) - now_ps();
  return d > 0 ? sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(d))
               : sc_core::SC_ZERO_TIME;
}
}  // namespace

L2Module::L2Module(const sc_core::sc_module_name& name, const L2Config& cfg,
                   std::uint16_t downstream_requester)
    : sc_core::sc_module(name),
      memory("memory"),
      model_(cfg),
      depth_(static_cast<std::uint32_t>(std::max<std::int64_t>(cfg.transfer_queue, 1))),
      down_id_(downstream_requester),
      window_(static_cast<std::uint32_t>(cfg.mshrs_per_slice * cfg.slices())) {
  SYSTOLE_ASSERT(sc_core::sc_get_time_resolution() == sc_core::sc_time(1, sc_core::SC_PS),
                 "the L2 shell converts picoseconds: SystemC's time resolution must be 1 ps");
  SC_HAS_PROCESS(L2Module);
  SC_THREAD(issue_fetches);
  SC_THREAD(retire_fetches);
  SC_THREAD(issue_writebacks);
  SC_THREAD(retire_writebacks);
}

void L2Module::wait_for(const sc_core::sc_event& e) {
  ++waits_;
  sc_core::wait(e);
}

void L2Module::set_partition(std::uint16_t requester, std::uint32_t partition) {
  SYSTOLE_ASSERT(requester >= requesters_.size() || !requesters_[requester],
                 "L2: set a requester's partition before its use");
  SYSTOLE_ASSERT(partition < static_cast<std::uint32_t>(model_.config().partitions),
                 "L2: no such partition");
  partition_of_[requester] = partition;
}

L2Module::Requester& L2Module::requester(std::uint16_t id) {
  if (id >= requesters_.size()) requesters_.resize(std::size_t{id} + 1);
  auto& r = requesters_[id];
  if (!r) {
    r = std::make_unique<Requester>();
    const auto it = partition_of_.find(id);
    r->port = model_.add_port(it != partition_of_.end()
                                  ? it->second
                                  : id % static_cast<std::uint32_t>(model_.config().partitions));
  }
  return *r;
}

bool L2Module::Requester::has_room(double now, std::uint32_t depth) {
  while (!done.empty() && done.top() <= now + 1e-6) done.pop();  // as until() rounds
  return done.size() + unsettled < depth;
}

std::uint64_t L2Module::try_begin(const MemoryTransfer& t) {
  const double now = now_ps();
  Requester& r = requester(t.requester);
  if (!r.has_room(now, depth_)) {
    ++refusals_;  // retried when a place frees: at the earliest known end, or when one settles
    if (!r.done.empty()) r.retry.notify(until(r.done.top()));
    return kRefused;
  }
  account(now);
  if (active_++ == 0) busy_since_ps_ = now;
  std::array<std::uint32_t, 3> also{};
  for (std::uint8_t i = 0; i < t.also_count; ++i) also[i] = requester(t.also[i]).port;
  const L2Access a = model_.access(r.port, t.desc, t.write, now, also.data(), t.also_count);
  push(fetches_, model_.fetches(), false, down_id_);
  push(writebacks_, model_.writebacks(), true, static_cast<std::uint16_t>(down_id_ + 1));
  SYSTOLE_ASSERT(a.id == open_first_ + open_.size(), "L2: access ids count up from 1");
  open_.push_back({&r, a.settled, a.done_ps, false});
  if (a.settled) {
    r.done.push(a.done_ps);
    ends_.push(a.done_ps);
  } else {
    ++r.unsettled;
  }
  return a.id;
}

void L2Module::push(Stream& s, const std::vector<DmaDescriptor>& descs, bool write,
                    std::uint16_t id) {
  for (const DmaDescriptor& d : descs) {
    MemoryTransfer m;
    m.desc = d;
    m.write = write;
    m.requester = id;
    m.request_bytes = static_cast<std::uint32_t>(model_.config().line.value());
    m.max_outstanding = window_;
    s.queued.push_back(m);
  }
  if (!descs.empty()) s.queued_ev.notify(sc_core::SC_ZERO_TIME);
}

// Offers the stream's transfers to the memory in order, waiting while it refuses. A write-back
// accepted by the memory no longer holds the access that evicted it.
void L2Module::issue(Stream& s, bool fetches) {
  for (;;) {
    while (s.queued.empty()) wait_for(s.queued_ev);
    const std::uint64_t h = memory->begin(s.queued.front());
    if (trace_) s.traced.push_back({now_ps(), s.queued.front().desc.bytes(), trace_->mark()});
    s.queued.pop_front();
    s.issued.push_back(h);
    s.issued_ev.notify(sc_core::SC_ZERO_TIME);
    if (!fetches) settle(model_.writeback_accepted(now_ps()));
  }
}

// Finishes the stream's transfers in order; a fetch that has arrived settles the accesses
// waiting for its group.
void L2Module::retire(Stream& s, bool fetches) {
  for (;;) {
    while (s.issued.empty()) wait_for(s.issued_ev);
    const sc_core::sc_time extra = memory->finish(s.issued.front());
    if (extra > sc_core::SC_ZERO_TIME) sc_core::wait(extra);
    s.issued.pop_front();
    if (trace_) {
      const Traced t = s.traced.front();
      s.traced.pop_front();
      trace_->add(t.mark, trace_unit_, fetches ? fetch_ : writeback_, t.accepted_ps, now_ps(),
                  t.bytes, fetches ? memory_place_ : self_place_,
                  fetches ? self_place_ : memory_place_);
    }
    if (fetches) settle(model_.fetch_arrived(now_ps()));
  }
}

void L2Module::set_trace(TraceRecorder* rec, const std::string& self,
                         const std::string& memory_path) {
  trace_ = rec != nullptr && rec->on() ? rec : nullptr;
  if (!trace_) return;
  trace_unit_ = trace_->unit(self);
  self_place_ = trace_->place(self);
  memory_place_ = trace_->place(memory_path);
  fetch_ = trace_->kind("fetch");
  writeback_ = trace_->kind("write-back");
}

void L2Module::settle(const std::vector<L2Settled>& done) {
  for (const L2Settled& d : done) {
    Open& o = open(d.id);
    o.settled = true;
    o.done_ps = d.done_ps;
    Requester& r = *o.requester;
    --r.unsettled;
    r.done.push(d.done_ps);
    ends_.push(d.done_ps);
    r.settled.notify(sc_core::SC_ZERO_TIME);
    r.retry.notify(until(d.done_ps));
  }
}

const sc_core::sc_event& L2Module::retry_event(std::uint16_t requester) const {
  return requester < requesters_.size() && requesters_[requester] ? requesters_[requester]->retry
                                                                  : never_;
}

L2Module::Open& L2Module::open(std::uint64_t h) {
  SYSTOLE_ASSERT(
      h >= open_first_ && h - open_first_ < open_.size() && !open_[h - open_first_].finished,
      "L2: an unknown transfer");
  return open_[h - open_first_];
}

sc_core::sc_time L2Module::finish(std::uint64_t h) {
  while (!open(h).settled) wait_for(open(h).requester->settled);
  Open& o = open(h);
  const double done = o.done_ps;
  o.finished = true;
  while (!open_.empty() && open_.front().finished) {
    open_.pop_front();
    ++open_first_;
  }
  const sc_core::sc_time left = until(done);
  if (left > sc_core::SC_ZERO_TIME) {
    ++waits_;
    sc_core::wait(left);
  }
  return sc_core::SC_ZERO_TIME;  // its data has arrived
}

void L2Module::account(double now) const {
  while (!ends_.empty() && ends_.top() <= now) {
    const double end = ends_.top();
    ends_.pop();
    if (--active_ == 0) busy_ps_ += end - busy_since_ps_;
  }
}

void L2Module::set_clock(Hz f) {
  // Accesses already accepted keep the times they were given; write-backs and fetches still
  // draining to the HBM are the memory's (its own clock does not move).
  model_.set_clock(f);
}

MemoryCounters L2Module::counters() const {
  const double now = now_ps();
  account(now);
  const L2Config& c = model_.config();
  const L2Counters& k = model_.counters();
  const double peak = static_cast<double>(c.slice_bandwidth * c.slices()) * c.clock.value();
  return {k.bytes_read, k.bytes_written, busy_ps_ + (active_ ? now - busy_since_ps_ : 0.0), peak};
}

}  // namespace systole::models

#include "models/ici/ici_module.h"

#include "sim/core/error.h"

namespace systole::models {

/// A collective under way: its schedule and which of its messages have arrived.
struct IciNetworkModule::CollectiveRun {
  CollectiveRun(const CollectiveSpec& sp, std::function<void(const CollectiveResult&)> d)
      : spec(sp), done(std::move(d)) {}
  CollectiveSpec spec;
  std::function<void(const CollectiveResult&)> done;
  IciSchedule schedule;
  CollectivePlan plan;
  std::unique_ptr<IciScheduleCursor> cursor;
  double start_ps = 0;
  bool finished = false;
  /// Point-to-point messages, not a collective: reported here, not recorded.
  std::function<void(double)> p2p_done;
  bool p2p = false;
};

IciNetworkModule::IciNetworkModule(const sc_core::sc_module_name& name, const IciConfig& cfg)
    : sc_core::sc_module(name),
      cfg_(cfg),
      topo_(cfg),
      net_(make_ici_network(cfg, topo_)),
      in_flight_(static_cast<std::size_t>(topo_.chips()), 0),
      backlog_(static_cast<std::size_t>(topo_.chips())) {
  SYSTOLE_ASSERT(sc_core::sc_get_time_resolution() == sc_core::sc_time(1, sc_core::SC_PS),
                 "the ICI network needs a 1 ps time resolution");
  for (int c = 0; c < topo_.chips(); ++c) retry_.push_back(std::make_unique<sc_core::sc_event>());
  SC_METHOD(advance);
  sensitive << wake_;
  dont_initialize();
}

IciNetworkModule::~IciNetworkModule() = default;

double IciNetworkModule::now_ps() { return static_cast<double>(sc_core::sc_time_stamp().value()); }

void IciNetworkModule::wake() {
  const std::uint64_t next = net_->next_event_ps();
  if (next == IciNetwork::kNever) return;
  const auto now = static_cast<std::uint64_t>(now_ps());
  // An earlier notification overrides a later pending one (IEEE 1666 sc_event::notify).
  wake_.notify(sc_core::sc_time(static_cast<double>(next > now ? next - now : 0), sc_core::SC_PS));
}

std::uint64_t IciNetworkModule::try_send(IciTransfer t) {
  if (t.src >= static_cast<ChipId>(topo_.chips()) || t.dst >= static_cast<ChipId>(topo_.chips()))
    throw SimError("ICI transfer names a chip outside the slice");
  if (in_flight_[t.src] >= static_cast<std::uint32_t>(cfg_.dma_queue)) {
    ++refusals_;
    return kRefused;  // retry_event(src) fires when one of its transfers arrives
  }
  ++in_flight_[t.src];
  const std::uint32_t id = net_->start(t.src, t.dst, t.bytes, static_cast<std::uint64_t>(now_ps()));
  pending_[id] = {t.src, std::move(t.on_arrival)};
  if (arrived_.size() <= id) arrived_.resize(id + 1, false);
  wake();
  return std::uint64_t{id} + 1;
}

void IciNetworkModule::wait_arrival(std::uint64_t h) {
  const auto id = static_cast<std::uint32_t>(h - 1);
  while (!arrived_.at(id)) sc_core::wait(arrival_);
}

void IciNetworkModule::advance() {
  const auto now = static_cast<std::uint64_t>(now_ps());
  while (net_->next_event_ps() <= now) {
    done_.clear();
    net_->step(done_);
    for (const IciCompletion& c : done_) {
      auto it = pending_.find(c.transfer);
      Pending p = std::move(it->second);
      pending_.erase(it);
      arrived_[c.transfer] = true;
      --in_flight_[p.src];
      retry_[p.src]->notify(sc_core::SC_ZERO_TIME);
      arrival_.notify(sc_core::SC_ZERO_TIME);
      if (p.on_arrival) p.on_arrival();
      offer_backlog(p.src);
    }
  }
  wake();
}

void IciNetworkModule::offer_backlog(ChipId c) {
  auto& q = backlog_[c];
  while (!q.empty() && in_flight_[c] < static_cast<std::uint32_t>(cfg_.dma_queue)) {
    const auto [run, m] = q.front();
    q.pop_front();
    issue(*run, m);
  }
}

void IciNetworkModule::start_collective(const CollectiveSpec& spec,
                                        std::function<void(const CollectiveResult&)> done) {
  runs_.push_back(std::make_unique<CollectiveRun>(spec, std::move(done)));
  CollectiveRun& run = *runs_.back();
  run.plan = append_collective(run.schedule, topo_, spec);
  run.cursor = std::make_unique<IciScheduleCursor>(run.schedule);
  run.start_ps = now_ps();
  release(run, run.cursor->initial());
}

void IciNetworkModule::start_collective_within(const CollectiveSpec& spec,
                                               const std::vector<bool>& chips,
                                               std::function<void(const CollectiveResult&)> done) {
  SYSTOLE_ASSERT(chips.size() == static_cast<std::size_t>(topo_.chips()),
                 "a chip mask of another slice");
  runs_.push_back(std::make_unique<CollectiveRun>(spec, std::move(done)));
  CollectiveRun& run = *runs_.back();
  IciSchedule all;
  const CollectivePlan whole = append_collective(all, topo_, spec);
  // Keep the messages sent by marked chips; a group's messages depend only on its own.
  std::vector<IciMessageId> to(all.size(), ~IciMessageId{0});
  std::vector<IciMessageId> deps;
  for (IciMessageId m = 0; m < all.size(); ++m) {
    const IciSchedule::Message& msg = all.message(m);
    if (!chips[msg.src]) continue;
    deps.clear();
    for (const IciMessageId* d = all.deps_begin(m); d != all.deps_end(m); ++d) {
      SYSTOLE_ASSERT(to[*d] != ~IciMessageId{0}, "a group that spans marked and unmarked chips");
      deps.push_back(to[*d]);
    }
    to[m] = run.schedule.add(msg.src, msg.dst, msg.bytes, deps, msg.release_ps);
  }
  std::size_t marked = 0;
  for (bool c : chips) marked += c ? 1 : 0;
  run.plan = whole;
  run.plan.first = 0;
  run.plan.end = static_cast<IciMessageId>(run.schedule.size());
  run.plan.groups = static_cast<int>(marked) / whole.group_size;
  run.cursor = std::make_unique<IciScheduleCursor>(run.schedule);
  run.start_ps = now_ps();
  release(run, run.cursor->initial());
}

void IciNetworkModule::start_point_to_point(const std::vector<std::pair<ChipId, ChipId>>& pairs,
                                            std::uint64_t bytes, std::function<void(double)> done) {
  runs_.push_back(std::make_unique<CollectiveRun>(CollectiveSpec{}, nullptr));
  CollectiveRun& run = *runs_.back();
  run.p2p = true;
  run.p2p_done = std::move(done);
  for (const auto& [src, dst] : pairs) run.schedule.add(src, dst, bytes);
  run.cursor = std::make_unique<IciScheduleCursor>(run.schedule);
  run.start_ps = now_ps();
  release(run, run.cursor->initial());
}

void IciNetworkModule::release(CollectiveRun& run, std::vector<IciMessageId> work) {
  // Joins (a chip waiting for its own receipts: zero bytes to itself) complete at once and take
  // no DMA place; every other message queues at its source chip's port.
  std::vector<ChipId> chips;
  std::vector<IciMessageId> next;
  while (!work.empty()) {
    const IciMessageId k = work.back();
    work.pop_back();
    const IciSchedule::Message& msg = run.schedule.message(k);
    if (msg.src == msg.dst && msg.bytes == 0) {
      next.clear();
      run.cursor->arrived(k, next);
      work.insert(work.end(), next.begin(), next.end());
      continue;
    }
    backlog_[msg.src].emplace_back(&run, k);
    chips.push_back(msg.src);
  }
  for (ChipId c : chips) offer_backlog(c);
  if (run.cursor->remaining() == 0 && !run.finished && run.p2p) {
    run.finished = true;
    if (run.p2p_done) run.p2p_done((now_ps() - run.start_ps) * 1e-12);
  }
  if (run.cursor->remaining() == 0 && !run.finished) {
    run.finished = true;
    const CollectiveResult r =
        collective_result(run.spec, run.plan, (now_ps() - run.start_ps) * 1e-12,
                          alpha_beta_seconds(topo_, net_->timing(), run.spec));
    records_.push_back({run.spec, r, run.start_ps});
    if (run.done) run.done(r);
  }
}

void IciNetworkModule::issue(CollectiveRun& run, IciMessageId m) {
  const IciSchedule::Message& msg = run.schedule.message(m);
  IciTransfer t{msg.src, msg.dst, msg.bytes, [this, &run, m] {
                  std::vector<IciMessageId> ready;
                  run.cursor->arrived(m, ready);
                  release(run, std::move(ready));
                }};
  const std::uint64_t h = try_send(std::move(t));
  SYSTOLE_ASSERT(h != kRefused, "a collective message was offered to a full DMA queue");
}

void IciNetworkModule::declare_stats(stats::StatGroup& g, const stats::Timebase& tb) const {
  IciStatsSource src;
  src.network = [this]() -> const IciNetwork& { return *net_; };
  src.collectives = [this]() -> const std::vector<IciCollectiveRecord>& { return records_; };
  declare_ici_stats(g, topo_, src, tb);
}

}  // namespace systole::models

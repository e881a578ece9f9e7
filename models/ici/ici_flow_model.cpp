#include "models/ici/ici_flow_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace systole::models {

IciFlowModel::IciFlowModel(const IciRoutes& topo, const IciLinkTiming& timing)
    : IciNetwork(topo, timing),
      link_flows_(static_cast<std::size_t>(topo.link_slots())),
      link_mark_(static_cast<std::size_t>(topo.link_slots()), 0),
      link_cap_(static_cast<std::size_t>(topo.link_slots()), 0.0),
      link_left_(static_cast<std::size_t>(topo.link_slots()), 0) {}

void IciFlowModel::push(std::uint64_t at, Kind k, std::uint32_t slot, std::uint32_t version) {
  events_.push(Event{at, seq_++, slot, version, k});
}

std::uint32_t IciFlowModel::new_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  flows_.emplace_back();
  return static_cast<std::uint32_t>(flows_.size() - 1);
}

std::uint32_t IciFlowModel::start(ChipId src, ChipId dst, std::uint64_t bytes,
                                  std::uint64_t at_ps) {
  const std::uint32_t id = next_transfer_++;
  ++in_flight_;
  if (src == dst) {  // nothing crosses a link
    push(at_ps, Kind::kArrive, id);
    return id;
  }
  const std::uint32_t slot = new_slot();
  Flow& f = flows_[slot];
  f.path.clear();
  routes().route(src, dst, f.path);
  f.transfer = id;
  f.remaining = static_cast<double>(bytes) * static_cast<double>(timing().packet_ps);
  f.share = 0;
  f.cap = f.path.size() >= 2 ? timing().credit_share() : 1.0;
  for (LinkId l : f.path) add_link_bytes(l, bytes);
  push(at_ps + timing().router_ps, Kind::kStart, slot);
  return id;
}

void IciFlowModel::begin_flow(std::uint32_t slot, std::uint64_t now) {
  Flow& f = flows_[slot];
  f.since = now;
  for (LinkId l : f.path) {
    link_flows_[l].push_back(slot);
    touched_.push_back(l);
  }
}

void IciFlowModel::drain_flow(std::uint32_t slot, std::uint64_t now) {
  Flow& f = flows_[slot];
  for (LinkId l : f.path) {
    auto& v = link_flows_[l];
    v.erase(std::find(v.begin(), v.end(), slot));
    touched_.push_back(l);
  }
  const std::uint64_t tail = (f.path.size() - 1) * timing().hop_ps() + timing().link_ps;
  push(now + tail, Kind::kArrive, f.transfer);
  ++f.version;  // no later drain event of this slot's old flow matches
  free_slots_.push_back(slot);
}

void IciFlowModel::step(std::vector<IciCompletion>& done) {
  if (events_.empty()) return;
  const std::uint64_t now = events_.top().at;
  while (!events_.empty() && events_.top().at == now) {
    while (!events_.empty() && events_.top().at == now) {
      const Event e = events_.top();
      events_.pop();
      switch (e.kind) {
        case Kind::kStart:
          begin_flow(e.slot, now);
          break;
        case Kind::kDrain:
          if (flows_[e.slot].version == e.version) drain_flow(e.slot, now);
          break;
        case Kind::kArrive:
          done.push_back({e.slot, now});
          --in_flight_;
          break;
      }
    }
    if (!touched_.empty()) recompute(now);
  }
}

void IciFlowModel::collect_component(LinkId seed) {
  comp_links_.clear();
  comp_flows_.clear();
  link_mark_[seed] = stamp_;
  comp_links_.push_back(seed);
  for (std::size_t i = 0; i < comp_links_.size(); ++i) {
    for (std::uint32_t s : link_flows_[comp_links_[i]]) {
      Flow& f = flows_[s];
      if (f.mark == stamp_) continue;
      f.mark = stamp_;
      comp_flows_.push_back(s);
      for (LinkId l : f.path)
        if (link_mark_[l] != stamp_) {
          link_mark_[l] = stamp_;
          comp_links_.push_back(l);
        }
    }
  }
}

void IciFlowModel::recompute(std::uint64_t now) {
  ++stamp_;
  for (LinkId seed : touched_) {
    if (link_mark_[seed] == stamp_ || link_flows_[seed].empty()) continue;
    collect_component(seed);
    ++recomputations_;
    flows_recomputed_ += comp_flows_.size();
    rate_component(now);
  }
  touched_.clear();
}

void IciFlowModel::rate_component(std::uint64_t now) {
  const double per_ps = static_cast<double>(timing().packet_bytes);
  old_share_.clear();
  for (std::uint32_t s : comp_flows_) {  // progress at the old rates
    Flow& f = flows_[s];
    if (f.share > 0)
      f.remaining =
          std::max(0.0, f.remaining - f.share * per_ps * static_cast<double>(now - f.since));
    f.since = now;
    old_share_.push_back(f.share);
  }
  if (comp_links_.size() == 1) {
    // One link (a ring step, a neighbour transfer): an equal share each, or the credit cap.
    const double x = 1.0 / static_cast<double>(comp_flows_.size());
    for (std::uint32_t s : comp_flows_) flows_[s].share = std::min(x, flows_[s].cap);
  } else {
    water_fill();
  }
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
    const std::uint32_t s = comp_flows_[i];
    schedule_drain(s, now, flows_[s].share != old_share_[i]);
  }
}

void IciFlowModel::water_fill() {
  // Progressive filling (Bertsekas and Gallager, "Data Networks", 6.5.2): raise every unfrozen
  // flow's rate together; the link whose share (capacity left / unfrozen flows) is smallest
  // saturates first and freezes its flows at that share. A heap orders the links (stale entries
  // are skipped by their version). Flows whose credits cap them below the next share freeze at
  // the cap first (every capped flow has the same cap).
  using Entry = std::pair<double, LinkId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  double cap = std::numeric_limits<double>::infinity();
  std::size_t capped = 0;
  for (std::uint32_t s : comp_flows_) {
    flows_[s].frozen = false;
    if (flows_[s].cap < 1.0) {
      cap = std::min(cap, flows_[s].cap);
      ++capped;
    }
  }
  for (LinkId l : comp_links_) {
    link_cap_[l] = 1.0;
    link_left_[l] = static_cast<std::uint32_t>(link_flows_[l].size());
    heap.emplace(1.0 / link_left_[l], l);
  }
  const auto share_of = [&](LinkId l) {
    return std::max(0.0, link_cap_[l]) / static_cast<double>(link_left_[l]);
  };
  const auto freeze = [&](Flow& f, double x) {
    f.frozen = true;
    f.share = x;
    for (LinkId l : f.path) {
      link_cap_[l] -= x;
      if (--link_left_[l] > 0) heap.emplace(share_of(l), l);
    }
  };
  while (!heap.empty()) {
    const auto [x, l] = heap.top();
    if (link_left_[l] == 0 || x != share_of(l)) {
      heap.pop();  // stale
      continue;
    }
    if (capped > 0 && cap < x) {
      for (std::uint32_t s : comp_flows_)
        if (!flows_[s].frozen && flows_[s].cap == cap) freeze(flows_[s], cap);
      capped = 0;
      continue;
    }
    heap.pop();
    for (std::uint32_t s : link_flows_[l])
      if (!flows_[s].frozen) freeze(flows_[s], x);
  }
}

void IciFlowModel::schedule_drain(std::uint32_t slot, std::uint64_t now, bool rerated) {
  Flow& f = flows_[slot];
  if (!rerated) return;  // its drain event still holds
  ++f.version;
  std::uint64_t dt;
  const double per_ps = f.share * static_cast<double>(timing().packet_bytes);
  if (f.share == 1.0 && f.remaining == std::floor(f.remaining) && f.remaining < 9e15) {
    // Alone at the full rate: the exact integer time, as the packet model's.
    const auto r = static_cast<std::uint64_t>(f.remaining);
    dt = (r + timing().packet_bytes - 1) / timing().packet_bytes;
  } else {
    dt = static_cast<std::uint64_t>(std::ceil(f.remaining / per_ps));
  }
  push(now + dt, Kind::kDrain, slot, f.version);
}

}  // namespace systole::models

#include "models/ici/ici_flow_model.h"

#include <algorithm>
#include <cmath>

namespace systole::models {

namespace {

/// Whole picoseconds from now until a predicted instant; never for one beyond any run (a rate
/// difference of rounding noise).
std::uint64_t to_ps(double t) {
  return t < 1e18 ? static_cast<std::uint64_t>(std::ceil(t)) : IciNetwork::kNever;
}

}  // namespace

IciFlowModel::IciFlowModel(const IciRoutes& topo, const IciLinkTiming& timing)
    : IciNetwork(topo, timing),
      window_(static_cast<double>(timing.credits) * static_cast<double>(timing.packet_bytes) *
              static_cast<double>(timing.packet_ps)),
      link_segs_(static_cast<std::size_t>(topo.link_slots())),
      link_touched_(static_cast<std::size_t>(topo.link_slots()), 0) {}

void IciFlowModel::push(std::uint64_t at, Kind k, std::uint32_t slot, std::uint32_t hop,
                        std::uint32_t version, double rate) {
  events_.push(Event{at, seq_++, rate, slot, hop, version, k});
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
  std::vector<LinkId> path;
  routes().route(src, dst, path);
  f.transfer = id;
  f.cap = path.size() >= 2 ? timing().credit_share() : 1.0;
  f.segs.assign(path.size(), Segment{});
  for (std::size_t k = 0; k < path.size(); ++k) {
    f.segs[k].link = path[k];
    add_link_bytes(path[k], bytes);
  }
  f.segs[0].q = static_cast<double>(bytes) * static_cast<double>(timing().packet_ps);
  f.segs[0].up_done = true;
  // Every packet is at the source router; the first can leave router_latency later.
  push(at_ps + timing().router_ps, Kind::kStart, slot, 0, f.gen);
  return id;
}

void IciFlowModel::step(std::vector<IciCompletion>& done) {
  if (events_.empty()) return;
  const std::uint64_t now = events_.top().at;
  while (!events_.empty() && events_.top().at == now) {
    while (!events_.empty() && events_.top().at == now) {
      const Event e = events_.top();
      events_.pop();
      handle(e, now, done);
    }
    if (!touched_.empty()) recompute(now);
  }
}

void IciFlowModel::handle(const Event& e, std::uint64_t now, std::vector<IciCompletion>& done) {
  if (e.kind == Kind::kArrive) {
    done.push_back({e.slot, now});
    --in_flight_;
    return;
  }
  Flow& f = flows_[e.slot];
  const bool prediction = e.kind == Kind::kEmpty || e.kind == Kind::kFull;
  if (!prediction && e.version != f.gen) return;  // for a flow that has arrived
  Segment& s = f.segs[e.hop];
  if (s.done || (prediction && e.version != s.version)) return;
  if (s.on_link) advance(s, now);
  s.dirty = true;
  switch (e.kind) {
    case Kind::kStart:
      join(e.slot, 0, now);
      if (s.q <= 0) finish(e.slot, 0, now);  // an empty transfer
      return;
    case Kind::kInflow:
      if (!s.on_link) join(e.slot, e.hop, now);
      s.in = e.rate;
      break;
    case Kind::kInflowEnd:
      s.in = 0;
      s.up_done = true;
      if (s.q <= 0) {
        finish(e.slot, e.hop, now);
        return;
      }
      break;
    case Kind::kCredit:
      s.cr = e.rate;
      break;
    case Kind::kEmpty:
      s.q = 0;
      if (s.up_done) {
        finish(e.slot, e.hop, now);
        return;
      }
      break;
    case Kind::kFull:
      s.o = window_;
      break;
    case Kind::kArrive:
      break;
  }
  touch(s.link);
}

void IciFlowModel::advance(Segment& s, std::uint64_t now) const {
  if (now == s.since) return;
  const double pb = static_cast<double>(timing().packet_bytes);
  const double w = pb * static_cast<double>(now - s.since);
  s.q = s.q + (s.in - s.x) * w;
  // A residue under a thousandth of a picosecond's work is the rounding of rates that should
  // cancel (equal flows): left in, it would keep a segment a picosecond longer than its equals,
  // and a flow that starts a picosecond early alone on its links gains n times that on n flows.
  if (s.q < 1e-3 * pb) s.q = 0;
  s.o = std::clamp(s.o + (s.x - s.cr) * w, 0.0, window_);
  s.since = now;
}

void IciFlowModel::touch(LinkId l) {
  if (link_touched_[l]) return;
  link_touched_[l] = 1;
  touched_.push_back(l);
}

void IciFlowModel::join(std::uint32_t slot, std::uint32_t hop, std::uint64_t now) {
  Segment& s = flows_[slot].segs[hop];
  s.on_link = true;
  s.since = now;
  link_segs_[s.link].push_back({slot, hop});
  touch(s.link);
}

void IciFlowModel::finish(std::uint32_t slot, std::uint32_t hop, std::uint64_t now) {
  Flow& f = flows_[slot];
  Segment& s = f.segs[hop];
  s.done = true;
  if (s.on_link) {
    auto& v = link_segs_[s.link];
    v.erase(std::find_if(v.begin(), v.end(),
                         [&](const SegRef& r) { return r.slot == slot && r.hop == hop; }));
    touch(s.link);
  }
  if (hop + 1 < f.segs.size()) {  // its last byte reaches the next router a hop later
    push(now + timing().hop_ps(), Kind::kInflowEnd, slot, hop + 1, f.gen);
    return;
  }
  push(now + timing().link_ps, Kind::kArrive, f.transfer);
  ++f.gen;  // no event of this flow still queued applies to the slot's next flow
  free_slots_.push_back(slot);
}

void IciFlowModel::recompute(std::uint64_t now) {
  for (std::size_t i = 0; i < touched_.size(); ++i) {
    const LinkId l = touched_[i];
    link_touched_[l] = 0;
    rate_link(l, now);
  }
  touched_.clear();
}

double IciFlowModel::seg_cap(const Flow& f, const Segment& s, std::uint32_t hop) const {
  const bool last = hop + 1 == f.segs.size();
  double cap = last ? 1.0 : f.cap;
  if (hop > 0 && s.q <= 0) cap = std::min(cap, s.in);      // empty buffer: what flows in
  if (!last && s.o >= window_) cap = std::min(cap, s.cr);  // window full: what is credited
  return cap;
}

void IciFlowModel::rate_link(LinkId l, std::uint64_t now) {
  const std::vector<SegRef>& segs = link_segs_[l];
  if (segs.empty()) return;
  ++recomputations_;
  flows_recomputed_ += segs.size();
  // Max-min fair shares of one link under per-segment caps: the smallest caps are met first,
  // the rest share what is left equally (progressive filling on one link; Bertsekas and
  // Gallager, "Data Networks", 2nd ed., 6.5.2).
  order_.clear();
  for (std::size_t i = 0; i < segs.size(); ++i) {
    Flow& f = flows_[segs[i].slot];
    Segment& s = f.segs[segs[i].hop];
    advance(s, now);
    order_.emplace_back(seg_cap(f, s, segs[i].hop), i);
  }
  std::sort(order_.begin(), order_.end());
  share_.assign(segs.size(), 0.0);
  double left = 1.0;
  for (std::size_t j = 0; j < order_.size(); ++j) {
    const double fair = left / static_cast<double>(order_.size() - j);
    const double x = std::min(order_[j].first, fair);
    share_[order_[j].second] = x;
    left = std::max(0.0, left - x);
  }
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const auto [slot, hop] = segs[i];
    Flow& f = flows_[slot];
    Segment& s = f.segs[hop];
    if (std::abs(share_[i] - s.x) > 1e-12) {  // not a change of rounding noise
      s.x = share_[i];
      s.dirty = true;
      // The new rate reaches the next router a hop later, and returns as credits to the
      // previous one a link latency later.
      if (hop + 1 < f.segs.size())
        push(now + timing().hop_ps(), Kind::kInflow, slot, hop + 1, f.gen, s.x);
      if (hop > 0 && !f.segs[hop - 1].done)
        push(now + timing().link_ps, Kind::kCredit, slot, hop - 1, f.gen, s.x);
    }
    if (s.dirty) predict(slot, hop, now);
  }
}

void IciFlowModel::predict(std::uint32_t slot, std::uint32_t hop, std::uint64_t now) {
  Flow& f = flows_[slot];
  Segment& s = f.segs[hop];
  s.dirty = false;
  s.version = ++prediction_;
  const double pb = static_cast<double>(timing().packet_bytes);
  std::uint64_t best = kNever;
  Kind kind = Kind::kEmpty;
  const double drain = s.x - (hop > 0 ? s.in : 0.0);
  if (s.q <= 0 && s.up_done) {
    best = 0;  // emptied between events (its last bytes' rounding): done now
  } else if (s.q > 0 && drain > 0) {
    if (hop == 0 && s.x == 1.0 && s.q == std::floor(s.q) && s.q < 9e15) {
      // Alone at the full rate: the exact integer time, as the packet model's.
      const auto r = static_cast<std::uint64_t>(s.q);
      best = (r + timing().packet_bytes - 1) / timing().packet_bytes;
    } else {
      best = to_ps(s.q / (drain * pb));
    }
  }
  const double fill = s.x - s.cr;
  if (hop + 1 < f.segs.size() && fill > 0 && s.o < window_) {
    const std::uint64_t t = to_ps((window_ - s.o) / (fill * pb));
    if (t < best) {
      best = t;
      kind = Kind::kFull;
    }
  }
  if (best != kNever) push(now + best, kind, slot, hop, s.version);
}

}  // namespace systole::models

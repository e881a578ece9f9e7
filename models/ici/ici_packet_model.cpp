#include "models/ici/ici_packet_model.h"

#include <algorithm>

namespace systole::models {

IciPacketModel::IciPacketModel(const IciRoutes& topo, const IciLinkTiming& timing)
    : IciNetwork(topo, timing), ports_(static_cast<std::size_t>(topo.link_slots())) {}

void IciPacketModel::push(std::uint64_t at, Kind k, std::uint32_t flow, std::uint32_t hop,
                          std::uint32_t count) {
  events_.push(Event{at, seq_++, flow, hop, count, k});
}

void IciPacketModel::mark(LinkId l) {
  Port& p = ports_[l];
  if (p.dirty) return;
  p.dirty = true;
  dirty_.push_back(l);
}

std::uint32_t IciPacketModel::start(ChipId src, ChipId dst, std::uint64_t bytes,
                                    std::uint64_t at_ps) {
  const auto id = static_cast<std::uint32_t>(flows_.size());
  flows_.emplace_back();
  ++in_flight_;
  if (src == dst) {
    push(at_ps, Kind::kArrive, id);
    return id;
  }
  Flow& f = flows_.back();
  f.transfer = id;
  routes().route(src, dst, f.path);
  const std::uint64_t p = timing().packet_bytes;
  const std::uint64_t full = bytes / p, rest = bytes % p;
  f.packets = static_cast<std::uint32_t>(full + (rest > 0 || full == 0 ? 1 : 0));
  f.last_bytes = rest > 0 || full == 0 ? rest : p;
  f.hops.resize(f.path.size());
  for (std::size_t k = 0; k + 1 < f.path.size(); ++k)
    f.hops[k].credits = static_cast<std::uint32_t>(timing().credits);
  for (std::size_t k = 0; k < f.path.size(); ++k)
    ports_[f.path[k]].waiting.emplace_back(id, static_cast<std::uint32_t>(k));
  // Every packet is at the source router; each can leave router_latency later.
  push(at_ps + timing().router_ps, Kind::kReady, id, 0, f.packets);
  return id;
}

void IciPacketModel::step(std::vector<IciCompletion>& done) {
  if (events_.empty()) return;
  const std::uint64_t now = events_.top().at;
  while (!events_.empty() && events_.top().at == now) {
    while (!events_.empty() && events_.top().at == now) {
      const Event e = events_.top();
      events_.pop();
      switch (e.kind) {
        case Kind::kReady: {
          Flow& f = flows_[e.flow];
          f.hops[e.hop].ready += e.count;
          mark(f.path[e.hop]);
          break;
        }
        case Kind::kCredit: {
          Flow& f = flows_[e.flow];
          ++f.hops[e.hop].credits;
          mark(f.path[e.hop]);
          break;
        }
        case Kind::kLinkFree:
          mark(e.flow);
          break;
        case Kind::kArrive: {
          done.push_back({e.flow, now});
          --in_flight_;
          // Its last credit came back before it arrived (same instant, pushed first): nothing
          // of it is needed any more.
          Flow& f = flows_[e.flow];
          std::vector<LinkId>().swap(f.path);
          std::vector<Hop>().swap(f.hops);
          break;
        }
      }
    }
    // Every port that may move arbitrates once all of this instant's events are in.
    for (std::size_t i = 0; i < dirty_.size(); ++i) {
      const LinkId l = dirty_[i];
      ports_[l].dirty = false;
      arbitrate(l, now);
    }
    dirty_.clear();
  }
}

void IciPacketModel::arbitrate(LinkId l, std::uint64_t now) {
  Port& p = ports_[l];
  if (p.free_at > now || p.waiting.empty()) return;
  const std::size_t n = p.waiting.size();
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t i = (p.next + j) % n;
    const auto [fi, k] = p.waiting[i];
    const Flow& f = flows_[fi];
    const Hop& h = f.hops[k];
    const bool last = k + 1 == f.path.size();
    if (h.ready > 0 && (last || h.credits > 0)) {
      send(l, p, i, now);
      return;
    }
  }
}

void IciPacketModel::send(LinkId l, Port& p, std::size_t i, std::uint64_t now) {
  const auto [fi, k] = p.waiting[i];
  Flow& f = flows_[fi];
  Hop& h = f.hops[k];
  const bool last_hop = k + 1 == f.path.size();
  const std::uint32_t index = h.sent++;
  const bool last_packet = index + 1 == f.packets;
  const std::uint64_t bytes = last_packet ? f.last_bytes : timing().packet_bytes;
  const std::uint64_t ser = timing().serialization_ps(bytes);
  --h.ready;
  if (!last_hop) --h.credits;
  add_link_bytes(l, bytes);
  ++packet_hops_;
  p.free_at = now + ser;
  push(now + ser, Kind::kLinkFree, l);
  // The packet's slot in this router frees when its tail has left; its credit reaches the
  // upstream router one link latency later.
  if (k > 0) push(now + ser + timing().link_ps, Kind::kCredit, fi, k - 1);
  if (!last_hop) {
    push(now + timing().link_ps + timing().router_ps, Kind::kReady, fi, k + 1, 1);
  } else if (last_packet) {
    push(now + timing().link_ps + ser, Kind::kArrive, f.transfer);
  }
  // Round robin: the next arbitration starts after this message; a message done with this
  // link leaves the port.
  if (h.sent == f.packets) {
    p.waiting.erase(p.waiting.begin() + static_cast<std::ptrdiff_t>(i));
    p.next = p.waiting.empty() ? 0 : i % p.waiting.size();
  } else {
    p.next = (i + 1) % p.waiting.size();
  }
}

}  // namespace systole::models

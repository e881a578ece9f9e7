#include "models/hbm/hbm_timing.h"

#include <algorithm>
#include <deque>

#include "sim/core/error.h"

namespace systole::models {

struct HbmTiming::Transfer {
  DmaDescriptor desc;
  std::vector<std::uint64_t> gather;  // address list (gather transfers)
  bool is_gather = false;
  bool write = false;
  std::uint32_t port = 0;
  TransferId id = 0;
  bool live = false;
  std::uint32_t next_free = ~0u;
  // Request generator: position in the descriptor (or the address list).
  std::uint64_t idx[3] = {0, 0, 0};
  std::uint64_t off = 0;
  bool generated = false;  // every request has been generated
  // Progress.
  std::uint64_t outstanding = 0;                    // requests issued, not complete
  std::uint64_t bursts_made = 0, bursts_floor = 0;  // (bursts issued: tallies_[its slot])
  // Its term of the completion bound (rekey): in bound_fixed_ once its last burst issued, else
  // in bound_pending_ (by `spread`, see next_completion_bound).
  bool fixed = false;
  Cycle spread = -1;
};

struct HbmTiming::Port {
  std::uint32_t max_outstanding = 0, request_bytes = 0;
  Cycle latency = 0;        // response latency after the DRAM
  std::uint32_t fifo = 0;   // its responses' FIFO (one per distinct latency)
  std::uint64_t chunk = 0;  // largest request: min(request size, interleave)
  /// The request of up to `len` bytes at `addr`: aligned to the request size, never across an
  /// interleave block (both powers of two: a mask, not a division, on this per-request path).
  std::uint64_t cut(std::uint64_t addr, std::uint64_t len) const {
    return std::min(len, chunk - (addr & (chunk - 1)));
  }
  std::uint32_t outstanding = 0;
  std::deque<std::uint32_t> issuing;  // transfers not yet fully generated, in order
};

HbmTiming::HbmTiming(const HbmConfig& cfg) : cfg_(cfg), map_(cfg) {
  const auto n = static_cast<std::uint32_t>(cfg.total_channels());
  total_pcs_ = n * static_cast<std::uint32_t>(cfg.pseudo_channels);
  for (std::uint32_t c = 0; c < n; ++c)
    ctl_.push_back(std::make_unique<HbmController>(cfg, c, total_pcs_, *this));
  pcs_ = static_cast<std::uint32_t>(cfg.pseudo_channels);
  ingress_.resize(static_cast<std::size_t>(n) * pcs_ * 2);
  arrivals_.resize(n);
  done_at_.assign(n, kNever);
  for (const auto& c : ctl_) decide_at_.push_back(c->next_decide());
  window_ = std::max<Cycle>(1, std::min(cfg.t_cl, cfg.t_cwl) + cfg.t_bl());
  read_window_ = std::max<Cycle>(1, cfg.t_cl + cfg.t_bl());
  tck_ps_ = cfg.tck_ps();
  while ((1u << atom_shift_) < map_.atom_bytes()) ++atom_shift_;
  atom_mask_ = (std::uint64_t{1} << atom_shift_) - 1;
  peak_per_cycle_ = cfg.organisation_peak() * tck_ps_ * 1e-12;
  const HbmTimingParams& tp = ctl_[0]->device().timing();
  bound_bl_ = tp.bl;
  bound_gap_[0] = tp.cl + tp.bl;
  bound_gap_[1] = tp.cwl + tp.bl;
}

HbmTiming::~HbmTiming() = default;

Cycle HbmTiming::next_event() const {
  Cycle m = kNever;
  for (std::size_t c = 0; c < ctl_.size(); ++c)
    m = std::min({m, decide_at_[c], done_at_[c]});  // its next_decide(), next_done()
  return std::min(m, next_response());
}

int HbmTiming::first_response() const {
  int best = -1;
  const HbmRing<Response>* q = responses_.data();  // (by pointer: size() would divide)
  const auto n = static_cast<int>(latencies_.size());
  for (int i = 0; i < n; ++i) {
    if (q[i].empty()) continue;
    const Response& r = q[i].front();
    if (best < 0) {
      best = i;
      continue;
    }
    const Response& b = q[best].front();
    if (r.at < b.at || (r.at == b.at && r.seq < b.seq)) best = i;
  }
  return best;
}

std::uint32_t HbmTiming::add_port(std::uint32_t max_outstanding, std::uint32_t request_bytes,
                                  Cycle response_latency) {
  SYSTOLE_ASSERT(max_outstanding > 0 && request_bytes > 0 && !(request_bytes & (request_bytes - 1)),
                 "HBM port needs outstanding requests and a power-of-two request size");
  SYSTOLE_ASSERT(response_latency >= 0, "HBM port response latency is negative");
  Port p;
  p.max_outstanding = max_outstanding;
  p.request_bytes = request_bytes;
  p.latency = response_latency;
  p.chunk = std::min<std::uint64_t>(request_bytes, map_.interleave());
  min_latency_ = std::min(min_latency_, response_latency);
  const auto known = std::find(latencies_.begin(), latencies_.end(), response_latency);
  p.fifo = static_cast<std::uint32_t>(known - latencies_.begin());
  if (known == latencies_.end()) {
    latencies_.push_back(response_latency);
    responses_.emplace_back();
  }
  ports_.push_back(std::move(p));
  return static_cast<std::uint32_t>(ports_.size() - 1);
}

void HbmTiming::start_transfer(std::uint32_t port, const DmaDescriptor& d, bool write,
                               std::vector<std::uint64_t> gather) {
  std::uint32_t slot = free_xfer_;
  if (slot == ~0u) {
    slot = static_cast<std::uint32_t>(xfers_.size());
    xfers_.emplace_back();
    tallies_.emplace_back();
  } else {
    free_xfer_ = xfers_[slot].next_free;
  }
  Transfer& x = xfers_[slot];
  x = Transfer{};
  tallies_[slot] = HbmBurstTally{};
  x.desc = d;
  x.is_gather = !gather.empty();
  x.gather = std::move(gather);
  x.write = write;
  x.port = port;
  x.id = next_id_++;
  x.live = true;
  // (A gather's requests are cut at their interleave blocks, so count its bursts.)
  x.bursts_floor =
      x.is_gather ? gather_bursts(ports_[port], x.gather) : d.bytes() / map_.atom_bytes();
  ++active_;
  active_writes_ += write;
  if (d.bytes() == 0) {
    finish(slot, now_);
  } else {
    rekey(slot);
    ports_[port].issuing.push_back(slot);
    try_issue(port, now_);
  }
}

std::uint64_t HbmTiming::gather_bursts(const Port& p,
                                       const std::vector<std::uint64_t>& addrs) const {
  std::uint64_t n = 0;
  for (const std::uint64_t a : addrs) n += request_bursts(a, p.cut(a, p.request_bytes));
  return n;
}

void HbmTiming::finish(std::uint32_t slot, Cycle t) {
  Transfer& x = xfers_[slot];
  completed_.push_back({x.id, x.port, t});
  --active_;
  active_writes_ -= x.write;
  x.live = false;
  (x.fixed ? bound_fixed_ : bound_pending_).erase(slot);
  x.gather = {};
  x.next_free = free_xfer_;
  free_xfer_ = slot;
}

TransferId HbmTiming::submit(std::uint32_t port, const DmaDescriptor& d, bool write) {
  const TransferId id = next_id_;
  start_transfer(port, d, write, {});
  return id;
}

TransferId HbmTiming::submit_gather(std::uint32_t port, std::vector<std::uint64_t> addrs,
                                    bool write) {
  DmaDescriptor d;
  d.row_bytes = ports_[port].request_bytes;
  d.dims[0].count = addrs.size();
  const TransferId id = next_id_;
  start_transfer(port, d, write, std::move(addrs));
  return id;
}

bool HbmTiming::generate(Port& p, HbmRequestIn& out, std::uint32_t& channel) {
  if (p.issuing.empty()) return false;
  const std::uint32_t tag = p.issuing.front();
  Transfer& x = xfers_[tag];
  std::uint64_t addr, len;
  if (x.is_gather) {  // one request per address (cut at its interleave block)
    addr = x.gather[x.idx[0]];
    len = p.request_bytes;
  } else {
    const DmaDescriptor& d = x.desc;
    addr = d.addr + x.idx[0] * d.dims[0].stride + x.idx[1] * d.dims[1].stride +
           x.idx[2] * d.dims[2].stride + x.off;
    len = d.row_bytes - x.off;
  }
  len = p.cut(addr, len);
  if (x.is_gather) {  // advance the generator
    if (++x.idx[0] == x.gather.size()) x.generated = true;
  } else {
    x.off += len;
    if (x.off == x.desc.row_bytes) {
      x.off = 0;
      int k = 0;
      while (k < 3 && ++x.idx[k] == x.desc.dims[k].count) x.idx[k++] = 0;
      if (k == 3) x.generated = true;
    }
  }
  if (x.generated) p.issuing.pop_front();
  const auto bursts = static_cast<std::uint32_t>(request_bursts(addr, len));
  const HbmAddress a = map_.decode(addr);
  out = {a.pc, a.bg, a.bank, a.row, a.col, bursts, tag, x.write};
  channel = a.channel;
  x.bursts_made += bursts;
  // (Before the last request is made, `left` counts at least the transfer's whole bursts.)
  if (x.generated || x.bursts_made > x.bursts_floor) rekey(tag);
  return true;
}

void HbmTiming::try_issue(std::uint32_t port, Cycle t) {
  Port& p = ports_[port];
  HbmRequestIn r;
  std::uint32_t ch = 0;
  while (p.outstanding < p.max_outstanding && generate(p, r, ch)) {
    ++p.outstanding;
    ++xfers_[r.tag].outstanding;
    ++requests_;
    // A request waits in its pseudo-channel's ingress queue (the on-chip network's buffering
    // in front of the controller) while the controller's queue is full.
    if (deferring_)
      arrivals_[ch].push_back({t, origin_ > ch, r});
    else
      route(ch, r, t);
  }
}

void HbmTiming::route(std::uint32_t ch, const HbmRequestIn& r, Cycle t) {
  auto& in = ingress_[(ch * pcs_ + r.pc) * 2 + r.write];
  if (in.empty() && !ctl_[ch]->full(r.pc, r.write)) {
    ctl_[ch]->enqueue(r, t);
    decide_at_[ch] = ctl_[ch]->next_decide();
  } else {
    in.push_back(r);
  }
}

void HbmTiming::on_request_done(std::uint32_t tag, Cycle t) {
  const Port& p = ports_[xfers_[tag].port];
  if (p.latency == 0) return release(tag, t);
  HbmRing<Response>& q = responses_[p.fifo];
  SYSTOLE_ASSERT(q.empty() || q.back().at <= t + p.latency, "HBM responses out of order");
  q.push_back({t + p.latency, response_seq_++, tag, origin_});
}

void HbmTiming::release_due(Cycle t) {
  for (;;) {
    const int f = first_response();
    if (f < 0) return;
    HbmRing<Response>& q = responses_[static_cast<std::size_t>(f)];
    if (q.front().at > t) return;
    const Response r = q.front();
    q.pop_front();
    origin_ = r.origin;
    release(r.tag, r.at);
  }
}

void HbmTiming::release(std::uint32_t tag, Cycle t) {
  Transfer& x = xfers_[tag];
  const std::uint32_t port = x.port;
  --x.outstanding;
  --ports_[port].outstanding;
  if (x.generated && x.outstanding == 0) finish(tag, t);
  try_issue(port, t);
}

void HbmTiming::on_space(std::uint32_t channel, std::uint32_t pc, Cycle t) {
  for (int w = 0; w < 2; ++w) {
    auto& in = ingress_[(channel * pcs_ + pc) * 2 + static_cast<std::uint32_t>(w)];
    while (!in.empty() && !ctl_[channel]->full(pc, w != 0)) {
      ctl_[channel]->enqueue(in.front(), t);
      decide_at_[channel] = ctl_[channel]->next_decide();
      in.pop_front();
    }
  }
}

void HbmTiming::set_fast(bool fast) {
  long_windows_ = fast;
  for (auto& c : ctl_) c->set_fast(fast);
}

Cycle HbmTiming::complete_at(Cycle t) {
  Cycle next = kNever;
  const auto channels = static_cast<std::uint32_t>(ctl_.size());
  for (std::uint32_t c = 0; c < channels; ++c) {
    Cycle d = done_at_[c];
    if (d <= t) {
      origin_ = c;
      ctl_[c]->complete(t);
      d = done_at_[c] = ctl_[c]->next_done();
      decide_at_[c] = ctl_[c]->next_decide();  // (space freed: requests enqueued)
    }
    next = std::min(next, d);
  }
  return next;
}

Cycle HbmTiming::replay_completions_first(Cycle from, Cycle to, bool until_idle) {
  // The completions of the window, in the order a sweep over the channels at each cycle meets
  // them; the requests the ports generate wait in the channels' arrival lists.
  // Only cycles with a completion do anything (a replayed completion only generates requests,
  // which wait in the arrival lists, so no channel's next completion moves but its own): the
  // sweep jumps from one such cycle to the next.
  for (Cycle t = from; t < to;) {
    release_due(t);  // responses back at t free their slots before this cycle's completions
    const Cycle done = complete_at(t);  // (before next_response: it may send responses)
    const Cycle next = std::min(done, next_response());
    if (until_idle && active_ == 0) return t + 1;
    t = std::max(t + 1, next);
  }
  return to;
}

Cycle HbmTiming::replay_releases(Cycle from, Cycle to, bool until_idle) {
  // A response back in the window was sent by a completion at least min_latency_ (the window's
  // length or more) before it: before the window, so it waits in its FIFO already. The sweep
  // met a cycle's releases before its completions, which send responses only (no port without
  // a latency): the releases alone fix the order of the requests the ports generate.
  for (Cycle t = std::max(from, next_response()); t < to;) {
    release_due(t);
    if (until_idle && active_ == 0) return t + 1;
    t = std::max(t + 1, next_response());
  }
  return to;
}

void HbmTiming::replay_completions_after(Cycle to) {
  // In sweep order (cycle, then channel) as replay_completions_first meets them: the responses
  // they send are numbered (Response::seq) and queued in that order.
  Cycle t = *std::min_element(done_at_.begin(), done_at_.end());
  while (t < to) t = std::max(t + 1, complete_at(t));
}

Cycle HbmTiming::run_window(Cycle from, Cycle to, bool until_idle) {
  // Long windows (the ports' responses take at least the window): the channels' completions
  // send responses that are back after the window, so they are replayed after the channels'
  // passes, and a window needs only the releases before them.
  const bool late = long_windows_ && to - from <= min_latency_;
  deferring_ = true;
  to =
      late ? replay_releases(from, to, until_idle) : replay_completions_first(from, to, until_idle);
  deferring_ = false;
  // Each channel through the window. In a cycle, a sweep gives a channel the requests of the
  // completions of the channels up to itself, then it decides, then come those of the
  // channels after it, and further sweeps in that cycle decide for what is due again.
  // A channel with no decision due and no arrival in the window does nothing in it (its next
  // completion was met by the replay): only the others are passed through, found in the
  // per-channel copies of their next decisions without touching the controllers.
  busy_.clear();
  for (std::uint32_t c = 0; c < ctl_.size(); ++c)
    if (decide_at_[c] < to || !arrivals_[c].empty()) busy_.push_back(c);
  for (std::size_t i = 0; i < busy_.size(); ++i) {
    const std::uint32_t c = busy_[i];
    HbmController& ctl = *ctl_[c];
    if (i + 1 < busy_.size()) ctl_[busy_[i + 1]]->prefetch();
    std::vector<Arrival>& arr = arrivals_[c];
    // (No request is generated during the passes: the list stays as it is.)
    const Arrival* a = arr.data();
    const Arrival* const end = a + arr.size();
    for (;;) {
      // The decisions before the next arrival, then the arrival's cycle: its requests before or
      // after that cycle's first pass, as the sweep gives them.
      ctl.decide_before(a != end ? std::min(a->at, to) : to);
      if (a == end || a->at >= to) break;
      const Cycle t = a->at;
      for (; a != end && a->at == t && !a->after; ++a) route(c, a->r, t);
      ctl.decide_due(t);
      for (; a != end && a->at == t; ++a) route(c, a->r, t);
      while (ctl.next_decide() <= t) ctl.decide_due(t);
    }
    SYSTOLE_ASSERT(a == end && (late || ctl.next_done() >= to), "HBM window overran");
    arr.clear();
    done_at_[c] = ctl.next_done();  // its decisions issued commands
    decide_at_[c] = ctl.next_decide();
  }
  if (late) {
    ++long_windows_run_;
    deferring_ = true;  // (no port without a latency: nothing is generated)
    replay_completions_after(to);
    deferring_ = false;
  }
  now_ = std::max(now_, to - 1);
  return to;
}

void HbmTiming::advance_to(Cycle t) {
  for (;;) {
    const Cycle at = next_event();
    if (at > t) break;
    run_window(at, std::min(at + window(), t + 1), false);
  }
  now_ = std::max(now_, t);
}

Cycle HbmTiming::run_until_idle() {
  while (active_ > 0) {
    const Cycle at = next_event();
    SYSTOLE_ASSERT(at < kNever, "HBM model stalled with transfers in flight");
    run_window(at, at + window(), true);
  }
  Cycle last = now_;
  for (const auto& c : completed_) last = std::max(last, c.at);
  return last;
}

std::vector<HbmCompletion> HbmTiming::take_completed() {
  std::vector<HbmCompletion> out;
  out.swap(completed_);
  return out;
}

void HbmTiming::rekey(std::uint32_t slot) {
  Transfer& x = xfers_[slot];
  HbmBurstTally& tally = tallies_[slot];
  if (x.fixed) return;  // its last burst issued: nothing changes it any more
  const std::uint64_t made = x.generated ? x.bursts_made : std::max(x.bursts_made, x.bursts_floor);
  const std::uint64_t left = made - std::min(made, tally.issued);
  if (left == 0 && x.generated) {
    x.fixed = true;
    bound_pending_.erase(slot);
    bound_fixed_.set(slot, tally.last_end + ports_[x.port].latency);
    return;
  }
  const Cycle spread = spread_of(left);
  if (spread != x.spread) {
    x.spread = spread;
    bound_pending_.set(slot, x.spread + bound_gap_[x.write] + ports_[x.port].latency);
  }
  // Until more requests are generated, each burst issued takes one from `left`: the spread
  // drops once left is at most spread_drops_at(spread) (> 0, left is above it now); at spread
  // 0 the key changes only when the last burst issues (once every request is made).
  std::uint64_t steps = ~std::uint64_t{0} / 2;
  if (spread > 0)
    steps = left - spread_drops_at(spread);
  else if (x.generated)
    steps = left;
  tally.notify_at = tally.issued + steps;
}

Cycle HbmTiming::spread_of(std::uint64_t left) const {
  // The last of `left` bursts issues at least this many cycles after the first could: each
  // pseudo-channel's data bus takes tBL a burst (the bursts spread over every one of them) and
  // each channel's command bus one column command a clock (over every channel).
  const std::uint64_t n = std::max<std::uint64_t>(left, 1) - 1;
  const std::uint64_t bl = static_cast<std::uint64_t>(bound_bl_);
  return static_cast<Cycle>(std::max(n / total_pcs_ * bl, n / ctl_.size()));
}

std::uint64_t HbmTiming::spread_drops_at(Cycle spread) const {
  // The most bursts left whose spread_of is below `spread` (> 0): n / PCs x tBL < spread and
  // n / channels < spread, with n = left - 1.
  const auto s = static_cast<std::uint64_t>(spread);
  const std::uint64_t bl = static_cast<std::uint64_t>(bound_bl_);
  return std::min<std::uint64_t>(total_pcs_ * ((s + bl - 1) / bl), ctl_.size() * s);
}

Cycle HbmTiming::next_completion_bound() const {
  // The scan's terms (completion_bound_by_scan) kept per transfer: a transfer whose last burst
  // issued gives max(its last data end + latency, now + 1), a fixed key; any other gives
  // max(last data end, now + 1 + spread + tCL or tCWL + tBL) + latency, and its last data end
  // is at most now + tCL or tCWL + tBL (a burst issued by now, the kind's latency after), so
  // the second term is the larger: now + 1 + a key that changes only with its bursts.
  if (active_ == 0) return kNever;
  Cycle best = kNever;
  const Cycle fixed = bound_fixed_.top();
  if (fixed < kNever) best = std::max(fixed, now_ + 1);
  const Cycle pending = bound_pending_.top();
  if (pending < kNever) best = std::min(best, now_ + 1 + pending);
  return best;
}

Cycle HbmTiming::completion_bound_by_scan() const {
  if (active_ == 0) return kNever;
  const HbmTimingParams& tp = ctl_[0]->device().timing();
  Cycle best = kNever;
  for (std::size_t slot = 0; slot < xfers_.size(); ++slot) {
    const Transfer& x = xfers_[slot];
    if (!x.live) continue;
    const HbmBurstTally& tally = tallies_[slot];
    const std::uint64_t made =
        x.generated ? x.bursts_made : std::max(x.bursts_made, x.bursts_floor);
    const std::uint64_t left = made - std::min(made, tally.issued);
    Cycle b;
    if (left == 0 && x.generated) {
      b = tally.last_end;
    } else {
      b = std::max(tally.last_end, now_ + 1 + spread_of(left) + (x.write ? tp.cwl : tp.cl) + tp.bl);
    }
    // Its last response is back its port's latency after its last data crossed the bus.
    best = std::min(best, std::max(b + ports_[x.port].latency, now_ + 1));
  }
  return best;
}

}  // namespace systole::models

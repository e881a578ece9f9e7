#include "models/gpu_sm/gpu_sm_module.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/gpu_sm/gpu_sm_tile_model.h"
#include "sim/core/error.h"

namespace systole::models {

using sc_core::sc_time;

GpuSmArrayModule::GpuSmArrayModule(const sc_core::sc_module_name& name, const GpuSmConfig& cfg,
                                   int sms, std::uint16_t first_requester, int in_flight)
    : sc_core::sc_module(name),
      memory("memory"),
      cfg_(cfg),
      first_(first_requester),
      period_ps_(1e12 / cfg.clock.value()) {
  SYSTOLE_ASSERT(sms > 0 && in_flight > 0, "an SM array needs SMs and copies in flight");
  for (int sm = 0; sm < sms; ++sm) {
    Engine& e = *engines_.emplace_back(std::make_unique<Engine>());
    sc_core::sc_spawn_options o;
    o.set_stack_size(64 * 1024);  // small frames; thousands of these processes
    sc_core::sc_spawn([this, sm] { issuer(sm); }, sc_core::sc_gen_unique_name("issuer"), &o);
    for (int f = 0; f < in_flight; ++f) {
      sc_core::sc_event* job =
          e.finisher_events.emplace_back(std::make_unique<sc_core::sc_event>()).get();
      sc_core::sc_spawn([this, sm, job] { finisher(sm, *job); },
                        sc_core::sc_gen_unique_name("finisher"), &o);
    }
  }
}

void GpuSmArrayModule::set_clock(Hz f) {
  SYSTOLE_ASSERT(f.value() > 0, "gpu_sm: a clock must be positive");
  cfg_.clock = f;
  period_ps_ = 1e12 / f.value();
}

std::uint64_t gpu_sm_cycle_of_ps(std::uint64_t ps, double clock_hz) {
  const double c = static_cast<double>(ps) * 1e-12 * clock_hz;
  return static_cast<std::uint64_t>(std::ceil(c - 1e-6));
}

std::uint64_t gpu_sm_cycle_end_ps(std::uint64_t c, double period_ps) {
  // Any picosecond in ((c - 1) x P, c x P] is in cycle c, so an error of the product below a
  // picosecond cannot move it to another cycle (P > 1 ps).
  return static_cast<std::uint64_t>(std::floor(static_cast<double>(c) * period_ps));
}

sc_time GpuSmArrayModule::time_at(std::uint64_t c) const {
  return t0_ + sc_time::from_value(static_cast<sc_dt::uint64>(gpu_sm_cycle_end_ps(c, period_ps_)));
}

std::uint64_t GpuSmArrayModule::cycles_at(const sc_time& t) const {
  return gpu_sm_cycle_of_ps((t - t0_).value(), cfg_.clock.value());
}

void GpuSmArrayModule::post(int sm, Job j) {
  Engine& e = *engines_[static_cast<size_t>(sm)];
  e.jobs.push_back(std::move(j));
  e.posted.notify(sc_core::SC_ZERO_TIME);
}

void GpuSmArrayModule::issuer(int sm) {
  Engine& e = *engines_[static_cast<size_t>(sm)];
  for (;;) {
    while (e.jobs.empty()) sc_core::wait(e.posted);
    Job j = std::move(e.jobs.front());
    e.jobs.pop_front();
    const sc_time at = time_at(j.issue);
    if (at > sc_core::sc_time_stamp()) sc_core::wait(at - sc_core::sc_time_stamp());
    Accepted a;
    a.token = j.token;
    a.issue = j.issue;
    a.write = j.write;
    a.meet = j.meet;
    for (size_t i = 0; i < j.descs.size(); ++i) {
      const DmaDescriptor& d = j.descs[i];
      if (d.bytes() == 0) continue;
      a.bytes += d.bytes();
      MemoryTransfer t;
      t.desc = d;
      if (static_cast<int>(i) == j.multicast) {
        t.also = j.also;
        t.also_count = j.also_count;
      }
      t.write = j.write;
      t.requester = requester(sm);
      t.request_bytes = 128;
      t.max_outstanding = 64;
      a.handles.push_back(memory->begin(t));
    }
    e.accepted.push_back(std::move(a));
    if (!e.idle.empty()) {
      e.idle.back()->notify(sc_core::SC_ZERO_TIME);
      e.idle.pop_back();
    }
  }
}

void GpuSmArrayModule::finisher(int sm, sc_core::sc_event& job) {  // job: one was accepted
  Engine& e = *engines_[static_cast<size_t>(sm)];
  for (;;) {
    while (e.accepted.empty()) {
      e.idle.push_back(&job);
      sc_core::wait(job);
    }
    const Accepted a = std::move(e.accepted.front());
    e.accepted.pop_front();
    sc_time last = sc_core::sc_time_stamp();
    for (const std::uint64_t h : a.handles)
      last = std::max(last, sc_core::sc_time_stamp() + memory->finish(h));
    const std::uint64_t done = std::max(a.issue + 1, cycles_at(last));
    if (trace_) record(sm, a, done);
    if (a.meet.members > 1)
      meet(a, done);
    else
      deliver(a.token, done);
  }
}

void GpuSmArrayModule::meet(const Accepted& a, std::uint64_t done) {
  const auto key = std::make_pair(a.meet.cluster, a.meet.k_tile);
  Meeting& m = meetings_[key];
  m.done = std::max(m.done, done);
  m.tokens.push_back(a.token);
  if (m.tokens.size() < static_cast<size_t>(a.meet.members)) return;
  for (const std::uint64_t t : m.tokens) deliver(t, m.done);
  meetings_.erase(key);
}

void GpuSmArrayModule::set_trace(TraceRecorder* rec, const std::string& device,
                                 const std::string& memory_path) {
  trace_ = rec != nullptr && rec->on() ? rec : nullptr;
  if (!trace_) return;
  load_ = trace_->kind("load");
  store_ = trace_->kind("store");
  memory_place_ = trace_->place(memory_path);
  for (int sm = 0; sm < sms(); ++sm) {
    const std::string base = device + ".sm" + std::to_string(sm);
    trace_->unit(base);
    copy_unit_.push_back(trace_->unit(base + ".copy"));
    smem_.push_back(trace_->place(base + ".smem"));
  }
}

// A copy from its issue to its data in shared memory; a store until it is written.
void GpuSmArrayModule::record(int sm, const Accepted& a, std::uint64_t done) {
  const auto s = static_cast<size_t>(sm);
  const auto ps = [this](std::uint64_t c) { return static_cast<double>(time_at(c).value()); };
  trace_->add(copy_unit_[s], a.write ? store_ : load_, ps(a.issue), ps(done), a.bytes,
              a.write ? smem_[s] : memory_place_, a.write ? memory_place_ : smem_[s]);
}

void GpuSmArrayModule::deliver(std::uint64_t token, std::uint64_t cycle) {
  arrivals_.emplace_back(token, cycle);
  arrival_.notify(sc_core::SC_ZERO_TIME);
}

Cycles GpuSmArrayModule::complete(const GmemRequest& r) {
  if (flash_) {
    post(r.sm, flash_job(r));
    return Cycles(kGmemPending);
  }
  SYSTOLE_ASSERT(works_ && addr_, "gpu_sm: a request outside a GEMM launch");
  const CtaWork& w = (*works_)[static_cast<size_t>(r.cta)];
  SYSTOLE_ASSERT(w.id == r.cta, "gpu_sm: CTA ids must index the launch's work list");
  const GemmAddressing& a = *addr_;
  Job j;
  j.token = r.token;
  j.issue = r.issue.value();
  j.write = r.store;
  const std::uint64_t b_base =
      a.b + (a.batch_rows > 0 ? static_cast<std::uint64_t>(w.m0 / a.batch_rows /
                                                           std::max<std::int64_t>(a.b_group, 1)) *
                                    a.b_batch
                              : 0);
  if (r.store) {
    const auto ob = static_cast<std::uint64_t>(out_bytes_);
    const std::uint64_t c_base =
        a.c + (a.k_slice > 0 ? static_cast<std::uint64_t>(w.k0 / a.k_slice) * a.c_split : 0);
    j.descs.push_back(DmaDescriptor::strided(
        c_base + static_cast<std::uint64_t>(w.m0) * a.c_row + static_cast<std::uint64_t>(w.n0) * ob,
        static_cast<std::uint64_t>(w.m), static_cast<std::uint64_t>(w.n) * ob, a.c_row));
  } else {
    const std::int64_t kb = w.k0 + r.k_tile * bk_;
    const auto len = static_cast<std::uint64_t>(std::min(bk_, w.k - r.k_tile * bk_)) * a.elem;
    j.descs.push_back(
        DmaDescriptor::strided(a.a + static_cast<std::uint64_t>(w.m0) * a.a_row + a.a_k(kb),
                               static_cast<std::uint64_t>(w.m), len, a.a_row));
    // TMA multicast in a cluster along M: the members share the k-tile's B rows; each loads its
    // share (rows [rank x n / size, (rank + 1) x n / size)) for all of them.
    const std::int64_t size = w.cluster_size, rank = w.cluster_rank;
    const std::int64_t b0 = w.n * rank / size, b1 = w.n * (rank + 1) / size;
    j.descs.push_back(DmaDescriptor::strided(b_base +
                                                 static_cast<std::uint64_t>(w.n0 + b0) * a.b_row +
                                                 static_cast<std::uint64_t>(kb) * a.elem,
                                             static_cast<std::uint64_t>(b1 - b0), len, a.b_row));
    if (size > 1) {
      j.meet = Meet{w.id - rank, r.k_tile, static_cast<int>(size)};
      j.multicast = 1;
      for (std::int64_t m = 0; m < size; ++m)
        if (m != rank)
          j.also[j.also_count++] = requester(cta_sm_[static_cast<size_t>(w.id - rank + m)]);
    }
  }
  post(r.sm, std::move(j));
  return Cycles(kGmemPending);
}

std::vector<int> GpuSmArrayModule::check_clusters(const GemmLaunch& launch,
                                                  const std::vector<CtaWork>& works) {
  std::vector<std::pair<size_t, size_t>> at(works.size(), {~size_t{0}, 0});  // (SM, position)
  for (size_t sm = 0; sm < launch.per_sm.size(); ++sm)
    for (size_t i = 0; i < launch.per_sm[sm].size(); ++i)
      at[static_cast<size_t>(launch.per_sm[sm][i].id)] = {sm, i};
  for (const CtaWork& w : works) {
    if (w.cluster_size <= 1) continue;
    if (w.cluster_size > 4)
      throw SimError(
          fmt::format("gpu_sm: CTA {} is in a cluster of {}; the copy engines "
                      "multicast to clusters of at most 4",
                      w.id, w.cluster_size));
    const CtaWork& first = works[static_cast<size_t>(w.id - w.cluster_rank)];
    const auto me = at[static_cast<size_t>(w.id)], lead = at[static_cast<size_t>(first.id)];
    if (first.cluster_rank != 0 || first.cluster_size != w.cluster_size || first.n0 != w.n0 ||
        first.n != w.n || first.k0 != w.k0 || first.k != w.k || me.second != lead.second ||
        (w.cluster_rank > 0 && me.first == lead.first))
      throw SimError(fmt::format(
          "gpu_sm: CTA {} (rank {} of a cluster of {}) and its cluster's first CTA {} do not run "
          "as one cluster (same B tile and K slice, distinct SMs, same place in their lists)",
          w.id, w.cluster_rank, w.cluster_size, first.id));
  }
  std::vector<int> sm(works.size(), -1);
  for (size_t i = 0; i < works.size(); ++i) sm[i] = static_cast<int>(at[i].first);
  return sm;
}

template <class Stepper>
auto GpuSmArrayModule::drive(Stepper& st) {
  arrivals_.clear();
  for (;;) {
    for (const auto& [token, cycle] : arrivals_) st.arrived(token, cycle);
    arrivals_.clear();
    const std::uint64_t t = st.next_time();
    if (t == Stepper::kNone) {
      if (st.pending() == 0) break;
      sc_core::wait(arrival_);
      continue;
    }
    // Events ahead of simulated time may run only while no answer is owed: one could be
    // earlier than them.
    const sc_time at = time_at(t);
    if (st.pending() > 0 && at > sc_core::sc_time_stamp()) {
      sc_core::wait(at - sc_core::sc_time_stamp(), arrival_);
      continue;
    }
    st.step();
  }
  auto out = st.finish();
  // The kernel ends when its last CTA (and store) is done: simulated time catches up.
  const sc_time end = time_at(out.cycles);
  if (end > sc_core::sc_time_stamp()) sc_core::wait(end - sc_core::sc_time_stamp());
  return out;
}

GemmRun GpuSmArrayModule::run(const GemmLaunch& launch, const GemmAddressing& addr,
                              const std::vector<CtaWork>& works) {
  SYSTOLE_ASSERT(launch.per_sm.size() <= engines_.size(), "gpu_sm: more SMs than the array has");
  t0_ = sc_core::sc_time_stamp();
  addr_ = &addr;
  works_ = &works;
  bk_ = launch.tile.bk;
  out_bytes_ = launch.tile.out_bytes;
  cta_sm_ = check_clusters(launch, works);
  meetings_.clear();
  GpuSmTileStepper st(cfg_, *this, launch);
  GemmRun out = drive(st);
  SYSTOLE_ASSERT(meetings_.empty(), "gpu_sm: a multicast k-tile's parts never all landed");
  addr_ = nullptr;
  works_ = nullptr;
  return out;
}

FlashRun GpuSmArrayModule::run(const FlashLaunch& launch, const FlashAddressing& addr) {
  SYSTOLE_ASSERT(launch.sms >= 1 && static_cast<size_t>(launch.sms) <= engines_.size(),
                 "gpu_sm: more SMs than the array has");
  t0_ = sc_core::sc_time_stamp();
  flash_ = &launch;
  flash_addr_ = &addr;
  flash_index_.clear();
  for (size_t i = 0; i < launch.ctas.size(); ++i) {
    const auto id = static_cast<size_t>(launch.ctas[i].id);
    if (id >= flash_index_.size()) flash_index_.resize(id + 1, launch.ctas.size());
    if (flash_index_[id] != launch.ctas.size())
      throw SimError("gpu_sm: FlashAttention tile ids must be unique");
    flash_index_[id] = i;
  }
  GpuAttentionStepper st(cfg_, *this, launch);
  FlashRun out = drive(st);
  flash_ = nullptr;
  flash_addr_ = nullptr;
  return out;
}

GpuSmArrayModule::Job GpuSmArrayModule::flash_job(const GmemRequest& r) const {
  const auto at = static_cast<size_t>(r.cta);
  SYSTOLE_ASSERT(r.cta >= 0 && at < flash_index_.size() && flash_index_[at] < flash_->ctas.size(),
                 "gpu_sm: a request for no FlashAttention tile");
  const FlashCtaWork& w = flash_->ctas[flash_index_[at]];
  const FlashAddressing& a = *flash_addr_;
  const FlashTile& t = flash_->tile;
  const auto d = static_cast<std::uint64_t>(a.head_dim);
  Job j;
  j.token = r.token;
  j.issue = r.issue.value();
  j.write = r.store;
  // Row of Q / O: this tile's first query row of its (batch, head).
  const auto row = static_cast<std::uint64_t>(w.head * a.seq_q + w.m_block * t.block_m);
  const auto rows = static_cast<std::uint64_t>(w.q_rows);
  if (r.store) {
    const auto slab = static_cast<std::uint64_t>(w.split) * static_cast<std::uint64_t>(a.rows);
    j.descs.push_back(
        DmaDescriptor::linear(a.o + (slab + row) * d * a.out_elem, rows * d * a.out_elem));
    j.descs.push_back(DmaDescriptor::linear(a.lse + (slab + row) * 4, rows * 4));
  } else if (r.k_tile == 0) {
    j.descs.push_back(DmaDescriptor::linear(a.q + row * d * a.elem, rows * d * a.elem));
  } else {
    // Visit `v` of the tile goes from its last K/V block down: block n_blocks - 1 - v, whose
    // rows (the first visited: first_rows) start at (n_blocks - 1 - v) x block_n.
    const std::int64_t v = (r.k_tile - 1) / 2;
    const auto kv_rows = static_cast<std::uint64_t>(v == 0 ? w.first_rows : t.block_n);
    const auto kv_row =
        static_cast<std::uint64_t>((w.head / std::max<std::int64_t>(a.group, 1)) * a.seq_kv +
                                   (w.kv_block0 + w.n_blocks - 1 - v) * t.block_n);
    const std::uint64_t base = r.k_tile % 2 == 1 ? a.k : a.v;
    j.descs.push_back(DmaDescriptor::linear(base + kv_row * d * a.elem, kv_rows * d * a.elem));
  }
  return j;
}

GpuSmArrayModule::Job GpuSmArrayModule::stream_job(std::uint64_t token, std::uint64_t issue,
                                                   bool write,
                                                   const std::vector<DmaDescriptor>& descs) {
  Job j;
  j.token = token;
  j.issue = issue;
  j.write = write;
  j.descs = descs;
  return j;
}

StreamRun GpuSmArrayModule::run(const StreamLaunch& launch) {
  SYSTOLE_ASSERT(launch.per_sm.size() <= engines_.size(), "gpu_sm: more SMs than the array has");
  t0_ = sc_core::sc_time_stamp();
  arrivals_.clear();
  // Each SM keeps kWindow chunks' reads in flight (its resident warps' loads); a chunk's write
  // follows its data plus its compute; a read's answer lets the next read go.
  constexpr size_t kWindow = 4;
  struct Pos {
    size_t sm, chunk;
    bool write;
  };
  std::vector<Pos> tokens;  // token - 1 -> what it was
  std::vector<size_t> next(launch.per_sm.size(), 0);
  StreamRun out;
  size_t writes_left = 0;
  auto read = [&](size_t sm, std::uint64_t issue) {
    const size_t c = next[sm]++;
    const StreamChunk& ch = launch.per_sm[sm][c];
    tokens.push_back({sm, c, false});
    for (const auto& d : ch.reads) out.bytes_read += d.bytes();
    post(static_cast<int>(sm), stream_job(tokens.size(), issue, false, ch.reads));
  };
  for (size_t sm = 0; sm < launch.per_sm.size(); ++sm) {
    writes_left += launch.per_sm[sm].size();
    while (next[sm] < std::min(kWindow, launch.per_sm[sm].size())) read(sm, 0);
  }
  while (writes_left > 0) {
    if (arrivals_.empty()) sc_core::wait(arrival_);
    const auto got = std::move(arrivals_);
    arrivals_.clear();
    for (const auto& [token, cycle] : got) {
      const Pos p = tokens[token - 1];
      const StreamChunk& ch = launch.per_sm[p.sm][p.chunk];
      if (p.write) {
        out.cycles = std::max(out.cycles, cycle);
        --writes_left;
        continue;
      }
      if (next[p.sm] < launch.per_sm[p.sm].size()) read(p.sm, cycle);
      tokens.push_back({p.sm, p.chunk, true});
      for (const auto& d : ch.writes) out.bytes_written += d.bytes();
      post(static_cast<int>(p.sm),
           stream_job(tokens.size(), cycle + ch.compute_cycles, true, ch.writes));
    }
  }
  const sc_time end = time_at(out.cycles);
  if (end > sc_core::sc_time_stamp()) sc_core::wait(end - sc_core::sc_time_stamp());
  return out;
}

}  // namespace systole::models

#include "models/mxu/mxu_stats.h"

#include <algorithm>

#include "sim/core/error.h"

namespace systole::models {

void MxuCounters::add(const MxuCounters& o) {
  busy += o.busy;
  weight_load += o.weight_load;
  stall_output += o.stall_output;
  fill_drain += o.fill_drain;
  stall_input += o.stall_input;
  stall_weight += o.stall_weight;
  stall_host += o.stall_host;
  ops += o.ops;
  folds += o.folds;
  macs += o.macs;
  vmem_bytes += o.vmem_bytes;
  mapping_weighted += o.mapping_weighted;
}

void declare_mxu_stats(stats::StatGroup& g, MxuCountersOf counters, double mxu_ps, double pes,
                       const stats::Timebase& tb) {
  using stats::ColumnType;
  const auto cyc = [mxu_ps, &tb](std::uint64_t n) {
    return tb.cycles(static_cast<double>(n) * mxu_ps);
  };
  // A class of cycles: `field` of the counters, in the kernel's cycles.
  const auto cycles = [&](const char* name, const char* desc, std::uint64_t MxuCounters::*field) {
    g.formula({name, "cycles", desc},
              [counters, cyc, field](std::size_t s) { return cyc(counters(s).*field); });
  };
  const auto count = [&](const char* name, const char* unit, const char* desc,
                         std::uint64_t MxuCounters::*field) {
    g.formula({name, unit, desc}, [counters, field](std::size_t s) {
      return static_cast<std::int64_t>(counters(s).*field);
    });
  };
  cycles("busy_cycles", "cycles an operand vector entered the array", &MxuCounters::busy);
  cycles("load_cycles", "cycles waiting for a stationary (weight) tile to shift in",
         &MxuCounters::weight_load);
  cycles("stall_input_cycles",
         "cycles an op waited for its operands (not in VMEM yet, or not yet delivered by the "
         "VMEM port)",
         &MxuCounters::stall_input);
  cycles("stall_output_cycles",
         "cycles waiting for results to leave (os output registers; the accumulator buffer's "
         "previous tile not yet stored)",
         &MxuCounters::stall_output);
  cycles("stall_weight_cycles",
         "cycles an op waited for a weight tile from memory (within fill_drain_cycles and "
         "stall_input_cycles; TPU v1's weight stall counter)",
         &MxuCounters::stall_weight);
  cycles("stall_host_cycles",
         "cycles an op waited for the workload's input from host memory over the host link "
         "(within fill_drain_cycles and stall_input_cycles; TPU v1's input data stalls)",
         &MxuCounters::stall_host);
  g.formula({"stall_cycles", "cycles", "stall_input_cycles + stall_output_cycles"},
            [counters, cyc](std::size_t s) {
              const MxuCounters x = counters(s);
              return cyc(x.stall_input + x.stall_output);
            });
  cycles("fill_drain_cycles",
         "cycles with nothing to stream while the previous op was still in the array",
         &MxuCounters::fill_drain);
  g.formula({"idle_cycles", "cycles", "cycles in none of the classes above"},
            [counters, cyc, &tb](std::size_t s) {
              return std::max<std::int64_t>(0, tb.span(s) - cyc(counters(s).accounted()));
            });
  count("ops", "", "matmul operations", &MxuCounters::ops);
  count("folds", "", "array folds", &MxuCounters::folds);
  count("macs", "MAC", "multiply-accumulates", &MxuCounters::macs);
  count("bytes", "B", "operand bytes the array read from VMEM", &MxuCounters::vmem_bytes);
  g.formula({"mac_utilization", "", "MACs / (PEs x cycles)", ColumnType::kFloat},
            [counters, pes, &tb](std::size_t s) {
              const auto span = static_cast<double>(tb.span(s));
              return span > 0 ? static_cast<double>(counters(s).macs) / (pes * span) : 0.0;
            });
  g.formula({"mapping_efficiency", "", "PEs holding real operands / PEs, MAC-weighted",
             ColumnType::kFloat},
            [counters](std::size_t s) {
              const MxuCounters x = counters(s);
              return x.macs ? x.mapping_weighted / static_cast<double>(x.macs) : 0.0;
            });
}

void MxuTimeline::op(const OpSchedule& s, std::uint64_t vmem_delay, DepWait why, MxuCounters& c) {
  const std::uint64_t c0 = cursor_;
  const std::uint64_t f0 = s.first_stream;
  SYSTOLE_ASSERT(f0 >= c0 + vmem_delay, "an op streams before the previous one ended");
  const std::uint64_t ideal = f0 - vmem_delay;
  // [c0, t1): the op's operands were not ready; while the previous op drains that is fill/drain.
  const std::uint64_t t1 = std::clamp(s.ready, c0, ideal);
  if (t1 > c0) {
    const std::uint64_t drain = std::min(t1, std::max(c0, pending_end_));
    c.fill_drain += drain - c0;
    (why == DepWait::kOutput ? c.stall_output : c.stall_input) += t1 - drain;
    if (why == DepWait::kWeight) c.stall_weight += t1 - c0;
    if (why == DepWait::kHost) c.stall_host += t1 - c0;
  }
  // [t1, ideal): operands ready, the port waits for the first tile (os: for the drain).
  (load_ ? c.weight_load : c.stall_output) += ideal - t1;
  c.stall_input += vmem_delay;
  // Inside the op: T cycles per fold stream, the gaps between folds wait as above.
  c.busy += s.streaming;
  (load_ ? c.weight_load : c.stall_output) += s.stream_end - f0 - s.streaming;
  cursor_ = s.stream_end;
  pending_end_ = std::max(pending_end_, s.end);
}

void MxuTimeline::settle(std::uint64_t now, MxuCounters& c) {
  const std::uint64_t e = std::min(now, pending_end_);
  if (e > cursor_) c.fill_drain += e - cursor_;
  cursor_ = std::max(cursor_, now);
}

}  // namespace systole::models

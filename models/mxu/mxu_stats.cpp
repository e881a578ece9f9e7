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
  ops += o.ops;
  folds += o.folds;
  macs += o.macs;
  vmem_bytes += o.vmem_bytes;
  mapping_weighted += o.mapping_weighted;
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

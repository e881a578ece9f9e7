#include "models/mxu/mxu_module.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace systole::models {

MxuModule::MxuModule(const sc_core::sc_module_name& name, std::uint16_t id, const MxuConfig& cfg,
                     sc_core::sc_time period, Scoreboard& board, stats::Trace* trace)
    : UnitModule(name, id, "mxu", board, trace),
      timing_(cfg),
      timeline_(cfg.dataflow != Dataflow::kOutputStationary),
      period_(period) {}

std::uint64_t MxuModule::now_cycle_ceil() const {
  const std::uint64_t p = period_.value();
  return (sc_core::sc_time_stamp().value() + p - 1) / p;
}

void MxuModule::begin_run(std::uint32_t layers) {
  layers_mxu_.assign(std::max<std::uint32_t>(1, layers), MxuCounters{});
  run_start_ = now_cycle_ceil();
  timeline_.settle(run_start_, layers_mxu_.at(0));
}

void MxuModule::end_run() { timeline_.settle(now_cycle_ceil(), layers_mxu_.at(last_layer_)); }

MxuCounters MxuModule::total_mxu() const {
  MxuCounters t;
  for (const auto& l : layers_mxu_) t.add(l);
  return t;
}

void MxuModule::dequeued(const Op& op) {
  // A dependency on a store means the op waits for its accumulator buffer to be written out;
  // when only such dependencies are pending the wait is an output stall (when operand loads
  // are pending as well it counts as an input stall).
  // A pending weight load makes an input stall a weight stall, a pending load from host memory
  // a host-input stall (refine_wait keeps either only if it was what the op waited for last).
  bool input = false, output = false, weight = false, host = false;
  for (std::uint32_t d : op.deps) {
    if (board().done(d)) continue;
    const Op& dep = board().program().ops[d];
    (dep.kind == OpKind::kStore ? output : input) = true;
    weight = weight || (dep.kind == OpKind::kLoad && dep.operand == Operand::kWeight);
    host = host || (dep.kind == OpKind::kLoad && dep.operand == Operand::kHost);
  }
  wait_ = output && !input ? DepWait::kOutput
          : host           ? DepWait::kHost
          : weight         ? DepWait::kWeight
                           : DepWait::kInput;
  waits_weight_ = weight;
}

void MxuModule::enter_instance(const Op& op) {
  if (op.instance == last_instance_) return;
  // A new layer instance: the time before it began is idle in the one before (the drain of
  // its last op aside); waiting after it began is this op's stall.
  const std::uint64_t p = period_.value();
  const auto begun = static_cast<std::uint64_t>(board().instance_begin(op.instance));
  timeline_.settle(std::max(timeline_.cursor(), (begun + p - 1) / p), layers_mxu_[last_layer_]);
  last_instance_ = op.instance;
}

void MxuModule::refine_wait(const Op& op, sc_core::sc_time deps_done) {
  if (wait_ != DepWait::kWeight && wait_ != DepWait::kHost) return;
  // A weight (host-input) stall only if a weight tile (the input from host) was what the op
  // waited for last (not the layer instance before it, or a vector op: a read-after-write
  // wait); the host input first when both arrived at once.
  bool weight_last = false, host_last = false;
  for (std::uint32_t d : op.deps) {
    const Op& dep = board().program().ops[d];
    if (dep.kind != OpKind::kLoad || board().done_at(d) != deps_done) continue;
    weight_last = weight_last || (waits_weight_ && dep.operand == Operand::kWeight);
    host_last = host_last || (wait_ == DepWait::kHost && dep.operand == Operand::kHost);
  }
  wait_ = host_last ? DepWait::kHost : weight_last ? DepWait::kWeight : DepWait::kInput;
}

void MxuModule::record(const Op& op, const MatmulCost& c, const OpSchedule& s, std::uint64_t delay,
                       std::uint64_t bytes) {
  MxuCounters& mc = layers_mxu_[op.layer];
  last_layer_ = op.layer;
  timeline_.op(s, delay, wait_, mc);
  mc.ops += 1;
  mc.macs += c.macs;
  mc.folds += c.folds;
  mc.vmem_bytes += bytes;
  mc.mapping_weighted += c.mapping_efficiency * static_cast<double>(c.macs);
  counters(op.layer).busy_ps += static_cast<double>(s.streaming * period_.value());
  counters(op.layer).bytes += op.bytes;
}

sc_core::sc_time MxuModule::execute(const Op& op, sc_core::sc_time deps_done) {
  SYSTOLE_ASSERT(op.kind == OpKind::kMatmul, "MXU given a non-matmul op");
  const MxuConfig& cfg = timing_.config();
  const MatmulCost c = timing_.matmul(op.m, op.k, op.n);
  if (c.accumulator_rows > static_cast<std::uint64_t>(cfg.accumulators))
    throw SimError(fmt::format("matmul {}x{}x{} needs {} accumulator rows, the MXU has {}", op.m,
                               op.k, op.n, c.accumulator_rows, cfg.accumulators));
  const std::uint64_t p = period_.value();
  enter_instance(op);
  refine_wait(op, deps_done);
  // The array sees its operands at the first clock edge at or after they are in VMEM.
  const std::uint64_t ready = std::max<std::uint64_t>((deps_done.value() + p - 1) / p, run_start_);
  const auto index = static_cast<std::uint32_t>(&op - board().program().ops.data());
  OpSchedule s = schedule(op, index, ready);
  std::uint64_t delay = 0;
  const std::uint64_t bytes = c.vmem_elements * dtype_bytes(cfg.input_type);
  if (vmem_) {
    const std::uint64_t delivered = vmem_->read(s.start, bytes);
    if (delivered > s.stream_end) {
      delay = delivered - s.stream_end;
      s = postpone(s, delay);
    }
  }
  record(op, c, s, delay, bytes);
  const std::uint64_t now = sc_core::sc_time_stamp().value();
  SYSTOLE_ASSERT(s.stream_end * p >= now, "MXU schedule in the past");
  sc_core::wait(sc_core::sc_time::from_value(s.stream_end * p - now));
  return sc_core::sc_time::from_value((s.end - s.stream_end) * p);
}

}  // namespace systole::models

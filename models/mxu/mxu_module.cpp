#include "models/mxu/mxu_module.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace systole::models {

MxuModule::MxuModule(const sc_core::sc_module_name& name, std::uint16_t id, const MxuConfig& cfg,
                     sc_core::sc_time period, Scoreboard& board, stats::Trace* trace)
    : UnitModule(name, id, "mxu", board, trace),
      pipeline_(cfg),
      timeline_(cfg.dataflow != Dataflow::kOutputStationary),
      period_(period) {}

std::uint64_t MxuModule::now_cycle_ceil() const {
  const std::uint64_t p = period_.value();
  return (sc_core::sc_time_stamp().value() + p - 1) / p;
}

void MxuModule::begin_layer() {
  layer_start_ = now_cycle_ceil();
  timeline_.settle(layer_start_, layer_mxu_);
}

void MxuModule::end_layer() {
  UnitModule::end_layer();
  timeline_.settle(now_cycle_ceil(), layer_mxu_);
  total_mxu_.add(layer_mxu_);
  closed_mxu_ = layer_mxu_;
  layer_mxu_ = {};
}

void MxuModule::dequeued(const Op& op) {
  // A dependency on a store means the op waits for its accumulator buffer to be written out;
  // when only such dependencies are pending the wait is an output stall (when operand loads
  // are pending as well it counts as an input stall).
  bool input = false, output = false;
  for (std::uint32_t d : op.deps) {
    if (board().done(d)) continue;
    (board().program().ops[d].kind == OpKind::kStore ? output : input) = true;
  }
  wait_ = output && !input ? DepWait::kOutput : DepWait::kInput;
}

sc_core::sc_time MxuModule::execute(const Op& op, sc_core::sc_time deps_done) {
  SYSTOLE_ASSERT(op.kind == OpKind::kMatmul, "MXU given a non-matmul op");
  const MxuConfig& cfg = pipeline_.timing().config();
  const MatmulCost c = pipeline_.timing().matmul(op.m, op.k, op.n);
  if (c.accumulator_rows > static_cast<std::uint64_t>(cfg.accumulators))
    throw SimError(fmt::format("matmul {}x{}x{} needs {} accumulator rows, the MXU has {}", op.m,
                               op.k, op.n, c.accumulator_rows, cfg.accumulators));
  const std::uint64_t p = period_.value();
  // The array sees its operands at the first clock edge at or after they are in VMEM.
  const std::uint64_t ready =
      std::max<std::uint64_t>((deps_done.value() + p - 1) / p, layer_start_);
  OpSchedule s = pipeline_.plan(op.m, op.k, op.n, ready);
  std::uint64_t delay = 0;
  const std::uint64_t bytes = c.vmem_elements * dtype_bytes(cfg.input_type);
  if (vmem_) {
    const std::uint64_t delivered = vmem_->read(s.start, bytes);
    if (delivered > s.stream_end) delay = delivered - s.stream_end;
    s = s.shifted(delay);
  }
  pipeline_.commit(s);
  timeline_.op(s, delay, wait_, layer_mxu_);
  layer_mxu_.ops += 1;
  layer_mxu_.macs += c.macs;
  layer_mxu_.folds += c.folds;
  layer_mxu_.vmem_bytes += bytes;
  layer_mxu_.mapping_weighted += c.mapping_efficiency * static_cast<double>(c.macs);
  counters().busy_ps += static_cast<double>(s.streaming * p);
  counters().bytes += op.bytes;
  const std::uint64_t now = sc_core::sc_time_stamp().value();
  SYSTOLE_ASSERT(s.stream_end * p >= now, "MXU schedule in the past");
  sc_core::wait(sc_core::sc_time::from_value(s.stream_end * p - now));
  return sc_core::sc_time::from_value((s.end - s.stream_end) * p);
}

}  // namespace systole::models

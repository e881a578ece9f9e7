#include "models/dma/dma_module.h"

#include "sim/core/error.h"

namespace systole::models {

DmaModule::DmaModule(const sc_core::sc_module_name& name, std::uint16_t id, const DmaConfig& cfg,
                     Scoreboard& board, stats::Trace* trace)
    : UnitModule(name, id, "dma", board, trace), cfg_(cfg), scoreboard_(board) {
  SC_HAS_PROCESS(DmaModule);
  SC_THREAD(run_ahead);
}

MemoryTransfer DmaModule::memory_transfer(const Op& op, const DmaConfig& cfg,
                                          std::uint16_t engine) {
  const std::uint64_t g = cfg.granule.value();
  auto round = [g](std::uint64_t b) { return (b + g - 1) / g * g; };
  MemoryTransfer t;
  DmaDescriptor d = op.mem.row_bytes ? op.mem : DmaDescriptor::linear(op.mem.addr, op.bytes);
  // Strided access moves whole granules per contiguous piece (FACTS.md §A.3: 512 B).
  if (d.contiguous())
    d = DmaDescriptor::linear(d.addr, round(d.bytes()));
  else
    d.row_bytes = round(d.row_bytes);
  t.desc = d;
  t.write = op.kind == OpKind::kStore;
  t.requester = engine;
  t.request_bytes = static_cast<std::uint32_t>(cfg.request.value());
  t.max_outstanding = static_cast<std::uint32_t>(cfg.outstanding);
  return t;
}

void DmaModule::trace_route(const Op& op, stats::Trace& trace, stats::TraceEvent& e) const {
  const Program& program = board().program();
  const std::string& self = program.units[index()];  // "chip0.core1.dma0"
  const std::uint16_t memory = trace.place(program.memories[op.memory]);
  const std::string parent = self.substr(0, self.rfind('.'));
  const std::uint16_t local =
      trace.place(parent + "." + (vmem_path_.empty() ? std::string("vmem") : vmem_path_));
  const bool store = op.kind == OpKind::kStore;
  e.src = store ? local : memory;
  e.dst = store ? memory : local;
}

void DmaModule::begin_run(std::uint32_t layers) {
  memory_bytes_.assign(layers, {0, 0});
  held_ps_.assign(layers, 0.0);
  const auto& ops = board().program().ops;
  order_.clear();
  for (std::uint32_t i = 0; i < ops.size(); ++i)
    if (ops[i].unit == index()) order_.push_back(i);
  claimed_.assign(order_.size(), 0);
  started_.assign(order_.size(), 0);
  handle_.assign(order_.size(), 0);
  vmem_done_.assign(order_.size(), sc_core::SC_ZERO_TIME);
  cursor_ = executing_ = 0;
}

std::uint64_t DmaModule::start(const Op& op, std::size_t p) {
  if (cfg_.setup.value())
    sc_core::wait(sc_core::sc_time(static_cast<double>(cfg_.setup.value()), sc_core::SC_PS));
  const MemoryTransfer t = memory_transfer(op, cfg_, id());
  counters(op.layer).bytes += t.bytes();
  memory_bytes_[op.layer][cmem_at_[op.memory] ? 1 : 0] += t.bytes();
  const sc_core::sc_time offered = sc_core::sc_time_stamp();
  const std::uint64_t h = memory(op).begin(t);  // waits while the memory refuses it
  held_ps_[op.layer] += static_cast<double>((sc_core::sc_time_stamp() - offered).value());
  // A load writes the tile into VMEM, a store reads it; rows packed from sram_addr.
  if (vmem.size())
    vmem_done_[p] = vmem->access(DmaDescriptor::linear(op.sram_addr, t.bytes()), !t.write);
  return h;
}

void DmaModule::run_ahead() {
  for (;;) {
    // The next op in order, once the one before it has started (transfers stay in order).
    while (cursor_ >= order_.size() || claimed_[cursor_]) sc_core::wait(advanced_);
    const std::size_t p = cursor_;
    claimed_[p] = 1;
    scoreboard_.wait_deps(order_[p]);
    scoreboard_.began(order_[p]);
    handle_[p] = start(board().program().ops[order_[p]], p);
    started_[p] = 1;
    cursor_ = p + 1;
    started_ev_.notify();
    advanced_.notify();
  }
}

sc_core::sc_time DmaModule::execute(const Op& op, sc_core::sc_time /*deps_done*/) {
  SYSTOLE_ASSERT(op.kind == OpKind::kLoad || op.kind == OpKind::kStore, "DMA given a non-DMA op");
  const auto index = static_cast<std::uint32_t>(&op - board().program().ops.data());
  const sc_core::sc_time begin = sc_core::sc_time_stamp();
  const std::size_t p = executing_++;  // ops execute in queue order
  SYSTOLE_ASSERT(p < order_.size() && order_[p] == index, "DMA op out of its engine's order");
  if (!claimed_[p]) {  // not started ahead: start it now
    claimed_[p] = 1;
    handle_[p] = start(op, p);
    started_[p] = 1;
    cursor_ = p + 1;
    advanced_.notify();
  }
  while (!started_[p]) sc_core::wait(started_ev_);
  const sc_core::sc_time latency = memory(op).finish(handle_[p]);
  if (vmem_done_[p] > sc_core::sc_time_stamp())
    sc_core::wait(vmem_done_[p] - sc_core::sc_time_stamp());
  counters(op.layer).busy_ps += (sc_core::sc_time_stamp() - begin).to_seconds() * 1e12;
  return latency;
}

}  // namespace systole::models

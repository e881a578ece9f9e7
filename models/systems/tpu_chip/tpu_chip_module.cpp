#include "models/systems/tpu_chip/tpu_chip_module.h"

#include <fmt/format.h>

#include "models/hbm/hbm_factory.h"
#include "models/mxu/mxu_factory.h"
#include "sim/core/error.h"

namespace systole::models {

TpuChipModule::TpuChipModule(const sc_core::sc_module_name& name, const TpuChipConfig& cfg,
                             stats::Trace* trace)
    : sc_core::sc_module(name),
      cfg_(cfg),
      period_(sc_core::sc_time(1.0 / cfg.clock.value(), sc_core::SC_SEC)),
      trace_(trace) {
  HbmInstance hbm = make_hbm("hbm", cfg.hbm);
  hbm_ = hbm.memory;
  hbm_banks_ = hbm.banks;
  hbm_module_ = std::move(hbm.module);
  cmem_ = std::make_unique<SramModule>("cmem", cfg.cmem, cfg.cmem.bandwidth);
  units_.resize(static_cast<size_t>(cfg.units()), nullptr);
  for (std::int64_t c = 0; c < cfg.tensor_cores; ++c) {
    vmems_.push_back(std::make_unique<SramModule>(fmt::format("core{}_vmem", c).c_str(), cfg.vmem,
                                                  cfg.vmem.dma_bandwidth));
    for (std::int64_t i = 0; i < cfg.mxus_per_core; ++i) {
      const auto id = cfg.mxu_unit(c, i);
      mxus_.push_back(make_mxu_module(fmt::format("core{}_mxu{}", c, i).c_str(), id, cfg.mxu,
                                      period_, board_, trace));
      units_[id] = mxus_.back().get();
    }
    for (std::int64_t e = 0; e < cfg.dma.engines; ++e) {
      const auto id = cfg.dma_unit(c, e);
      dmas_.push_back(std::make_unique<DmaModule>(fmt::format("core{}_dma{}", c, e).c_str(), id,
                                                  cfg.dma, board_, trace));
      dmas_.back()->hbm.bind(*hbm_);
      dmas_.back()->cmem.bind(*cmem_);
      dmas_.back()->vmem.bind(*vmems_.back());
      units_[id] = dmas_.back().get();
    }
    const auto id = cfg.vector_unit(c);
    vpus_.push_back(std::make_unique<VectorModule>(fmt::format("core{}_vpu", c).c_str(), id,
                                                   cfg.vector, period_, board_, trace));
    units_[id] = vpus_.back().get();
  }
  if (cfg.host.declared()) add_host_link();
}

void TpuChipModule::add_host_link() {
  // Host memory as the link delivers it: bandwidth/latency, first come first served (both
  // directions share it: a batch's inputs arrive before its outputs leave).
  const HostLinkConfig& h = cfg_.host;
  host_ = std::make_unique<BandwidthMemoryModule>(
      "host", h.bandwidth.value(), static_cast<double>(h.latency.value()), kHostTransferQueue);
  DmaConfig d;
  d.engines = 1;
  d.granule = Bytes(64);  // ASSUMPTION: PCIe moves whole 64 B lines of host memory
  d.setup = cfg_.dma.setup;
  d.request = h.request;
  d.outstanding = h.outstanding;
  const auto id = cfg_.host_dma_unit();
  host_dma_ = std::make_unique<DmaModule>("host_dma", id, d, board_, trace_);
  host_dma_->hbm.bind(*host_);
  host_dma_->cmem.bind(*host_);
  host_dma_->vmem.bind(*vmems_.front());  // the Unified Buffer (core 0's VMEM)
  host_dma_->set_vmem_path("core0.vmem");
  units_.push_back(host_dma_.get());
}

std::vector<UnitModule*> TpuChipModule::resolve(const Program& program) {
  const std::string self = name();
  std::vector<UnitModule*> by_index;
  for (const auto& path : program.units) {
    UnitModule* found = nullptr;
    for (std::size_t u = 0; u < units_.size() && !found; ++u)
      if (path == self + "." + cfg_.unit_name(static_cast<std::uint16_t>(u))) found = units_[u];
    for (const auto& [local, unit] : extra_)
      if (!found && path == self + "." + local) found = unit;
    if (!found)
      throw SimError(
          fmt::format("the program names unit '{}', which netlist '{}' does not have", path, self));
    found->set_index(static_cast<std::uint16_t>(by_index.size()));
    by_index.push_back(found);
  }
  std::vector<bool> cmem_at;
  for (const auto& path : program.memories) {
    const bool host = host_ && path == self + ".host";
    if (path != self + ".hbm" && path != self + ".cmem" && !host)
      throw SimError(fmt::format("the program names memory '{}', which netlist '{}' does not have",
                                 path, self));
    cmem_at.push_back(path == self + ".cmem");
  }
  for (auto& d : dmas_) d->route(cmem_at);
  if (host_dma_) host_dma_->route(std::vector<bool>(cmem_at.size(), false));  // all: the host
  return by_index;
}

sc_core::sc_time TpuChipModule::run(const Program& program, std::uint32_t layers) {
  start(program, layers);
  const sc_core::sc_time start_time = sc_core::sc_time_stamp();
  sc_core::sc_start();  // runs until no event is pending: the program is done or deadlocked
  finish();
  return sc_core::sc_time_stamp() - start_time;
}

void TpuChipModule::start(const Program& program, std::uint32_t layers) {
  const auto by_index = resolve(program);
  board_.start(&program, by_index.size());
  for (std::uint32_t i = 0; i < program.ops.size(); ++i) {
    const auto u = program.ops[i].unit;
    SYSTOLE_ASSERT(u < by_index.size(), "op on a unit the program does not name");
    SYSTOLE_ASSERT(program.ops[i].layer < layers, "op of a layer the program does not have");
    by_index[u]->enqueue(i);
  }
  for (auto* u : units_) u->kick(layers);
  for (auto& e : extra_) e.second->kick(layers);
}

void TpuChipModule::finish() {
  if (board_.completed() != board_.size())
    throw SimError(fmt::format("the program deadlocked: {} of {} operations completed",
                               board_.completed(), board_.size()));
  for (auto* u : units_) u->end_run();
  for (auto& e : extra_) e.second->end_run();
}

}  // namespace systole::models

#include "models/gpu_sm/gpu_sm_stats.h"

namespace systole::models {

void declare_gpu_sm_stats(stats::StatGroup& g, SmActivitySource src, std::int64_t sub_partitions) {
  using stats::ColumnType;
  using stats::StatScope;
  const auto count = [&](const char* name, const char* unit, const char* desc,
                         std::uint64_t SmActivity::*field) {
    g.formula({name, unit, desc, ColumnType::kInt, StatScope::kRunOnly}, [src, field](std::size_t) {
      return static_cast<std::int64_t>(src.activity().*field);
    });
  };
  count("instructions", "", "warp instructions issued (all sub-partitions)",
        &SmActivity::instructions);
  count("mma_instructions", "", "mma.sync / wgmma instructions (wgmma: one per warp)",
        &SmActivity::mma);
  count("ldmatrix_instructions", "", "ldmatrix.x4 instructions", &SmActivity::ldmatrix);
  count("copy_instructions", "", "cp.async and TMA instructions", &SmActivity::copies);
  count("fp32_instructions", "", "epilogue instructions on the FP32 lanes", &SmActivity::fp32);
  count("sfu_instructions", "", "epilogue instructions on the SFUs", &SmActivity::sfu);
  count("tensor_busy_cycles", "cycles", "tensor-pipe occupied cycles, summed over sub-partitions",
        &SmActivity::tensor_busy);
  count("smem_busy_cycles", "cycles",
        "shared-memory bank-share occupied cycles (ldmatrix reads, cp.async writes), summed over "
        "sub-partitions",
        &SmActivity::smem_busy);
  const auto per_pipe = [src, sub_partitions](std::uint64_t SmActivity::*field) {
    return [src, sub_partitions, field](std::size_t) -> stats::Cell {
      const auto span = static_cast<double>(src.cycles()) * static_cast<double>(sub_partitions);
      return span > 0 ? static_cast<double>(src.activity().*field) / span : 0.0;
    };
  };
  g.formula({"tensor_utilization", "", "tensor_busy_cycles / (sub-partitions x cycles)",
             ColumnType::kFloat, StatScope::kRunOnly},
            per_pipe(&SmActivity::tensor_busy));
  g.formula({"smem_utilization", "", "smem_busy_cycles / (sub-partitions x cycles)",
             ColumnType::kFloat, StatScope::kRunOnly},
            per_pipe(&SmActivity::smem_busy));
  g.formula({"issue_utilization", "", "instructions / (sub-partitions x cycles)",
             ColumnType::kFloat, StatScope::kRunOnly},
            per_pipe(&SmActivity::instructions));
}

}  // namespace systole::models

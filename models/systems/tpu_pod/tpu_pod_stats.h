#pragma once
// The pod's own stats, declared in the representative chip's tree (chip0): per layer and for the
// run, the collectives' time, bytes, nccl-tests algorithm and bus bandwidths and alpha-beta time,
// and the exposed communication — collective time during which neither an MXU nor a vector
// unit of the chip computed; the whole slice's ICI network below it (chip0.ici: per link, per
// collective, totals; models/ici/ici_stats.h).

#include <vector>

#include "models/ici/ici_module.h"
#include "models/systems/tpu_pod/pod_collective_unit.h"
#include "models/systems/tpu_pod/tpu_pod_pipeline.h"
#include "sim/stats/result.h"
#include "sim/stats/stat_tables.h"
#include "sim/stats/timebase.h"

namespace systole::models {

/// Per-layer communication figures of a run (index: workload layer).
struct PodCommRun {
  std::vector<double> time_s, bytes, busbw_time, formula_s, exposed_s;
};

/// Sums the unit's collectives per layer and measures, from the chip's trace (picoseconds), how
/// much of each collective no compute op (matmul, vector) overlapped.
PodCommRun pod_comm(const std::vector<PodCollectiveRecord>& records, const stats::Trace& trace,
                    std::size_t layers);

/// Declares the communication stats in `chip` (the chip's root group) and the network below it;
/// `run` and `net` are read when a writer visits the tree.
void declare_pod_stats(stats::StatGroup& chip, const PodCommRun& run, const IciNetworkModule* net,
                       const stats::Timebase& tb);

/// Declares a pipelined run's figures in `chip`: run-level `pipeline_bubble` (and its GPipe
/// formula), `p2p_bytes`, `p2p_time`, and a group `pipeline` with one `stage<s>` group per stage
/// (busy and idle time, layers, MACs, weights, its hand-offs' bytes, time and idle-network time).
void declare_pipeline_stats(stats::StatGroup& chip, const PipelineRun& run);

/// The pipelined pod's table: one row per stage.
const stats::TableSpec& pipeline_table();

/// The pod's extra results tables: one row per ICI link, one per collective.
const std::vector<stats::TableSpec>& pod_tables();

}  // namespace systole::models

#pragma once
// Activity counters of one MXU, and the classifier that splits its timeline into them, op by
// op, from the exact fold-level schedules (plain C++, in MXU clock cycles). Each cycle falls in
// one class, in this order of precedence: busy (a vector enters the array), weight_load (the
// port waits for a stationary tile to shift in), stall_output (it waits for results to leave:
// os output registers, or the accumulator buffer still being stored), fill_drain (nothing to
// stream while the previous op is still in flight), stall_input (the next op's operands are not
// in VMEM yet, or the shared VMEM port has not delivered them); the rest is idle. Besides the
// classes, stall_weight counts the cycles (fill_drain or stall_input) an op waited for a weight
// tile still on its way from memory: TPU v1's "weight stall" counter (Jouppi et al., ISCA 2017,
// Table 3), and stall_host those it waited for the workload's input from host memory (over the
// host link: Table 3's "input data stalls").
// declare_mxu_stats binds them into the stats tree.

#include <cstdint>
#include <functional>

#include "models/mxu/mxu_timing.h"
#include "sim/stats/stats_tree.h"
#include "sim/stats/timebase.h"

namespace systole::models {

/// One MXU's activity, in MXU cycles (the classes partition its timeline; the rest is idle).
struct MxuCounters {
  std::uint64_t busy = 0;
  std::uint64_t weight_load = 0;
  std::uint64_t stall_output = 0;
  std::uint64_t fill_drain = 0;
  std::uint64_t stall_input = 0;
  std::uint64_t stall_weight = 0;  ///< not a class: waits for a weight load (see above)
  std::uint64_t stall_host = 0;    ///< not a class: waits for input from host (see above)
  std::uint64_t ops = 0;
  std::uint64_t folds = 0;
  std::uint64_t macs = 0;
  std::uint64_t vmem_bytes = 0;  ///< operand bytes the array read from VMEM
  double mapping_weighted = 0;   ///< sum of mapping efficiency x MACs
  void add(const MxuCounters& o);
  /// Every classified cycle (all but idle).
  std::uint64_t accounted() const {
    return busy + weight_load + stall_output + fill_drain + stall_input;
  }
};

/// Reads an MXU's counters in a scope (a layer, or stats::kRun for the whole run).
using MxuCountersOf = std::function<MxuCounters(std::size_t scope)>;

/// Declares one MXU's stats in `g`, for the run and per layer: its cycle classes (counters in
/// MXU cycles of `mxu_ps` picoseconds, shown in `tb`'s cycles), idle cycles and MAC
/// utilization relative to the scope's span; `pes` is the array's peak MACs per cycle.
void declare_mxu_stats(stats::StatGroup& g, MxuCountersOf counters, double mxu_ps, double pes,
                       const stats::Timebase& tb);

/// Why an op's operands were late when the MXU reached it: kWeight is an input wait in which a
/// weight load (models::Operand::kWeight) is still pending, kHost one for the workload's input
/// from host memory (models::Operand::kHost).
enum class DepWait { kInput, kOutput, kWeight, kHost };

/// Classifies an MXU's cycles op by op from the exact schedules (models nothing itself).
class MxuTimeline {
 public:
  /// `stationary_load`: ws/is (gaps in the port wait for tiles); os: they wait for the drain.
  explicit MxuTimeline(bool stationary_load) : load_(stationary_load) {}
  /// Classifies the cycles from the cursor to the end of `s`'s input stream. `vmem_delay`: the
  /// cycles `s` was postponed because the VMEM port had not delivered its operands.
  void op(const OpSchedule& s, std::uint64_t vmem_delay, DepWait why, MxuCounters& c);
  /// Classifies the drain of the last op up to `now` and moves the cursor there (the time
  /// after it, if any, is idle).
  void settle(std::uint64_t now, MxuCounters& c);
  std::uint64_t cursor() const { return cursor_; }

 private:
  bool load_;
  std::uint64_t cursor_ = 0;       // cycles before it are classified
  std::uint64_t pending_end_ = 0;  // when the last result of the ops so far leaves
};

}  // namespace systole::models

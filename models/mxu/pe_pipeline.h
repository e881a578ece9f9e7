#pragma once
// The PE-level reference array (PeArray) driven as a pipeline of matmuls issued one at a time,
// each with its ready cycle known only when it is issued: what an MXU that executes a program
// knows. Plain C++, MXU clock cycles.
//
// The array is ticked lazily, only as far as the issued jobs need (to their last result). A
// job may turn out to have been ready before cycles already ticked: with double-buffering its
// first tile would have shifted in while the previous job streamed. Before each tick the
// pipeline keeps a snapshot of the array at the first cycle its controller would consider a new
// job (PeArray::awaiting_jobs; until then a job's presence changes nothing), and a job ready
// earlier than the cycles ticked replays the array from that snapshot with the job submitted.
// So every job runs exactly as it would had all jobs been submitted up front with their ready
// cycles, which is what MxuPipeline's recurrence assumes.

#include <cstdint>
#include <optional>
#include <vector>

#include "models/mxu/pe_array.h"

namespace systole::models {

/// One PeArray fed job by job, replayed from a snapshot when a job was ready in its past.
class PePipeline {
 public:
  explicit PePipeline(const MxuConfig& cfg);
  /// Runs `job` behind the jobs issued before it, as if it had been submitted before the array
  /// ticked past its ready cycle; returns its result once its last result has left the array.
  /// Throws SimError on a hazard, or if a replay changes an earlier job's end cycle.
  PeResult run(PeJob job);
  /// Runs the last job again with its first fold's tile load and vectors `d` cycles later than
  /// run() found them (an op postponed as a whole, like OpSchedule::shifted); returns its result.
  PeResult postpone(std::uint64_t d);
  /// The last job run (its operand codes), and the array.
  const PeJob& last_job() const { return last_job_; }
  const PeArray& array() const { return array_; }
  /// Array cycles ticked, replays included; of them, cycles ticked again by a replay.
  std::uint64_t ticks() const { return ticks_; }
  std::uint64_t replayed_ticks() const { return replayed_; }

 private:
  struct State {
    PeArray array;
    std::uint64_t cursor = 0;
  };
  void restore(State s);
  /// Ticks the array at the cursor and advances it.
  void tick();
  PeResult submit_and_run(PeJob job);

  PeArray array_;
  std::uint64_t cursor_ = 0;       // the next cycle to tick
  std::uint64_t high_ = 0;         // the highest cycle ticked so far, plus one
  std::optional<State> awaiting_;  // where the next job could first start
  std::optional<State> before_;    // before the last job was submitted
  PeJob last_job_;
  PeResult last_;                    // the last job's result
  std::vector<std::uint64_t> ends_;  // end cycle of each finished job, by id
  std::uint64_t ticks_ = 0, replayed_ = 0;
};

}  // namespace systole::models

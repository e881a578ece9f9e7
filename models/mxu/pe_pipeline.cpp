#include "models/mxu/pe_pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "sim/core/error.h"

namespace systole::models {

PePipeline::PePipeline(const MxuConfig& cfg) : array_(cfg), awaiting_(State{PeArray(cfg), 0}) {}

void PePipeline::restore(State s) {
  array_ = std::move(s.array);
  cursor_ = s.cursor;
}

void PePipeline::tick() {
  if (cursor_ < high_) ++replayed_;
  array_.tick(cursor_++);
  ++ticks_;
  high_ = std::max(high_, cursor_);
}

PeResult PePipeline::run(PeJob job) {
  if (cursor_ > job.ready) {
    // Ticked past the cycle the job was ready: replay from where it could first have started.
    SYSTOLE_ASSERT(awaiting_.has_value(), "PE pipeline without a snapshot to replay from");
    restore(std::move(*awaiting_));
  } else {
    // Up to the ready cycle the array runs on without the job; once it has settled (idle,
    // nothing in flight) the remaining cycles change nothing and are skipped.
    while (cursor_ < job.ready && !array_.settled()) tick();
    cursor_ = std::max(cursor_, job.ready);
  }
  before_ = State{array_, cursor_};
  last_job_ = job;
  return submit_and_run(std::move(job));
}

PeResult PePipeline::postpone(std::uint64_t d) {
  SYSTOLE_ASSERT(before_.has_value(), "postponing before any job ran");
  restore(std::move(*before_));
  before_.reset();
  PeJob job = last_job_;
  job.earliest.load = last_.start + d;
  job.earliest.first = last_.first_stream + d;
  job.earliest.last = last_.first_fold_last + d;
  return submit_and_run(std::move(job));
}

PeResult PePipeline::submit_and_run(PeJob job) {
  awaiting_.reset();  // a snapshot without this job cannot serve the next one
  const std::uint64_t id = array_.submit(std::move(job));
  if (ends_.size() <= id) ends_.resize(id + 1, 0);
  for (;;) {
    if (!awaiting_ && array_.awaiting_jobs()) awaiting_ = State{array_, cursor_};
    tick();
    for (PeResult& r : array_.take_finished()) {
      if (r.id == id) {
        ends_[id] = r.end;
        last_ = std::move(r);
        SYSTOLE_ASSERT(awaiting_.has_value(), "a job finished before its folds were all issued");
        return last_;
      }
      if (ends_[r.id] != r.end)  // an earlier job, finishing again in a replay
        throw SimError(fmt::format("PE array replay moved the end of job {} from cycle {} to {}",
                                   r.id, ends_[r.id], r.end));
    }
  }
}

}  // namespace systole::models

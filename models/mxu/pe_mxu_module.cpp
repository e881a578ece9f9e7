#include "models/mxu/pe_mxu_module.h"

#include <fmt/format.h>

#include "models/mxu/pe_operands.h"
#include "sim/core/error.h"

namespace systole::models {

OpSchedule PeMxuModule::schedule(const Op& op, std::uint32_t index, std::uint64_t ready) {
  PeJob job = pseudo_random_job(timing().config(), op.m, op.k, op.n, index);
  job.ready = ready;
  return accept(pipeline_.run(std::move(job)), ready);
}

OpSchedule PeMxuModule::postpone(const OpSchedule& s, std::uint64_t d) {
  ++postponed_;
  const OpSchedule later = accept(pipeline_.postpone(d), s.ready);
  if (later.stream_end < s.stream_end + d)
    throw SimError(
        fmt::format("{}: the PE array streamed a postponed op until cycle {}, before "
                    "its operands were delivered ({})",
                    name(), later.stream_end, s.stream_end + d));
  return later;
}

OpSchedule PeMxuModule::accept(const PeResult& r, std::uint64_t ready) {
  const PeJob& job = pipeline_.last_job();
  const std::uint64_t bad = count_mismatches(timing().config(), job, r);
  checked_ += static_cast<std::uint64_t>(job.m) * job.n;
  mismatches_ += bad;
  if (bad)
    throw SimError(
        fmt::format("{}: matmul {}x{}x{} on the PE array: {} of {} results differ from "
                    "the reference GEMM",
                    name(), job.m, job.k, job.n, bad, static_cast<std::uint64_t>(job.m) * job.n));
  // The cycles are the PE array's; the vectors streamed (folds x T) are a property of the
  // op's shape and come from the fold plan, as MACs, folds and bytes do (MxuModule::record).
  const FoldPlan plan = timing().plan(job.m, job.k, job.n);
  OpSchedule s;
  s.ready = ready;
  s.start = r.start;
  s.first_stream = r.first_stream;
  s.last_fold = r.last_fold;
  s.stream_end = r.stream_end;
  s.end = r.end;
  s.folds = plan.folds;
  s.streaming = plan.folds * plan.t;
  return s;
}

}  // namespace systole::models

// The PE-level reference without SystemC: its controller issues exactly what the fold-level
// rules say, and those rules are tight — issuing any binding event one cycle earlier trips a
// hazard detector in the PEs (so the rules are the earliest legal schedule, not just a legal one).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "models/mxu/mxu_timing.h"
#include "models/mxu/numerics.h"
#include "models/mxu/pe_array.h"
#include "tests/support/mxu_arrays.h"

using namespace systole::models;
using Catch::Matchers::Contains;

namespace {

using systole::test::array;

PeJob job(std::uint32_t m, std::uint32_t k, std::uint32_t n, std::uint64_t ready,
          std::mt19937& rng) {
  PeJob j;
  j.m = m;
  j.k = k;
  j.n = n;
  j.ready = ready;
  std::uniform_int_distribution<int> v(-128, 127);
  for (std::uint32_t i = 0; i < m * k; ++i) j.a.push_back(static_cast<std::uint8_t>(v(rng)));
  for (std::uint32_t i = 0; i < k * n; ++i) j.w.push_back(static_cast<std::uint8_t>(v(rng)));
  return j;
}

/// Issue cycles of every fold by the per-fold rules (README.md), written out independently of
/// MxuPipeline: ws/is L_g = max(ready, f_{g-1}), f_g = max(L_g + R, l_{g-1} + 1),
/// l_g = f_g + T - 1; os f_g = max(ready, l_{g-1} + 1), l_g = max(f_g + T - 1, l_{g-1} + R).
std::vector<FoldIssue> by_rules(const MxuConfig& cfg, const std::vector<PeJob>& jobs) {
  const MxuTiming t(cfg);
  const auto R = static_cast<std::uint64_t>(cfg.rows);
  std::vector<FoldIssue> s;
  for (const auto& j : jobs) {
    const FoldPlan p = t.plan(j.m, j.k, j.n);
    for (std::uint64_t g = 0; g < p.folds; ++g) {
      FoldIssue f;
      const bool prev = !s.empty();
      if (cfg.dataflow == Dataflow::kOutputStationary) {
        f.first = prev ? std::max(j.ready, s.back().last + 1) : j.ready;
        f.last = prev ? std::max(f.first + p.t - 1, s.back().last + R) : f.first + p.t - 1;
        if (p.t == 1) f.first = f.last;
      } else {
        f.load = prev ? std::max(j.ready, s.back().first) : j.ready;
        f.first = prev ? std::max(f.load + R, s.back().last + 1) : f.load + R;
        f.last = f.first + p.t - 1;
      }
      s.push_back(f);
    }
  }
  return s;
}

std::vector<PeResult> run(PeArray& a, std::uint64_t from = 0) {
  std::vector<PeResult> out;
  for (std::uint64_t x = from; !a.idle(); ++x) {
    REQUIRE(x < from + 100000);
    a.tick(x);
    for (auto& r : a.take_finished()) out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const auto& p, const auto& q) { return p.id < q.id; });
  return out;
}

/// Runs `jobs` with `schedule`; returns the hazard message, or "" when none.
std::string run_forced(const MxuConfig& cfg, const std::vector<PeJob>& jobs,
                       std::vector<FoldIssue> schedule) {
  PeArray a(cfg);
  for (const auto& j : jobs) a.submit(j);
  a.force(std::move(schedule));
  try {
    run(a);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("PE array: the controller issues what the fold rules say", "[unit][mxu]") {
  std::mt19937 rng(3);
  for (auto d :
       {Dataflow::kWeightStationary, Dataflow::kOutputStationary, Dataflow::kInputStationary}) {
    const MxuConfig cfg = array(3, 5, d);
    const std::vector<PeJob> jobs = {job(7, 8, 6, 0, rng), job(2, 3, 11, 0, rng),
                                     job(1, 1, 1, 2, rng), job(5, 9, 2, 90, rng)};
    PeArray ctl(cfg), forced(cfg);
    MxuPipeline pipe(cfg);
    for (const auto& j : jobs) {
      ctl.submit(j);
      forced.submit(j);
    }
    forced.force(by_rules(cfg, jobs));
    const auto a = run(ctl), b = run(forced);
    REQUIRE(a.size() == jobs.size());
    REQUIRE(b.size() == jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
      INFO(dataflow_name(d) << " job " << i);
      const auto s = pipe.issue(jobs[i].m, jobs[i].k, jobs[i].n, jobs[i].ready);
      CHECK(a[i].start == s.start);
      CHECK(a[i].first_stream == s.first_stream);
      CHECK(a[i].stream_end == s.stream_end);
      CHECK(a[i].end == s.end);
      CHECK(b[i].end == a[i].end);
      CHECK(b[i].c_int == a[i].c_int);
    }
  }
}

TEST_CASE("PE array ws: each rule is tight", "[unit][mxu]") {
  std::mt19937 rng(5);
  const MxuConfig cfg = array(4, 4, Dataflow::kWeightStationary);
  // T = 8 >= R: two row folds; fold 1 is bound by the port (f1 = l0 + 1).
  std::vector<PeJob> jobs = {job(8, 8, 4, 3, rng)};
  auto s = by_rules(cfg, jobs);
  REQUIRE(s[1].first == s[0].last + 1);
  CHECK(run_forced(cfg, jobs, s).empty());
  auto e = s;
  --e[1].first;
  --e[1].last;
  CHECK_THAT(run_forced(cfg, jobs, e), Contains("two vectors at the input port"));
  e = s;
  --e[0].load;  // before the operands are ready (cycle 3)
  --e[0].first;
  --e[0].last;
  CHECK_THAT(run_forced(cfg, jobs, e), Contains("before it is ready"));
  // A 8x4x4 (one fold, T = 8) then B 2x8x4 (two folds, T = 2 < R). Folds: A: load 0, stream
  // 4..11; B0: load 4 (A started), stream 12, 13 (port); B1: load 12 (B0 started; the loader
  // has been free since 8), stream 16 = 12 + R (its tile).
  jobs = {job(8, 4, 4, 0, rng), job(2, 8, 4, 0, rng)};
  s = by_rules(cfg, jobs);
  REQUIRE(s[2].load == s[1].first);
  REQUIRE(s[2].load > s[1].load + 4);
  REQUIRE(s[2].first == s[2].load + 4);
  CHECK(run_forced(cfg, jobs, s).empty());
  e = s;
  --e[2].first;
  --e[2].last;
  CHECK_THAT(run_forced(cfg, jobs, e), Contains("tile not in the shadow registers"));
  e = s;
  --e[2].load;
  CHECK_THAT(run_forced(cfg, jobs, e), Contains("shadow tile overwritten before use"));
  e = s;
  e[1].load = s[0].load + 3;  // B0's tile while A's still shifts in
  CHECK_THAT(run_forced(cfg, jobs, e), Contains("two tile rows at the weight port"));
}

TEST_CASE("PE array os: each rule is tight", "[unit][mxu]") {
  std::mt19937 rng(6);
  const MxuConfig cfg = array(4, 4, Dataflow::kOutputStationary);
  // T = k = 2 < R: fold 1's last vector is bound by fold 0's release (l1 = l0 + R).
  std::vector<PeJob> jobs = {job(8, 2, 4, 0, rng)};
  auto s = by_rules(cfg, jobs);
  REQUIRE(s[1].last == s[0].last + 4);
  CHECK(run_forced(cfg, jobs, s).empty());
  auto e = s;
  --e[1].last;
  CHECK_THAT(run_forced(cfg, jobs, e), Contains("result overwritten before it drained"));
  // T = 8 >= R: fold 1 is bound by the port.
  jobs = {job(8, 8, 4, 0, rng)};
  s = by_rules(cfg, jobs);
  REQUIRE(s[1].first == s[0].last + 1);
  e = s;
  --e[1].first;
  --e[1].last;
  CHECK_THAT(run_forced(cfg, jobs, e), Contains("two vectors at the input port"));
}

TEST_CASE("PE array: int8 results are exact, edge tiles included", "[unit][mxu]") {
  std::mt19937 rng(9);
  for (auto d :
       {Dataflow::kWeightStationary, Dataflow::kOutputStationary, Dataflow::kInputStationary}) {
    PeArray a(array(3, 2, d));
    const PeJob j = job(5, 7, 3, 0, rng);  // no dimension divides the array
    a.submit(j);
    const auto r = run(a);
    REQUIRE(r.size() == 1);
    for (std::uint32_t m = 0; m < 5; ++m)
      for (std::uint32_t n = 0; n < 3; ++n) {
        std::int64_t ref = 0;
        for (std::uint32_t k = 0; k < 7; ++k)
          ref +=
              static_cast<std::int64_t>(decode_int8(j.a[m * 7 + k])) * decode_int8(j.w[k * 3 + n]);
        INFO(dataflow_name(d) << " C[" << m << "][" << n << "]");
        CHECK(r[0].c_int[m * 3 + n] == ref);
      }
  }
}

TEST_CASE("PE array: a job submitted after the array went idle", "[unit][mxu]") {
  // Once the last real result is out, the last fold's first vector may still be on its way
  // through padding PEs (here rows 7 and columns 2..7 of an 8x8 is array, fold 2 of 18x23x1),
  // moving their shadow tiles into use, and tile words may still be shifting down far columns.
  // Ticks while idle must let that finish, or the next job's tiles meet stale shadow registers.
  std::mt19937 rng(12);
  for (auto d :
       {Dataflow::kWeightStationary, Dataflow::kInputStationary, Dataflow::kOutputStationary}) {
    INFO(dataflow_name(d));
    const MxuConfig cfg = array(8, 8, d);
    PeArray a(cfg);
    MxuPipeline pipe(cfg);
    a.submit(job(18, 23, 1, 0, rng));
    auto r = run(a);
    const std::uint64_t idle_from = r.at(0).end;
    CHECK(r[0].end == pipe.issue(18, 23, 1, 0).end);
    for (std::uint64_t x = idle_from; x < idle_from + 4; ++x) a.tick(x);
    a.submit(job(4, 19, 1, idle_from + 4, rng));
    r = run(a, idle_from + 4);
    REQUIRE(r.size() == 1);
    CHECK(r[0].end == pipe.issue(4, 19, 1, idle_from + 4).end);
  }
}

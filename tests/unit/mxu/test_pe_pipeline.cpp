// The PE-level array fed job by job (PePipeline, what mxu.model: pe runs in a chip) against the
// fold-level MxuPipeline: jobs ready in the array's past are replayed from the right snapshot,
// postponed jobs shift as a whole, and every result equals the reference GEMM of its codes.
// Also the config key that selects the model. No SystemC.
#include <catch2/catch.hpp>

#include <random>

#include "models/mxu/mxu_timing.h"
#include "models/mxu/pe_operands.h"
#include "models/mxu/pe_pipeline.h"
#include "sim/config/node.h"
#include "sim/core/error.h"
#include "tests/support/mxu_arrays.h"

using namespace systole;
using namespace systole::models;
using Catch::Matchers::Contains;

namespace {

using systole::test::array;

/// Issues `jobs` random jobs to a PePipeline and an MxuPipeline of `cfg` with random ready
/// cycles (ahead of, inside and far behind what the array has ticked) and random VMEM-like
/// postponements; checks every schedule field and every result. Returns the replayed ticks.
std::uint64_t compare(const MxuConfig& cfg, int jobs, std::mt19937_64& rng) {
  PePipeline pe(cfg);
  MxuPipeline fold(cfg);
  const auto R = static_cast<std::uint32_t>(cfg.rows), C = static_cast<std::uint32_t>(cfg.cols);
  std::uniform_int_distribution<int> policy(0, 9), small(0, 12);
  std::uniform_int_distribution<std::uint32_t> dim(1, 3 * std::max(R, C) + 1);
  std::uint64_t ready = 0, last_end = 0;
  for (int i = 0; i < jobs; ++i) {
    const int p = policy(rng);
    if (p < 4)  // long ready: in the past of the array (a replay)
      ready = ready > 20 ? ready - static_cast<std::uint64_t>(small(rng)) : 0;
    else if (p < 8)  // arrives while the previous job runs
      ready += static_cast<std::uint64_t>(small(rng));
    else  // after the array drained (skips idle cycles)
      ready = last_end + static_cast<std::uint64_t>(small(rng));
    const std::uint32_t m = dim(rng), k = dim(rng), n = dim(rng);
    PeJob job = pseudo_random_job(cfg, m, k, n, static_cast<std::uint64_t>(i));
    job.ready = ready;
    INFO("job " << i << ": " << m << "x" << k << "x" << n << " ready " << ready);
    PeResult r = pe.run(job);
    OpSchedule s = fold.plan(m, k, n, ready);
    if (policy(rng) < 3) {  // the VMEM port delivers late: the op moves as a whole
      const auto d = static_cast<std::uint64_t>(small(rng) + 1);
      INFO("postponed " << d << " cycles");
      r = pe.postpone(d);
      s = s.shifted(d);
    }
    fold.commit(s);
    CHECK(r.start == s.start);
    CHECK(r.first_stream == s.first_stream);
    CHECK(r.last_fold == s.last_fold);
    CHECK(r.stream_end == s.stream_end);
    CHECK(r.end == s.end);
    CHECK(count_mismatches(cfg, pe.last_job(), r) == 0);
    last_end = std::max(last_end, r.end);
  }
  return pe.replayed_ticks();
}

}  // namespace

TEST_CASE("PE pipeline: job by job, replays give the fold model's cycles", "[unit][mxu]") {
  std::mt19937_64 rng(20260701);  // fixed seed
  const std::pair<int, int> shapes[] = {{1, 1}, {2, 3}, {3, 2}, {4, 4}, {5, 3}, {8, 8}};
  const DataType types[] = {DataType::kInt8, DataType::kBf16, DataType::kFp8E4M3};
  std::uint64_t replayed = 0;
  int t = 0;
  for (const auto& [rows, cols] : shapes)
    for (auto d :
         {Dataflow::kWeightStationary, Dataflow::kOutputStationary, Dataflow::kInputStationary}) {
      const MxuConfig cfg = array(rows, cols, d, types[t++ % 3]);
      INFO(rows << "x" << cols << " " << dataflow_name(d) << " " << dtype_name(cfg.input_type));
      replayed += compare(cfg, 25, rng);
    }
  CHECK(replayed > 0);  // jobs were ready in the array's past: the hard case was exercised
}

TEST_CASE("PE pipeline: a job ready in the array's past loads behind the previous one",
          "[unit][mxu][golden]") {
  // 4x4 ws, 8x4x4 at ready 0: tile 0..3, vectors 4..11, end 18 (README.md). The next 8x4x4,
  // ready at 0 but issued after the array ran to 18: with double-buffering its tile shifts in
  // at 4..7 while the first job streams, its vectors 12..19, end 26 (the golden case of
  // tests/sc/mxu/test_pe_vs_fold.cpp); ticking on from 18 would give tile 18..21 instead.
  PePipeline pe(array(4, 4, Dataflow::kWeightStationary));
  const MxuConfig& cfg = pe.array().config();
  PeJob j = pseudo_random_job(cfg, 8, 4, 4, 1);
  const PeResult a = pe.run(j);
  CHECK(a.end == 18);
  const PeResult b = pe.run(pseudo_random_job(cfg, 8, 4, 4, 2));
  CHECK(b.start == 4);
  CHECK(b.first_stream == 12);
  CHECK(b.end == 26);
  CHECK(pe.replayed_ticks() > 0);
}

TEST_CASE("PE operands: the check catches a wrong result", "[unit][mxu]") {
  for (DataType t : {DataType::kInt8, DataType::kBf16, DataType::kFp8E5M2}) {
    const MxuConfig cfg = array(3, 2, Dataflow::kWeightStationary, t);
    PePipeline pe(cfg);
    // K = 7 > R: three partial sums per result, added in the array's order.
    const PeResult r = pe.run(pseudo_random_job(cfg, 4, 7, 5, 9));
    const PeJob& job = pe.last_job();
    REQUIRE(count_mismatches(cfg, job, r) == 0);
    PeResult wrong = r;
    if (t == DataType::kInt8)
      wrong.c_int[6] += 1;
    else
      wrong.c_float[6] = std::nextafter(wrong.c_float[6], 1e30f);
    CHECK(count_mismatches(cfg, job, wrong) == 1);
    // The same seed gives the same codes; another seed others.
    CHECK(pseudo_random_job(cfg, 4, 7, 5, 9).a == job.a);
    CHECK(pseudo_random_job(cfg, 4, 7, 5, 10).a != job.a);
  }
}

TEST_CASE("mxu.model: fold or pe, pe refused for arrays past 128x128", "[unit][mxu][config]") {
  const auto load = [](const std::string& yaml) {
    return MxuConfig::schema().load(config::parse_yaml(yaml, "mxu.yaml"), "mxu");
  };
  CHECK(load("{}").model == MxuModel::kFold);  // the schema default
  CHECK(load("{model: pe, rows: 8, cols: 8}").model == MxuModel::kPe);
  CHECK(load("{model: pe, rows: 128, cols: 128}").model == MxuModel::kPe);
  CHECK(load("{model: pe, rows: 4096, cols: 4}").model == MxuModel::kPe);
  CHECK_THROWS_MATCHES(load("{model: pea}"), ConfigError,
                       Catch::Matchers::Message("mxu.yaml:1:9: mxu.model: expected one of fold, "
                                                "pe, got 'pea' (did you mean 'pe'?)"));
  CHECK_THROWS_WITH(load("{rows: 129, model: pe}"), Contains("mxu.yaml:1:20: mxu.model"));
  CHECK_THROWS_WITH(load("{rows: 129, model: pe}"),
                    Contains("at most 16384 PEs (128x128); this one has 129x128"));
  CHECK_NOTHROW(load("{rows: 129, model: fold}"));
}

// The PE-level reference (SystemC, every PE every cycle, real arithmetic) against the fold-level
// model and against plain reference matmuls. ctest runs each TEST_CASE in its own process: each
// builds one netlist of many arrays on one clock and feeds every array a sequence of jobs.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include "models/mxu/mxu_timing.h"
#include "models/mxu/numerics.h"
#include "models/mxu/pe_array_module.h"
#include "tests/support/mxu_arrays.h"

using namespace systole;
using namespace systole::models;

namespace {

const sc_core::sc_time kPeriod(1, sc_core::SC_NS);

using systole::test::array;

/// Random operands of type `t`: int8 uniform over its range; floats normal with a per-job
/// scale, so rounding happens at every magnitude the format has.
PeJob random_job(DataType t, std::uint32_t m, std::uint32_t k, std::uint32_t n, std::uint64_t ready,
                 std::mt19937_64& rng) {
  PeJob j;
  j.m = m;
  j.k = k;
  j.n = n;
  j.ready = ready;
  std::uniform_int_distribution<int> i8(-128, 127), e(-6, 5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const float scale = std::ldexp(1.0f, e(rng));
  const auto draw = [&]() -> std::uint16_t {
    if (t == DataType::kInt8) return static_cast<std::uint8_t>(i8(rng));
    return encode_operand(t, nd(rng) * scale);
  };
  for (std::uint32_t i = 0; i < m * k; ++i) j.a.push_back(draw());
  for (std::uint32_t i = 0; i < k * n; ++i) j.w.push_back(draw());
  return j;
}

/// Checks one result against reference matmuls: int8 exactly (int64 sum); floats bit for bit
/// against fp32 accumulation in the array's order (ws/is: each block of R k-values summed down
/// a column from +0, blocks added in order by the accumulator; os: one running sum over k), and
/// within the accumulation bound gamma_K * sum|a||b| (gamma_K = K u / (1 - K u), u = 2^-24) of
/// the exact result in double.
void check_numbers(const MxuConfig& cfg, const PeJob& j, const PeResult& r) {
  const bool is_int = cfg.input_type == DataType::kInt8;
  const auto R = static_cast<std::uint32_t>(cfg.rows);
  const double u = std::ldexp(1.0, -24);
  const double gamma = j.k * u / (1 - j.k * u);
  for (std::uint32_t m = 0; m < j.m; ++m)
    for (std::uint32_t n = 0; n < j.n; ++n) {
      const auto a = [&](std::uint32_t k) { return j.a[m * j.k + k]; };
      const auto w = [&](std::uint32_t k) { return j.w[k * j.n + n]; };
      const size_t idx = static_cast<size_t>(m) * j.n + n;
      INFO("C[" << m << "][" << n << "] of " << j.m << "x" << j.k << "x" << j.n);
      if (is_int) {
        std::int64_t ref = 0;
        for (std::uint32_t k = 0; k < j.k; ++k)
          ref += static_cast<std::int64_t>(decode_int8(a(k))) * decode_int8(w(k));
        REQUIRE(r.c_int[idx] == ref);
        continue;
      }
      const auto av = [&](std::uint32_t k) { return decode_operand(cfg.input_type, a(k)); };
      const auto wv = [&](std::uint32_t k) { return decode_operand(cfg.input_type, w(k)); };
      float ordered = 0.0f;
      if (cfg.dataflow == Dataflow::kOutputStationary) {
        for (std::uint32_t k = 0; k < j.k; ++k) {
          const float p = av(k) * wv(k);
          ordered = ordered + p;
        }
      } else {
        for (std::uint32_t k0 = 0; k0 < j.k; k0 += R) {
          float psum = 0.0f;
          for (std::uint32_t k = k0; k < std::min(j.k, k0 + R); ++k) {
            const float p = av(k) * wv(k);
            psum = psum + p;
          }
          ordered = k0 == 0 ? psum : ordered + psum;
        }
      }
      REQUIRE(std::memcmp(&r.c_float[idx], &ordered, sizeof(float)) == 0);
      double exact = 0, mag = 0;
      for (std::uint32_t k = 0; k < j.k; ++k) {
        exact += static_cast<double>(av(k)) * wv(k);
        mag += std::fabs(static_cast<double>(av(k)) * wv(k));
      }
      REQUIRE(std::fabs(r.c_float[idx] - exact) <= gamma * mag);
    }
}

void run_until_done(const std::vector<std::unique_ptr<PeArrayModule>>& arrays,
                    std::uint64_t max_cycles) {
  const auto done = [&] {
    for (const auto& a : arrays)
      if (!a->finished()) return false;
    return true;
  };
  for (std::uint64_t t = 0; t < max_cycles && !done(); t += 1024)
    sc_core::sc_start(kPeriod * 1024.0);
  if (!done()) FAIL("the PE arrays did not finish");
}

/// PE arrays on one clock, each fed a sequence of jobs, beside the fold-level model's schedule
/// of every job (MxuPipeline, the array's jobs in submission order).
class FoldBench {
 public:
  /// Adds an R x C array of `cfg`; returns its index.
  size_t add(const MxuConfig& cfg) {
    arrays_.push_back(
        std::make_unique<PeArrayModule>(fmt::format("pe{}", arrays_.size()).c_str(), cfg, kPeriod));
    arrays_.back()->clk(clk_);
    feeds_.emplace_back(cfg);
    return arrays_.size() - 1;
  }
  /// Queues `j` on array `a` and records the fold-level schedule of it.
  void submit(size_t a, PeJob j) {
    Feed& f = feeds_[a];
    f.isolated.push_back(f.jobs.empty() || j.ready >= f.last_end);
    f.expect.push_back(f.pipe.issue(j.m, j.k, j.n, j.ready));
    f.last_end = std::max(f.last_end, f.expect.back().end);
    f.jobs.push_back(j);
    arrays_[a]->submit(std::move(j));
  }
  const MxuConfig& config(size_t a) const { return feeds_[a].cfg; }
  /// When the fold-level model says array `a`'s jobs so far have all left the array.
  std::uint64_t last_end(size_t a) const { return feeds_[a].last_end; }

  struct Counts {
    int cases = 0, isolated = 0;
    std::uint64_t pe_updates = 0;
  };
  /// Runs every array to the end of its jobs, then checks each job: its start, first vector,
  /// last fold, stream end and end equal MxuPipeline's; one that met an idle array starts at
  /// its ready cycle and costs MxuTiming::matmul alone; its numbers equal the reference matmul.
  Counts run_and_check(std::uint64_t max_cycles) {
    run_until_done(arrays_, max_cycles);
    Counts n;
    for (size_t a = 0; a < arrays_.size(); ++a) {
      const Feed& f = feeds_[a];
      INFO("array " << f.cfg.rows << "x" << f.cfg.cols << " " << dataflow_name(f.cfg.dataflow)
                    << " " << dtype_name(f.cfg.input_type));
      REQUIRE(arrays_[a]->error().empty());
      auto results = arrays_[a]->results();
      REQUIRE(results.size() == f.jobs.size());
      std::sort(results.begin(), results.end(),
                [](const auto& p, const auto& q) { return p.id < q.id; });
      const MxuTiming timing(f.cfg);
      for (size_t i = 0; i < results.size(); ++i) {
        const PeJob& j = f.jobs[i];
        const PeResult& r = results[i];
        const OpSchedule& s = f.expect[i];
        INFO("job " << i << ": " << j.m << "x" << j.k << "x" << j.n << " ready " << j.ready);
        REQUIRE(r.start == s.start);
        REQUIRE(r.first_stream == s.first_stream);
        REQUIRE(r.last_fold == s.last_fold);
        REQUIRE(r.stream_end == s.stream_end);
        REQUIRE(r.end == s.end);
        if (f.isolated[i]) {  // an idle array: the op's cost alone
          REQUIRE(r.start == j.ready);
          REQUIRE(r.end - r.start == timing.matmul(j.m, j.k, j.n).total.value());
          ++n.isolated;
        }
        check_numbers(f.cfg, j, r);
        ++n.cases;
      }
      n.pe_updates += arrays_[a]->array().pe_updates();
    }
    return n;
  }

 private:
  struct Feed {
    explicit Feed(const MxuConfig& c) : cfg(c), pipe(c) {}
    MxuConfig cfg;
    MxuPipeline pipe;
    std::vector<PeJob> jobs;
    std::vector<OpSchedule> expect;
    std::vector<char> isolated;  // submitted to an idle array
    std::uint64_t last_end = 0;
  };
  sc_core::sc_clock clk_{"clk", kPeriod};
  std::vector<std::unique_ptr<PeArrayModule>> arrays_;
  std::vector<Feed> feeds_;
};

/// A dimension that stresses fold edges: tiny, a multiple of the array size +-1, or uniform.
std::uint32_t dim(std::mt19937_64& rng, std::int64_t unit, std::uint32_t cap) {
  std::uniform_int_distribution<int> kind(0, 2), tiny(1, 3), mult(1, 3), off(-1, 1);
  std::uniform_int_distribution<std::uint32_t> any(1, cap);
  switch (kind(rng)) {
    case 0:
      return static_cast<std::uint32_t>(tiny(rng));
    case 1: {
      const std::int64_t v = unit * mult(rng) + off(rng);
      return static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 1, cap));
    }
    default:
      return any(rng);
  }
}

}  // namespace

TEST_CASE("PE-level and fold-level cycles are equal on 1000+ random cases", "[sc][mxu][property]") {
  // Array shapes: single PEs, 1xN and Nx1 lines, squares, and shapes no dimension divides.
  const std::vector<std::pair<int, int>> shapes = {
      {1, 1}, {1, 2}, {2, 1}, {1, 7},  {7, 1},   {1, 16},  {16, 1},  {2, 2},
      {3, 3}, {3, 5}, {5, 3}, {4, 4},  {4, 8},   {8, 4},   {6, 10},  {7, 7},
      {8, 8}, {9, 2}, {2, 9}, {12, 5}, {16, 16}, {13, 11}, {32, 32}, {24, 17}};
  const DataType types[] = {DataType::kInt8, DataType::kBf16, DataType::kFp8E4M3,
                            DataType::kFp8E5M2};
  const Dataflow flows[] = {Dataflow::kWeightStationary, Dataflow::kOutputStationary,
                            Dataflow::kInputStationary};
  constexpr int kJobsPerArray = 20;
  std::mt19937_64 rng(20260611);  // fixed seed

  FoldBench bench;
  int type_index = 0;
  for (const auto& [rows, cols] : shapes)
    for (Dataflow d : flows) {
      const size_t a = bench.add(array(rows, cols, d, types[type_index++ % 4]));
      const MxuConfig cfg = bench.config(a);
      const std::uint32_t cap = rows * cols < 4 ? 16 : 64;
      std::uint64_t ready = 0;
      std::uniform_int_distribution<int> policy(0, 9), gap(0, 30), back(0, 20);
      for (int i = 0; i < kJobsPerArray; ++i) {
        const int p = policy(rng);
        if (p < 4) {  // already available: back to back, possibly ready before the last one
          const auto b = static_cast<std::uint64_t>(back(rng));
          ready = ready > b ? ready - b : 0;
        } else if (p < 7) {  // arrives while the previous job still runs, or a little later
          ready += static_cast<std::uint64_t>(gap(rng));
        } else {  // arrives after the array has drained: an isolated matmul
          ready = bench.last_end(a) + static_cast<std::uint64_t>(gap(rng) % 4);
        }
        const std::uint32_t m =
            dim(rng, cfg.dataflow == Dataflow::kInputStationary ? cols : rows, cap);
        const std::uint32_t k = dim(rng, rows, cap);
        const std::uint32_t n = dim(rng, cols, cap);
        bench.submit(a, random_job(cfg.input_type, m, k, n, ready, rng));
      }
    }

  const FoldBench::Counts n = bench.run_and_check(1u << 22);
  CHECK(n.cases >= 1000);
  CHECK(n.isolated >= 200);
  WARN(n.cases << " cases (" << n.isolated << " isolated), " << n.pe_updates << " PE updates, "
               << sc_core::sc_time_stamp().value() / kPeriod.value() << " cycles simulated");
}

TEST_CASE("PE-level and fold-level agree on the 128x128 TPU v4 array on shapes that fold",
          "[sc][mxu][property]") {
  // The array of configs/presets/tpuv4_chip.yaml (128x128), each dataflow with bf16 (the
  // preset's type) and int8, three jobs per array: the first meets an idle array (MxuTiming's
  // cost alone), the second arrives while the first runs and the third is ready from cycle 0,
  // queued behind both (MxuPipeline's recurrence across ops). No dimension is a multiple of
  // 128, so every fold block has a partial edge; the first job's m, k and n all exceed 128
  // (two or three folds along each stationary dimension), the others' may be below 128 too
  // (streamed T < R exposes the tile loads). Dimensions up to 300: an op is at most 9 folds of
  // at most 300 vectors, about R + 8 x 300 + 300 + 2R = 3,084 cycles alone; 18 jobs, at most
  // about 56,000 array-cycles of 16,384 PEs (this seed: 16,156; 4.4 s on the 2-core VM).
  std::mt19937_64 rng(20260612);  // fixed seed
  const auto draw = [&](std::uint32_t lo) {
    std::uniform_int_distribution<std::uint32_t> d(lo, 300);
    for (;;)
      if (const std::uint32_t v = d(rng); v % 128 != 0) return v;
  };
  FoldBench bench;
  for (Dataflow d :
       {Dataflow::kWeightStationary, Dataflow::kOutputStationary, Dataflow::kInputStationary})
    for (DataType t : {DataType::kBf16, DataType::kInt8}) {
      const size_t a = bench.add(array(128, 128, d, t));
      bench.submit(a, random_job(t, draw(129), draw(129), draw(129), 0, rng));
      std::uniform_int_distribution<std::uint64_t> during(1, bench.last_end(a) - 1);
      bench.submit(a, random_job(t, draw(2), draw(2), draw(2), during(rng), rng));
      bench.submit(a, random_job(t, draw(2), draw(2), draw(2), 0, rng));
    }
  const FoldBench::Counts n = bench.run_and_check(1u << 16);
  CHECK(n.cases == 18);
  WARN(n.cases << " cases (" << n.isolated << " isolated), " << n.pe_updates << " PE updates, "
               << sc_core::sc_time_stamp().value() / kPeriod.value() << " cycles simulated");
}

TEST_CASE("PE-level golden cycles of small cases", "[sc][mxu][golden]") {
  // Each expected number is derived from what the PEs do, cycle by cycle (README.md).
  sc_core::sc_clock clk("clk", kPeriod);
  std::mt19937_64 rng(1);
  struct Expect {
    std::uint64_t start, first_stream, stream_end, end;
  };
  struct Bench {
    MxuConfig cfg;
    std::vector<PeJob> jobs;
    std::vector<Expect> expect;
  };
  std::vector<Bench> benches;
  const auto job = [&](DataType t, std::uint32_t m, std::uint32_t k, std::uint32_t n,
                       std::uint64_t ready) { return random_job(t, m, k, n, ready, rng); };
  // 4x4 ws, two 8x4x4 jobs ready at 0.
  //  job 0: the tile's 4 rows shift in at cycles 0..3 (the word for PE row 3 first); PE(0,0)
  //    holds its word after cycle 3, so the first A row enters at 4; rows 4..11. The last row
  //    reaches the bottom PE row at 11 + 3 = 14 in column 0 and column 3 at 17: end 18.
  //  job 1: its tile shifts in at 4..7 (job 0 started at 4), behind job 0's wavefront; the port
  //    frees at 12: rows 12..19, end 12 + 8 + 4 + 4 - 2 = 26.
  benches.push_back({array(4, 4, Dataflow::kWeightStationary, DataType::kInt8),
                     {job(DataType::kInt8, 8, 4, 4, 0), job(DataType::kInt8, 8, 4, 4, 0)},
                     {{0, 4, 12, 18}, {4, 12, 20, 26}}});
  // 4x4 os, 4x8x4 then 4x2x4, both ready at 0.
  //  job 0: k-steps enter at 0..7; PE(i,j) gets step 7 at 7 + i + j and moves its sum to its
  //    output register; column 0's registers are all full after cycle 10 and drain from 11
  //    (row 3 first); column 3 drains 14..17, row 0 last: end 18.
  //  job 1: step 0 enters at 8; step 1 (its last) would overwrite PE(0,0)'s output register
  //    before cycle 11, so it enters at 11: stream_end 12; drain from 15, column 3 from 18,
  //    row 0 of column 3 at 21: end 22.
  benches.push_back({array(4, 4, Dataflow::kOutputStationary, DataType::kBf16),
                     {job(DataType::kBf16, 4, 8, 4, 0), job(DataType::kBf16, 4, 2, 4, 0)},
                     {{0, 0, 8, 18}, {8, 8, 12, 22}}});
  // 4x4 is, 5x4x3 (A stays: 4 k-rows x 5 m-columns -> column folds of 4 and 1; W's 3 columns
  //  stream): fold 0 loads 0..3, streams 4..6; fold 1 loads 4..7, streams 8..10. Fold 1's last
  //  result (column 0) leaves at 10 + 3 = 13, fold 0's (column 3) at 6 + 3 + 3 = 12: end 14.
  benches.push_back({array(4, 4, Dataflow::kInputStationary, DataType::kFp8E4M3),
                     {job(DataType::kFp8E4M3, 5, 4, 3, 0)},
                     {{0, 4, 11, 14}}});
  // 1x1 ws, 1x3x1 ready at 5: three k folds of one weight each; load 5, stream 6; load 6,
  //  stream 7; load 7, stream 8; the last product leaves the only PE at 8: end 9.
  benches.push_back({array(1, 1, Dataflow::kWeightStationary, DataType::kFp8E5M2),
                     {job(DataType::kFp8E5M2, 1, 3, 1, 5)},
                     {{5, 6, 9, 9}}});
  // 2x8 ws, 1x2x9: column folds of 8 and 1; fold 0 loads 0..1, streams 2; fold 1 loads 2..3,
  //  streams 4. Fold 1's result leaves at 4 + 1 = 5, fold 0's last (column 7) at 2 + 1 + 7 =
  //  10: end 11.
  benches.push_back({array(2, 8, Dataflow::kWeightStationary, DataType::kInt8),
                     {job(DataType::kInt8, 1, 2, 9, 0)},
                     {{0, 2, 5, 11}}});

  std::vector<std::unique_ptr<PeArrayModule>> arrays;
  for (size_t b = 0; b < benches.size(); ++b) {
    arrays.push_back(std::make_unique<PeArrayModule>(fmt::format("golden{}", b).c_str(),
                                                     benches[b].cfg, kPeriod));
    arrays.back()->clk(clk);
    for (const auto& j : benches[b].jobs) arrays.back()->submit(j);
  }
  run_until_done(arrays, 1000);
  for (size_t b = 0; b < benches.size(); ++b) {
    INFO("bench " << b);
    REQUIRE(arrays[b]->error().empty());
    auto res = arrays[b]->results();
    REQUIRE(res.size() == benches[b].jobs.size());
    std::sort(res.begin(), res.end(), [](const auto& p, const auto& q) { return p.id < q.id; });
    for (size_t i = 0; i < res.size(); ++i) {
      INFO("job " << i);
      CHECK(res[i].start == benches[b].expect[i].start);
      CHECK(res[i].first_stream == benches[b].expect[i].first_stream);
      CHECK(res[i].stream_end == benches[b].expect[i].stream_end);
      CHECK(res[i].end == benches[b].expect[i].end);
      check_numbers(benches[b].cfg, benches[b].jobs[i], res[i]);
    }
  }
}

TEST_CASE("PE-level numerics: long reductions, wide magnitudes, int32 wrap-around",
          "[sc][mxu][numerics]") {
  sc_core::sc_clock clk("clk", kPeriod);
  std::mt19937_64 rng(2);
  std::vector<std::unique_ptr<PeArrayModule>> arrays;
  std::vector<MxuConfig> cfgs;
  std::vector<PeJob> jobs;
  // Float formats on a 16x16 array, K = 300: values of one sign per job half the time (the
  // sum grows, so late additions round away low bits), magnitudes spread over 2^-8 .. 2^8.
  for (DataType t : {DataType::kBf16, DataType::kFp8E4M3, DataType::kFp8E5M2})
    for (Dataflow d :
         {Dataflow::kWeightStationary, Dataflow::kOutputStationary, Dataflow::kInputStationary})
      for (int same_sign = 0; same_sign < 2; ++same_sign) {
        cfgs.push_back(array(16, 16, d, t));
        PeJob j;
        j.m = 19;
        j.k = 300;
        j.n = 21;
        std::uniform_real_distribution<float> mant(1.0f, 2.0f);
        std::uniform_int_distribution<int> e(-8, 8), sign(0, 1);
        const auto draw = [&] {
          float v = std::ldexp(mant(rng), e(rng));
          if (!same_sign && sign(rng)) v = -v;
          return encode_operand(t, v);
        };
        for (std::uint32_t i = 0; i < j.m * j.k; ++i) j.a.push_back(draw());
        for (std::uint32_t i = 0; i < j.k * j.n; ++i) j.w.push_back(draw());
        jobs.push_back(j);
      }
  // int8 on a 1x1 array, 140,000 products of -128 x -128 = 16384: the exact sum 2,293,760,000
  // exceeds 2^31 - 1; int32 accumulation wraps to 2,293,760,000 - 2^32 = -2,001,207,296.
  for (Dataflow d : {Dataflow::kWeightStationary, Dataflow::kOutputStationary}) {
    cfgs.push_back(array(1, 1, d, DataType::kInt8));
    PeJob j;
    j.m = 1;
    j.k = 140000;
    j.n = 1;
    j.a.assign(j.k, 0x80);
    j.w.assign(j.k, 0x80);
    jobs.push_back(j);
  }
  for (size_t i = 0; i < cfgs.size(); ++i) {
    arrays.push_back(
        std::make_unique<PeArrayModule>(fmt::format("num{}", i).c_str(), cfgs[i], kPeriod));
    arrays.back()->clk(clk);
    arrays.back()->submit(jobs[i]);
  }
  run_until_done(arrays, 1u << 20);
  for (size_t i = 0; i < cfgs.size(); ++i) {
    INFO(dataflow_name(cfgs[i].dataflow) << " " << dtype_name(cfgs[i].input_type));
    REQUIRE(arrays[i]->error().empty());
    REQUIRE(arrays[i]->results().size() == 1);
    const PeResult& r = arrays[i]->results()[0];
    if (cfgs[i].input_type == DataType::kInt8)
      CHECK(r.c_int[0] == -2001207296);
    else
      check_numbers(cfgs[i], jobs[i], r);
  }
}

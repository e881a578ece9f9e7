// Fold-level MXU timing: golden cycle counts of small cases, each derived in a comment from the
// per-fold rules of models/mxu/README.md (the PE-level reference proves the rules; see
// tests/sc/mxu/test_pe_vs_fold.cpp), and the activity classification built on them.
#include <catch2/catch.hpp>

#include "models/mxu/mxu_stats.h"
#include "models/mxu/mxu_timing.h"

using namespace systole::models;

namespace {

MxuConfig array(std::int64_t rows, std::int64_t cols, Dataflow d) {
  MxuConfig c;
  c.rows = rows;
  c.cols = cols;
  c.dataflow = d;
  c.accumulators = 4096;
  return c;
}

}  // namespace

TEST_CASE("ws golden: one fold, T >= R", "[unit][mxu][golden]") {
  // 4x4 ws, A 8x4 * W 4x4: one fold (k = 4 rows, n = 4 columns), T = m = 8.
  // Tile shifts in cycles 0..3 (R = 4), first vector at 4, last vector at 4 + 7 = 11; it leaves
  // the bottom row R - 1 = 3 cycles later (14) at column 0 and column n - 1 = 3 cycles after
  // that (17): end = 18 = f + T + R + n - 2 = 4 + 8 + 4 + 4 - 2.
  const MxuTiming t(array(4, 4, Dataflow::kWeightStationary));
  const auto c = t.matmul(8, 4, 4);
  CHECK(c.folds == 1);
  CHECK(c.load.value() == 4);
  CHECK(c.occupancy.value() == 8);  // folds x max(T, R)
  CHECK(c.total.value() == 18);
  CHECK(c.latency.value() == 6);  // 18 - 4 - 8 = R + n - 2
  CHECK(c.mapping_efficiency == 1.0);
  CHECK(c.vmem_elements == 8 * 4 + 4 * 4);
  CHECK(c.accumulator_rows == 8);
}

TEST_CASE("ws golden: two k folds with T < R wait for the tile", "[unit][mxu][golden]") {
  // 4x4 ws, A 2x8 * W 8x4: two row folds (k = 8), T = m = 2 < R.
  // Fold 0: tile 0..3, vectors 4, 5. Tile 1 may shift in once fold 0 started (cycle 4): 4..7,
  // so fold 1 streams at 8 = 4 + max(T, R), vectors 8, 9.
  // End: 8 + T + R + n - 2 = 8 + 2 + 4 + 4 - 2 = 16. Occupancy 2 x max(2, 4) = 8.
  const MxuTiming t(array(4, 4, Dataflow::kWeightStationary));
  const auto c = t.matmul(2, 8, 4);
  CHECK(c.folds == 2);
  CHECK(c.occupancy.value() == 8);
  CHECK(c.total.value() == 16);
  CHECK(c.latency.value() == 4);  // 16 - 4 - 8 = T + n - 2
}

TEST_CASE("ws golden: a wide fold can end after a narrow last fold", "[unit][mxu][golden]") {
  // 2x8 ws, A 1x2 * W 2x9: column folds of 8 and 1 columns, T = 1, step max(1, 2) = 2.
  // Fold 0 streams at 2 (after its 2-cycle load), fold 1 at 4.
  // Fold 1 (1 column) ends 4 + 1 + 2 + 1 - 2 = 6; fold 0 (8 columns) ends 2 + 1 + 2 + 8 - 2
  // = 11, later: the op ends at 11.
  const MxuTiming t(array(2, 8, Dataflow::kWeightStationary));
  const auto c = t.matmul(1, 2, 9);
  CHECK(c.folds == 2);
  CHECK(c.total.value() == 11);
  CHECK(c.mapping_efficiency == Approx(9.0 / 16));
}

TEST_CASE("is golden: stationary A, columns of W stream", "[unit][mxu][golden]") {
  // 4x4 is, A 5x4 * W 4x3: the stationary A^T is k = 4 rows x m = 5 columns -> column folds
  // of 4 and 1; T = n = 3, step max(3, 4) = 4. Folds stream at 4 and 8.
  // Ends: fold 1 (1 column) 8 + 3 + 4 + 1 - 2 = 14; fold 0 (4 columns) 4 + 3 + 4 + 4 - 2 = 13.
  const MxuTiming t(array(4, 4, Dataflow::kInputStationary));
  const auto c = t.matmul(5, 4, 3);
  CHECK(c.folds == 2);
  CHECK(c.total.value() == 14);
  CHECK(c.accumulator_rows == 3 * 2);  // n rows x column folds over m
  CHECK(c.vmem_elements == 5 * 4 + 2 * 4 * 3);
}

TEST_CASE("os golden: outputs stay, results drain down the columns", "[unit][mxu][golden]") {
  // 4x4 os, A 4x8 * W 8x4: one fold, T = k = 8. Vectors 0..7; the last reaches PE(3,3) at
  // 7 + 3 + 3 = 13. The output registers are released R = 4 cycles after the last vector (11,
  // column 0; column j at 11 + j); each column drains R values, row 0 last: the last result
  // leaves column 3 at 11 + 3 + 3 = 17: end = l + 2R + n - 1 = 7 + 8 + 4 - 1 = 18.
  const MxuTiming t(array(4, 4, Dataflow::kOutputStationary));
  auto c = t.matmul(4, 8, 4);
  CHECK(c.load.value() == 0);
  CHECK(c.total.value() == 18);
  // A 8x2 * W 2x4: two row folds (m = 8), T = 2 < R. Fold 1's last vector must wait until
  // fold 0's results were released at 1 + 4 = 5: vectors at 2 and 5; end = 5 + 8 + 4 - 1 = 16.
  c = t.matmul(8, 2, 4);
  CHECK(c.folds == 2);
  CHECK(c.occupancy.value() == 8);
  CHECK(c.total.value() == 16);
}

TEST_CASE("pipeline: weight double-buffering across back-to-back ops", "[unit][mxu][golden]") {
  MxuPipeline p(array(4, 4, Dataflow::kWeightStationary));
  // Op 1: 8x4x4 ready at 0: load 0..3, streams 4..11, ends 18 (golden above).
  const auto a = p.issue(8, 4, 4, 0);
  CHECK(a.start == 0);
  CHECK(a.stream_end == 12);
  CHECK(a.end == 18);
  // Op 2, same shape, ready at 0: its tile shifts in from cycle 4 (op 1 started streaming), is
  // ready at 8, but the port is busy until 12: it streams 12..19 with no exposed load;
  // end = 12 + 8 + 4 + 4 - 2 = 26.
  const auto b = p.issue(8, 4, 4, 0);
  CHECK(b.start == 4);
  CHECK(b.first_stream == 12);
  CHECK(b.end == 26);
  // Op 3, 2x4x4, ready at 30 (the array drained at 26): load 30..33, stream 34, 35;
  // end = 34 + 2 + 4 + 4 - 2 = 42.
  const auto c = p.issue(2, 4, 4, 30);
  CHECK(c.first_stream == 34);
  CHECK(c.end == 42);
  // Op 4, 2x4x4, ready early: its tile shifts in from 34 (op 3 started), so it streams at 38 =
  // 34 + max(T, R), not at 36 when the port frees: end = 38 + 2 + 4 + 4 - 2 = 46.
  const auto d = p.issue(2, 4, 4, 0);
  CHECK(d.start == 34);
  CHECK(d.first_stream == 38);
  CHECK(d.end == 46);
}

TEST_CASE("pipeline: os drain limits short ops", "[unit][mxu][golden]") {
  MxuPipeline p(array(4, 4, Dataflow::kOutputStationary));
  // Op 1: 4x8x4: last vector at 7, released at 11.
  const auto a = p.issue(4, 8, 4, 0);
  CHECK(a.stream_end == 8);
  // Op 2: 4x2x4 ready at 0: first vector at 8 (port free); its last vector would be 9 but
  // must wait for op 1's release at 11: stream_end 12, end = 11 + 8 + 4 - 1 = 22.
  const auto b = p.issue(4, 2, 4, 0);
  CHECK(b.first_stream == 8);
  CHECK(b.stream_end == 12);
  CHECK(b.end == 22);
}

TEST_CASE("timeline: every cycle in one class", "[unit][mxu]") {
  MxuPipeline p(array(4, 4, Dataflow::kWeightStationary));
  MxuTimeline tl(true);
  MxuCounters c;
  // Op 1 ready at 10: 0..10 waits for operands (stall_input 10), load 10..13 (weight_load 4),
  // streams 14..21 (busy 8).
  tl.op(p.issue(8, 4, 4, 10), 0, DepWait::kInput, c);
  CHECK(c.stall_input == 10);
  CHECK(c.weight_load == 4);
  CHECK(c.busy == 8);
  // Op 2 (2x4x4) ready at 24, its operands held back by a pending store: op 1 drains until
  // 14 + 8 + 4 + 4 - 2 = 28, so 22..24 is fill/drain (op 1 in flight) and the load 24..27 is
  // weight_load; streams 28, 29.
  tl.op(p.issue(2, 4, 4, 24), 0, DepWait::kOutput, c);
  CHECK(c.fill_drain == 2);
  CHECK(c.weight_load == 8);
  CHECK(c.busy == 10);
  CHECK(c.stall_output == 0);
  // Op 3 ready at 40 (output wait): op 2 drains until 28 + 2 + 4 + 4 - 2 = 36: fill/drain
  // 30..36, stall_output 36..40, load 40..43, busy 44, 45.
  tl.op(p.issue(2, 4, 4, 40), 0, DepWait::kOutput, c);
  CHECK(c.fill_drain == 2 + 6);
  CHECK(c.stall_output == 4);
  CHECK(c.weight_load == 12);
  CHECK(c.busy == 12);
  // Settle at 60: op 3 drains 46..52; 52..60 is idle.
  tl.settle(60, c);
  CHECK(c.fill_drain == 8 + 6);
  CHECK(c.accounted() == 60 - 8);
}

#pragma once
// SCALE-Sim v2's double-buffered scratchpads (scalesim/memory/*.py) as event-level state
// machines. SCALE-Sim feeds them one demand row per cycle; these take the same decisions from
// counts and positions: a write buffer fed a count of outputs per row, a USER-mode read buffer
// whose window moves one prefetch at a time, and the CALC-mode bandwidth estimator reduced to
// its epochs of distinct addresses. README.md derives each rule.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace systole::models::scalesim {

/// OFMAP write buffer (write_buffer.py), fed a count of outputs per demand row: drains of
/// ceil(half/bw) lines start when more than half is occupied, free their space at once, and
/// stall the array only when it fills up during a drain (README.md, "Write buffer").
class WriteBuffer {
 public:
  WriteBuffer(std::int64_t total_words, std::int64_t bandwidth);
  /// `words` outputs written by the demand row issued at `cycle`; returns the cycle the row
  /// completes at (cycle + the write stall).
  std::int64_t write_row(std::int64_t cycle, std::int64_t words);
  /// How many of n consecutive rows, issued at cycles first_cycle, first_cycle+1, ... and writing
  /// words_through(r) words in rows 0..r in all, only fill the buffer (start no drain, stall
  /// nothing): the condition is monotone in r, so a binary search finds them.
  template <class F>
  std::int64_t quiet_rows(std::int64_t first_cycle, std::int64_t n, F&& words_through) const {
    auto quiet = [&](std::int64_t r) {
      const std::int64_t left = free_ - words_through(r);
      return first_cycle + r < drain_end_ ? left > 0 : left >= active_;
    };
    std::int64_t ok = 0, bad = n;  // rows [0, ok) are quiet; row `bad` (if < n) is not
    if (n == 0 || !quiet(0)) return 0;
    ok = 1;
    while (bad > ok) {
      const std::int64_t mid = ok + (bad - ok) / 2;
      if (quiet(mid))
        ok = mid + 1;
      else
        bad = mid;
    }
    return ok;
  }
  /// Writes `words` that quiet_rows() proved start no drain and stall nothing.
  void write_quiet(std::int64_t words) { store(words); }
  /// The end-of-layer flush (empty_all_buffers), first drain starting at `cycle`.
  void drain_all(std::int64_t cycle);
  std::int64_t dram_writes() const { return dram_writes_; }
  std::int64_t dram_start() const { return dram_start_; }
  std::int64_t dram_stop() const { return dram_stop_; }

 private:
  void store(std::int64_t words);
  void flush_line();
  std::int64_t drain(std::int64_t start);

  std::int64_t total_, active_, drain_size_, bw_;
  std::int64_t free_;
  std::int64_t lines_ = 0;      ///< lines appended to the DRAM trace
  std::int64_t line_fill_ = 0;  ///< words in the line being filled
  std::int64_t next_line_ = 0;  ///< first line not yet drained
  std::vector<std::pair<std::int64_t, std::int64_t>> partial_;  ///< (line, words), ascending
  std::size_t partial_at_ = 0;
  std::int64_t drain_end_ = 0;
  std::int64_t dram_writes_ = 0;
  std::int64_t dram_start_ = 0, dram_stop_ = 0;
  bool drained_ = false;
};

/// USER-mode IFMAP/FILTER read buffer (read_buffer.py) as a window over lines of the prefetch
/// order: a read outside it advances the window by the prefetch half until it hits, each
/// advance landing ceil(half/bw)+1 cycles after the previous one (README.md, "USER reads").
class UserReadBuffer {
 public:
  /// `valid` elements in the prefetch order, `cells` its size with empty cells (DRAM lines).
  UserReadBuffer(std::int64_t total_words, std::int64_t bandwidth, std::int64_t valid,
                 std::int64_t cells);
  /// The initial fill of the active half before the first demand row (at `cycle`).
  void start(std::int64_t cycle);
  bool started() const { return started_; }
  std::int64_t line_of(std::int64_t position) const { return position / line_elems_; }
  bool in_window(std::int64_t line) const;
  /// Lines lo..hi (lo <= hi) all in the window.
  bool in_window(std::int64_t lo, std::int64_t hi) const;
  /// The run of window lines [lo, hi) without wrap-around that holds `line` (in the window).
  void segment_of(std::int64_t line, std::int64_t& lo, std::int64_t& hi) const;
  void advance();
  std::int64_t last_prefetch() const { return last_; }
  std::int64_t dram_reads() const { return reads_; }
  std::int64_t dram_start() const { return first_; }
  std::int64_t dram_stop() const { return last_; }
  std::int64_t advances() const { return advances_; }

 private:
  std::int64_t bw_, active_, prefetch_, line_elems_, lines_, active_lines_, prefetch_lines_;
  std::int64_t fetch_rows_;
  std::int64_t window_ = 0;  ///< first line of the active window
  std::int64_t last_ = -1, first_ = 0, reads_ = 0, advances_ = 0;
  bool started_ = false;
};

/// CALC-mode IFMAP/FILTER bandwidth estimator (read_buffer_estimate_bw.py) reduced to epochs of
/// E = 50 * floor(words/100) distinct addresses: its DRAM reads, first and last cycle follow
/// from the cycles at which epochs end (README.md, "CALC reads").
class EpochEstimator {
 public:
  explicit EpochEstimator(std::int64_t total_words);
  std::int64_t epoch_size() const { return epoch_; }
  void first_request(std::int64_t cycle) { first_request_ = cycle; }
  /// The read completing an epoch was issued at `cycle`.
  void epoch_end(std::int64_t cycle);
  /// End of the layer with `open` distinct addresses in the unfinished epoch.
  void finish(std::int64_t open);
  std::int64_t dram_reads() const { return reads_; }
  std::int64_t dram_start() const { return start_; }
  std::int64_t dram_stop() const { return stop_; }

 private:
  std::int64_t set_size_, epoch_;
  std::int64_t first_request_ = 0, epochs_ = 0, last_end_ = 0;
  std::int64_t reads_ = 0, start_ = 0, stop_ = 0;
};

}  // namespace systole::models::scalesim

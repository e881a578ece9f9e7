#include "models/scalesim/scalesim_memory.h"

#include <algorithm>

#include "sim/core/error.h"

namespace systole::models::scalesim {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

// ---- WriteBuffer -------------------------------------------------------------------------------

WriteBuffer::WriteBuffer(std::int64_t total_words, std::int64_t bandwidth)
    : total_(total_words),
      active_((total_words + 1) / 2),
      drain_size_(total_words - (total_words + 1) / 2),
      bw_(bandwidth),
      free_(total_words) {
  SYSTOLE_ASSERT(total_ >= 2 && bw_ >= 1, "write buffer needs >= 2 words and bandwidth >= 1");
}

void WriteBuffer::store(std::int64_t words) {
  free_ -= words;
  line_fill_ += words;
  lines_ += line_fill_ / bw_;
  line_fill_ %= bw_;
}

void WriteBuffer::flush_line() {
  if (line_fill_ == 0) return;
  partial_.emplace_back(lines_, line_fill_);
  ++lines_;
  line_fill_ = 0;
}

std::int64_t WriteBuffer::drain(std::int64_t start) {
  const std::int64_t end = std::min(next_line_ + ceil_div(drain_size_, bw_), lines_);
  const std::int64_t n = end - next_line_;
  SYSTOLE_ASSERT(n > 0, "drain with no lines");
  // Only the last line's empty slots are discounted (write_buffer.py, empty_drain_buf).
  while (partial_at_ < partial_.size() && partial_[partial_at_].first < end - 1) ++partial_at_;
  std::int64_t last_fill = bw_;
  if (partial_at_ < partial_.size() && partial_[partial_at_].first == end - 1)
    last_fill = partial_[partial_at_].second;
  const std::int64_t words = n * bw_ - (bw_ - last_fill);
  dram_writes_ += words;
  const std::int64_t stop = start + n - 1;
  // The DRAM trace runs from the first drain's first line to the last drain's last line (in
  // issue order: the final flush may end before a drain still in flight).
  if (!drained_) dram_start_ = start;
  dram_stop_ = stop;
  drained_ = true;
  free_ += words;
  next_line_ = end;
  return stop;
}

std::int64_t WriteBuffer::write_row(std::int64_t cycle, std::int64_t words) {
  std::int64_t cur = cycle;
  while (words > 0) {
    if (cur < drain_end_) {
      // The array waits for the drain in flight once a write leaves no free space.
      if (free_ - words > 0) {
        store(words);
        break;
      }
      const std::int64_t k = std::max<std::int64_t>(free_, 1);
      store(k);
      words -= k;
      cur = drain_end_;
    } else {
      // A write that leaves less than the active half free starts a drain (no stall).
      if (free_ - words >= active_) {
        store(words);
        break;
      }
      const std::int64_t k = std::max<std::int64_t>(free_ - active_ + 1, 1);
      store(k);
      words -= k;
      flush_line();
      drain_end_ = drain(cur);
    }
  }
  return cur;
}

void WriteBuffer::drain_all(std::int64_t cycle) {
  flush_line();
  while (next_line_ < lines_) {
    drain_end_ = drain(cycle);
    cycle = drain_end_ + 1;
  }
}

// ---- UserReadBuffer ----------------------------------------------------------------------------

UserReadBuffer::UserReadBuffer(std::int64_t total_words, std::int64_t bandwidth, std::int64_t valid,
                               std::int64_t cells)
    : bw_(bandwidth),
      active_((total_words + 1) / 2),
      prefetch_(total_words - (total_words + 1) / 2),
      line_elems_(ceil_div(total_words, 100)),
      fetch_rows_(ceil_div(cells, bandwidth)) {
  SYSTOLE_ASSERT(total_words >= 2 && bw_ >= 1 && valid >= 1, "bad read buffer");
  lines_ = valid / line_elems_ + 1;
  active_lines_ = std::min(lines_, ceil_div(active_, line_elems_));
  prefetch_lines_ = std::min(lines_ - active_lines_, ceil_div(prefetch_, line_elems_));
}

void UserReadBuffer::start(std::int64_t cycle) {
  std::int64_t n = ceil_div(active_, bw_);
  if (n >= fetch_rows_) n = fetch_rows_;
  reads_ += n * bw_;
  first_ = cycle - n;
  last_ = cycle - 1;
  window_ = 0;
  started_ = true;
}

bool UserReadBuffer::in_window(std::int64_t line) const {
  std::int64_t a = (line - window_) % lines_;
  if (a < 0) a += lines_;
  return a < active_lines_;
}

bool UserReadBuffer::in_window(std::int64_t lo, std::int64_t hi) const {
  if (active_lines_ >= lines_) return true;
  std::int64_t a = (lo - window_) % lines_;
  if (a < 0) a += lines_;
  return a + (hi - lo) < active_lines_;
}

void UserReadBuffer::segment_of(std::int64_t line, std::int64_t& lo, std::int64_t& hi) const {
  if (active_lines_ >= lines_) {
    lo = 0, hi = lines_;
  } else if (window_ + active_lines_ <= lines_) {
    lo = window_, hi = window_ + active_lines_;
  } else if (line >= window_) {
    lo = window_, hi = lines_;
  } else {
    lo = 0, hi = window_ + active_lines_ - lines_;
  }
}

void UserReadBuffer::advance() {
  SYSTOLE_ASSERT(prefetch_lines_ > 0, "read buffer miss with nothing to prefetch");
  window_ = (window_ + prefetch_lines_) % lines_;
  const std::int64_t n = ceil_div(prefetch_, bw_);
  reads_ += n * bw_;
  last_ += n + 1;
  ++advances_;
}

// ---- EpochEstimator ----------------------------------------------------------------------------

EpochEstimator::EpochEstimator(std::int64_t total_words)
    : set_size_(total_words / 100), epoch_(50 * (total_words / 100)) {
  SYSTOLE_ASSERT(set_size_ >= 1, "estimator needs an SRAM of at least 100 words");
}

void EpochEstimator::epoch_end(std::int64_t cycle) {
  ++epochs_;
  last_end_ = cycle;
}

void EpochEstimator::finish(std::int64_t open) {
  // CALC mode assumes 10 words/cycle for the first (active-half) prefetch.
  constexpr std::int64_t kDefaultBandwidth = 10;
  reads_ = epochs_ * epoch_ + open;
  if (epochs_ > 0) {
    start_ = first_request_ - ceil_div(epoch_, kDefaultBandwidth);
    stop_ = last_end_ + 1;
  } else {
    const std::int64_t sets = ceil_div(open, set_size_);
    start_ = -ceil_div(sets * set_size_, kDefaultBandwidth);
    stop_ = -1;
  }
}

}  // namespace systole::models::scalesim

#pragma once
// Fold geometry and operand streams of SCALE-Sim v2's compute modules, as closed forms: which
// operand elements each demand row (cycle) of each fold reads, in which order, and where each
// element sits in the operand's prefetch order. SCALE-Sim materialises these as matrices
// (systolic_compute_{os,ws,is}.py); here every query is O(1) or O(log n) arithmetic.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/scalesim/scalesim_timing.h"

namespace systole::models::scalesim {

/// Folds of one layer on one array. Spatial rows Sr, spatial columns Sc, temporal T:
/// os (M, N, K), ws (K, N, M), is (K, M, N). Folds run column-fold outer, row-fold inner.
struct Geometry {
  Dataflow dataflow = Dataflow::kOs;
  std::int64_t R = 1, C = 1;  ///< array rows, columns
  std::int64_t M = 1, N = 1, K = 1;
  std::int64_t Sr = 1, Sc = 1, T = 1;
  std::int64_t Fr = 1, Fc = 1;
  std::int64_t fold_cycles = 1;       ///< demand rows per fold: os T+R+C-2, ws/is 2R+C+T-2
  std::int64_t util_fold_cycles = 1;  ///< the fold length Compute Util divides by (ws/is: +C-1)
  std::int64_t rows_used(std::int64_t fr) const;
  std::int64_t cols_used(std::int64_t fc) const;
  std::int64_t folds() const { return Fr * Fc; }
  /// Outputs written in local row c of fold (fc, fr): lanes [lo, hi] (empty when lo > hi).
  void ofmap_lanes(std::int64_t fc, std::int64_t fr, std::int64_t c, std::int64_t& lo,
                   std::int64_t& hi) const;
  /// First and last local row of a fold that writes outputs.
  void ofmap_rows(std::int64_t fc, std::int64_t fr, std::int64_t& first, std::int64_t& last) const;
  /// Outputs the fold writes in local rows < c.
  std::int64_t ofmap_writes_before(std::int64_t fc, std::int64_t fr, std::int64_t c) const;
};

Geometry make_geometry(const ArrayConfig& arch, const ConvLayer& layer);

/// Reads in the first u rows of a skewed band of w lanes and t rows (lane x reads in rows
/// x..x+t-1): the sum over rows u' < u of min(u'+1, w, t, w+t-1-u').
std::int64_t band_prefix(std::int64_t w, std::int64_t t, std::int64_t u);

enum class Operand { kIfmap, kFilter };

/// A fold as one operand sees it.
struct FoldView {
  std::int64_t block = 0;       ///< prefetch-matrix block the fold reads
  std::int64_t key = 0;         ///< identical keys read identical address sequences
  std::int64_t lanes = 0;       ///< valid lanes (skewed: rows/cols in use; burst: columns)
  std::int64_t burst_rows = 0;  ///< burst only: stationary rows in use
  std::int64_t t0 = 0;          ///< burst only: t of local row R-1
  std::int64_t first_row = 0;   ///< first local row with a read
  std::int64_t last_row = -1;   ///< last local row with a read
  std::int64_t elements = 0;    ///< reads in the fold
};

/// One read operand (ifmap or filter) under one dataflow: its prefetch matrix, blocks of
/// `block_rows` x `width` cells (b, t, x), and its demand: skewed (lane x reads t at row
/// delay+t+x) or burst (ws/is stationary tile: row c reads t0+R-1-c). README.md, "Streams".
class OperandStream {
 public:
  OperandStream(const Geometry& g, Operand op);

  bool rolled() const { return rolled_; }
  bool skewed() const { return skewed_; }
  bool lane_is_row() const { return lane_is_row_; }
  std::int64_t delay() const { return delay_; }
  std::int64_t blocks() const { return blocks_; }
  std::int64_t width() const { return width_; }
  std::int64_t valid_width(std::int64_t b) const;
  std::int64_t matrix_cells() const { return blocks_ * block_rows_ * width_; }
  std::int64_t valid_cells() const;

  FoldView fold(std::int64_t fc, std::int64_t fr) const;
  /// Lanes read in local row c (lo > hi: none).
  void row_lanes(const FoldView& f, std::int64_t c, std::int64_t& lo, std::int64_t& hi) const;
  std::int64_t t_of(const FoldView& f, std::int64_t c, std::int64_t x) const;
  /// Reads of the fold in local rows < c.
  std::int64_t reads_before(const FoldView& f, std::int64_t c) const;
  /// Local row of the fold's o-th read (0-based, demand order).
  std::int64_t row_of_read(const FoldView& f, std::int64_t o) const;
  /// Index of cell (b, t, x) among the valid cells of the prefetch order.
  std::int64_t position(std::int64_t b, std::int64_t t, std::int64_t x) const;
  /// Operand-matrix index of cell (b, t, x): ifmap (m, k), filter (k, n).
  void matrix_index(std::int64_t b, std::int64_t t, std::int64_t x, std::int64_t& i,
                    std::int64_t& j) const;
  /// The cell holding operand-matrix element (i, j).
  void cell_of(std::int64_t i, std::int64_t j, std::int64_t& b, std::int64_t& t,
               std::int64_t& x) const;
  /// Row-major index of cell (b, t, x) in the prefetch matrix.
  std::int64_t cell_index(std::int64_t b, std::int64_t t, std::int64_t x) const {
    return (b * block_rows_ + t) * width_ + x;
  }
  /// Calls f(b, t, x) for every valid cell, in prefetch order.
  template <class F>
  void for_each_cell(F&& f) const;

 private:
  const Geometry& g_;
  bool rolled_ = true, skewed_ = true, by_row_fold_ = true, lane_is_row_ = true;
  std::int64_t blocks_ = 1, block_rows_ = 1, width_ = 1, span_ = 1, delay_ = 0;
};

template <class F>
void OperandStream::for_each_cell(F&& f) const {
  const std::int64_t rows = blocks_ * block_rows_;
  if (!rolled_) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t x = 0; x < valid_width(r / block_rows_); ++x)
        f(r / block_rows_, r % block_rows_, x);
    return;
  }
  for (std::int64_t d = 0; d < rows + width_ - 1; ++d) {
    for (std::int64_t x = std::max<std::int64_t>(0, d - rows + 1); x <= std::min(width_ - 1, d);
         ++x) {
      const std::int64_t r = d - x, b = r / block_rows_;
      if (x < valid_width(b)) f(b, r % block_rows_, x);
    }
  }
}

/// Conv-to-GEMM address map of operand_matrix.py without offsets: ifmap (m, k) -> (row * W +
/// col) * C + channel, or -1 where the window runs past the input (read, never fetched).
class AddressMap {
 public:
  explicit AddressMap(const ConvLayer& l);
  std::int64_t ifmap(std::int64_t m, std::int64_t k) const {
    const auto mi = static_cast<std::size_t>(m), ki = static_cast<std::size_t>(k);
    if (m_row_[mi] + k_row_[ki] >= l_.ifmap_h || m_col_[mi] + k_col_[ki] >= l_.ifmap_w) return -1;
    return row_base_[mi] + col_off_[ki];
  }
  std::int64_t ifmap_words() const { return l_.ifmap_h * l_.ifmap_w * l_.channels; }
  /// True when distinct (m, k) never share an address (no overlapping windows).
  bool ifmap_injective() const { return injective_; }
  /// True when some windows run past the input (ifmap reads of address -1).
  bool ifmap_holes() const { return holes_; }
  /// Calls f(m, k) for every im2col element holding ifmap address `a`.
  template <class F>
  void for_each_ifmap_use(std::int64_t a, F&& f) const;

 private:
  ConvLayer l_;
  std::int64_t eh_ = 1, ew_ = 1;
  bool injective_ = true, holes_ = false;
  std::vector<std::int64_t> row_base_, col_off_;
  std::vector<std::int64_t> m_row_, m_col_, k_row_, k_col_;  // window origin / offset in pixels
};

template <class F>
void AddressMap::for_each_ifmap_use(std::int64_t a, F&& f) const {
  const std::int64_t ch = a % l_.channels, px = a / l_.channels;
  const std::int64_t ih = px / l_.ifmap_w, iw = px % l_.ifmap_w;
  for (std::int64_t kh = 0; kh < l_.filter_h && kh <= ih; ++kh) {
    if ((ih - kh) % l_.stride_h) continue;
    const std::int64_t oh = (ih - kh) / l_.stride_h;
    if (oh >= eh_) continue;
    for (std::int64_t kw = 0; kw < l_.filter_w && kw <= iw; ++kw) {
      if ((iw - kw) % l_.stride_w) continue;
      const std::int64_t ow = (iw - kw) / l_.stride_w;
      if (ow >= ew_) continue;
      if (f(oh * ew_ + ow, (kh * l_.filter_w + kw) * l_.channels + ch)) return;
    }
  }
}

}  // namespace systole::models::scalesim

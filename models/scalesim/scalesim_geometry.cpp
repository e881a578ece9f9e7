#include "models/scalesim/scalesim_geometry.h"

#include <algorithm>

#include "sim/core/error.h"

namespace systole::models::scalesim {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// sum_{s=1..n} min(s, h); 0 for n <= 0.
std::int64_t clamp_sum(std::int64_t n, std::int64_t h) {
  if (n <= 0) return 0;
  if (n <= h) return n * (n + 1) / 2;
  return h * (h + 1) / 2 + (n - h) * h;
}

// Cells (r, x) of [ra, rb) x [xa, xb) with r + x < d.
std::int64_t rect_below(std::int64_t ra, std::int64_t rb, std::int64_t xa, std::int64_t xb,
                        std::int64_t d) {
  if (rb <= ra || xb <= xa) return 0;
  const std::int64_t h = rb - ra;
  const std::int64_t hi = d - xa - ra, lo = d - (xb - 1) - ra;  // sum clamp(s, 0, h), s in [lo, hi]
  return clamp_sum(hi, h) - clamp_sum(lo - 1, h);
}

}  // namespace

std::int64_t band_prefix(std::int64_t w, std::int64_t t, std::int64_t u) {
  const std::int64_t a = std::min(w, t), b = std::max(w, t), len = w + t - 1;
  u = std::clamp<std::int64_t>(u, 0, len);
  const std::int64_t m1 = std::min(u, a);
  std::int64_t s = m1 * (m1 + 1) / 2;
  s += a * (std::clamp(u, a, b) - a);
  if (u > b) {
    auto tri = [](std::int64_t n) { return n * (n + 1) / 2; };
    s += tri(len - b) - tri(len - u);
  }
  return s;
}

std::int64_t Geometry::rows_used(std::int64_t fr) const { return std::min(R, Sr - fr * R); }
std::int64_t Geometry::cols_used(std::int64_t fc) const { return std::min(C, Sc - fc * C); }

void Geometry::ofmap_lanes(std::int64_t fc, std::int64_t fr, std::int64_t c, std::int64_t& lo,
                           std::int64_t& hi) const {
  const std::int64_t cu = cols_used(fc);
  if (dataflow == Dataflow::kOs) {
    lo = std::max<std::int64_t>(0, c - (T - 1) - (R - 1));
    hi = std::min(cu - 1, c - (T - 1) - (R - rows_used(fr)));
  } else {
    lo = std::max<std::int64_t>(0, c - (2 * R - 1) - (T - 1));
    hi = std::min(cu - 1, c - (2 * R - 1));
  }
}

void Geometry::ofmap_rows(std::int64_t fc, std::int64_t fr, std::int64_t& first,
                          std::int64_t& last) const {
  const std::int64_t cu = cols_used(fc);
  if (dataflow == Dataflow::kOs) {
    first = T - 1 + R - rows_used(fr);
    last = T + R + cu - 3;
  } else {
    first = 2 * R - 1;
    last = 2 * R + T + cu - 3;
  }
}

std::int64_t Geometry::ofmap_writes_before(std::int64_t fc, std::int64_t fr, std::int64_t c) const {
  // Lane j writes in rows first+j .. first+j+len-1: a skewed band.
  std::int64_t first = 0, last = 0;
  ofmap_rows(fc, fr, first, last);
  const std::int64_t len = dataflow == Dataflow::kOs ? rows_used(fr) : T;
  return band_prefix(cols_used(fc), len, c - first);
}

Geometry make_geometry(const ArrayConfig& arch, const ConvLayer& layer) {
  Geometry g;
  g.dataflow = arch.dataflow;
  g.R = arch.rows;
  g.C = arch.cols;
  g.M = layer.gemm_m();
  g.N = layer.gemm_n();
  g.K = layer.gemm_k();
  switch (arch.dataflow) {
    case Dataflow::kOs:
      g.Sr = g.M, g.Sc = g.N, g.T = g.K;
      g.fold_cycles = g.T + g.R + g.C - 2;
      g.util_fold_cycles = g.fold_cycles;
      break;
    case Dataflow::kWs:
      g.Sr = g.K, g.Sc = g.N, g.T = g.M;
      g.fold_cycles = 2 * g.R + g.C + g.T - 2;
      g.util_fold_cycles = 2 * g.R + 2 * g.C + g.T - 3;
      break;
    case Dataflow::kIs:
      g.Sr = g.K, g.Sc = g.M, g.T = g.N;
      g.fold_cycles = 2 * g.R + g.C + g.T - 2;
      g.util_fold_cycles = 2 * g.R + 2 * g.C + g.T - 3;
      break;
  }
  g.Fr = ceil_div(g.Sr, g.R);
  g.Fc = ceil_div(g.Sc, g.C);
  return g;
}

// Prefetch matrix and demand pattern of each operand (systolic_compute_*.py):
//   os ifmap  rolled, skewed, blocks by row fold of (T=K rows x R lanes), lane = m
//   os filter rolled, skewed, blocks by col fold of (T=K x C), lane = n
//   ws ifmap  rolled, skewed (delay R), blocks by row fold of (M x R), lane = k
//   ws filter row-major, burst, blocks by col fold of (K x C), lane = n
//   is ifmap  row-major, burst, blocks by col fold of (K x C), lane = m
//   is filter rolled, skewed (delay R), blocks by row fold of (N x R), lane = k
OperandStream::OperandStream(const Geometry& g, Operand op) : g_(g) {
  const bool ifmap = op == Operand::kIfmap;
  switch (g.dataflow) {
    case Dataflow::kOs:
      rolled_ = skewed_ = true;
      delay_ = 0;
      block_rows_ = g.K;
      by_row_fold_ = ifmap;
      lane_is_row_ = ifmap;
      width_ = ifmap ? g.R : g.C;
      span_ = ifmap ? g.M : g.N;
      break;
    case Dataflow::kWs:
      rolled_ = skewed_ = ifmap;
      delay_ = g.R;
      block_rows_ = ifmap ? g.M : g.K;
      by_row_fold_ = ifmap;
      lane_is_row_ = false;
      width_ = ifmap ? g.R : g.C;
      span_ = ifmap ? g.K : g.N;
      break;
    case Dataflow::kIs:
      rolled_ = skewed_ = !ifmap;
      delay_ = g.R;
      block_rows_ = ifmap ? g.K : g.N;
      by_row_fold_ = !ifmap;
      lane_is_row_ = true;
      width_ = ifmap ? g.C : g.R;
      span_ = ifmap ? g.M : g.K;
      break;
  }
  blocks_ = ceil_div(span_, width_);
}

std::int64_t OperandStream::valid_width(std::int64_t b) const {
  return std::min(width_, span_ - b * width_);
}

std::int64_t OperandStream::valid_cells() const { return block_rows_ * span_; }

FoldView OperandStream::fold(std::int64_t fc, std::int64_t fr) const {
  FoldView f;
  if (skewed_) {
    f.block = by_row_fold_ ? fr : fc;
    f.key = f.block;
    f.lanes = valid_width(f.block);
    f.first_row = delay_;
    f.last_row = delay_ + f.lanes + block_rows_ - 2;
    f.elements = f.lanes * block_rows_;
  } else {
    f.block = fc;
    f.key = blocks_ + fc * g_.Fr + fr;  // never repeats
    f.lanes = valid_width(fc);
    f.burst_rows = g_.rows_used(fr);
    f.t0 = fr * g_.R;
    f.first_row = g_.R - f.burst_rows;
    f.last_row = g_.R - 1;
    f.elements = f.lanes * f.burst_rows;
  }
  return f;
}

void OperandStream::row_lanes(const FoldView& f, std::int64_t c, std::int64_t& lo,
                              std::int64_t& hi) const {
  if (c < f.first_row || c > f.last_row) {
    lo = 0, hi = -1;
    return;
  }
  if (skewed_) {
    lo = std::max<std::int64_t>(0, c - delay_ - block_rows_ + 1);
    hi = std::min(f.lanes - 1, c - delay_);
  } else {
    lo = 0, hi = f.lanes - 1;
  }
}

std::int64_t OperandStream::t_of(const FoldView& f, std::int64_t c, std::int64_t x) const {
  return skewed_ ? c - delay_ - x : f.t0 + g_.R - 1 - c;
}

std::int64_t OperandStream::reads_before(const FoldView& f, std::int64_t c) const {
  if (skewed_) return band_prefix(f.lanes, block_rows_, c - delay_);
  return std::clamp<std::int64_t>(c - f.first_row, 0, f.burst_rows) * f.lanes;
}

std::int64_t OperandStream::row_of_read(const FoldView& f, std::int64_t o) const {
  if (!skewed_) return f.first_row + o / f.lanes;
  // Largest u with band_prefix(u) <= o.
  std::int64_t lo = 0, hi = f.lanes + block_rows_ - 1;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (band_prefix(f.lanes, block_rows_, mid) <= o)
      lo = mid;
    else
      hi = mid;
  }
  return delay_ + lo;
}

std::int64_t OperandStream::position(std::int64_t b, std::int64_t t, std::int64_t x) const {
  if (!rolled_) return b * block_rows_ * width_ + t * valid_width(b) + x;
  // Rolled along anti-diagonals d = row + x, each walked with x ascending; the only invalid
  // cells are the lanes >= wl of the last block.
  const std::int64_t rows = blocks_ * block_rows_;
  const std::int64_t last_row0 = (blocks_ - 1) * block_rows_, wl = valid_width(blocks_ - 1);
  const std::int64_t d = b * block_rows_ + t + x;
  std::int64_t before = rect_below(0, rows, 0, width_, d);
  if (wl < width_) before -= rect_below(last_row0, rows, wl, width_, d);
  const std::int64_t x_min = std::max<std::int64_t>(0, d - rows + 1);
  std::int64_t in_diag = x - x_min;
  if (wl < width_) {
    const std::int64_t a = std::max(wl, x_min), e = std::min(x, d - last_row0 + 1);
    if (e > a) in_diag -= e - a;
  }
  return before + in_diag;
}

void OperandStream::matrix_index(std::int64_t b, std::int64_t t, std::int64_t x, std::int64_t& i,
                                 std::int64_t& j) const {
  const std::int64_t lane = b * width_ + x;
  if (lane_is_row_)
    i = lane, j = t;
  else
    i = t, j = lane;
}

void OperandStream::cell_of(std::int64_t i, std::int64_t j, std::int64_t& b, std::int64_t& t,
                            std::int64_t& x) const {
  const std::int64_t lane = lane_is_row_ ? i : j;
  t = lane_is_row_ ? j : i;
  b = lane / width_;
  x = lane % width_;
}

AddressMap::AddressMap(const ConvLayer& l) : l_(l), eh_(l.ofmap_h()), ew_(l.ofmap_w()) {
  injective_ = (eh_ == 1 || l.stride_h >= l.filter_h) && (ew_ == 1 || l.stride_w >= l.filter_w);
  holes_ = (eh_ - 1) * l.stride_h + l.filter_h > l.ifmap_h ||
           (ew_ - 1) * l.stride_w + l.filter_w > l.ifmap_w;
  const std::int64_t m = eh_ * ew_, k = l.gemm_k();
  row_base_.resize(static_cast<size_t>(m));
  m_row_.resize(static_cast<size_t>(m));
  m_col_.resize(static_cast<size_t>(m));
  col_off_.resize(static_cast<size_t>(k));
  k_row_.resize(static_cast<size_t>(k));
  k_col_.resize(static_cast<size_t>(k));
  for (std::int64_t i = 0; i < m; ++i) {
    const auto u = static_cast<size_t>(i);
    m_row_[u] = (i / ew_) * l.stride_h;
    m_col_[u] = (i % ew_) * l.stride_w;
    row_base_[u] = (m_row_[u] * l.ifmap_w + m_col_[u]) * l.channels;
  }
  const std::int64_t row_len = l.filter_w * l.channels;
  for (std::int64_t j = 0; j < k; ++j) {
    const auto u = static_cast<size_t>(j);
    const std::int64_t r = j / row_len, rest = j % row_len;
    k_row_[u] = r;
    k_col_[u] = rest / l.channels;
    col_off_[u] = r * l.ifmap_w * l.channels + rest;
  }
  SYSTOLE_ASSERT(m > 0 && k > 0, "empty operand");
}

}  // namespace systole::models::scalesim

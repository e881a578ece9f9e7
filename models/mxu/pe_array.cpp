#include "models/mxu/pe_array.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "models/mxu/numerics.h"
#include "sim/core/error.h"

namespace systole::models {

namespace {
std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; }
}  // namespace

PeArray::PeArray(const MxuConfig& cfg)
    : cfg_(cfg),
      R_(static_cast<std::uint32_t>(cfg.rows)),
      C_(static_cast<std::uint32_t>(cfg.cols)),
      int_(cfg.input_type == DataType::kInt8),
      pes_(static_cast<size_t>(R_) * C_),
      row_ring_(static_cast<size_t>(R_) * R_),
      col_ring_(static_cast<size_t>(C_) * C_) {}

std::uint64_t PeArray::submit(PeJob job) {
  SYSTOLE_ASSERT(job.m > 0 && job.k > 0 && job.n > 0, "empty matmul");
  SYSTOLE_ASSERT(job.a.size() == static_cast<size_t>(job.m) * job.k, "A has the wrong size");
  SYSTOLE_ASSERT(job.w.size() == static_cast<size_t>(job.k) * job.n, "W has the wrong size");
  settled_ = false;
  Job j;
  j.out.id = jobs_.size();
  const size_t cells = static_cast<size_t>(job.m) * job.n;
  if (int_)
    j.out.c_int.assign(cells, 0);
  else
    j.out.c_float.assign(cells, 0.0f);
  j.acc_count.assign(cells, 0);
  // Fold geometry (the same as MxuTiming::plan): column blocks outer, row blocks inner.
  std::uint32_t rows = job.k, cols = job.n, t = job.m;
  if (cfg_.dataflow == Dataflow::kOutputStationary) {
    rows = job.m;
    cols = job.n;
    t = job.k;
  } else if (cfg_.dataflow == Dataflow::kInputStationary) {
    rows = job.k;
    cols = job.m;
    t = job.n;
  }
  j.first_fold = static_cast<std::uint32_t>(folds_.size());
  for (std::uint32_t cb = 0; cb < ceil_div(cols, C_); ++cb)
    for (std::uint32_t rb = 0; rb < ceil_div(rows, R_); ++rb) {
      Fold f;
      f.job = j.out.id;
      f.rb = rb;
      f.cb = cb;
      f.rows = std::min(R_, rows - rb * R_);
      f.cols = std::min(C_, cols - cb * C_);
      f.t = t;
      folds_.push_back(f);
      j.expected += os() ? static_cast<std::uint64_t>(f.rows) * f.cols
                         : static_cast<std::uint64_t>(f.t) * f.cols;
    }
  j.folds = static_cast<std::uint32_t>(folds_.size()) - j.first_fold;
  j.in = std::move(job);
  jobs_.push_back(std::move(j));
  return jobs_.back().out.id;
}

void PeArray::force(std::vector<FoldIssue> schedule) {
  forced_ = true;
  for (std::uint32_t g = 0; g < schedule.size(); ++g) {
    SYSTOLE_ASSERT(g < folds_.size(), "schedule for a fold that was not submitted");
    const FoldIssue& s = schedule[g];
    const std::uint32_t T = folds_[g].t;
    SYSTOLE_ASSERT(s.last >= s.first + T - 1 && (T > 1 || s.last == s.first),
                   "a fold's last vector must follow its others");
    if (!os())
      for (std::uint32_t c = 0; c < R_; ++c) forced_load_.emplace(s.load + c, std::make_pair(g, c));
    for (std::uint32_t t = 0; t + 1 < T; ++t)
      forced_stream_.emplace(s.first + t, std::make_pair(g, t));
    forced_stream_.emplace(s.last, std::make_pair(g, T - 1));
  }
}

std::vector<PeResult> PeArray::take_finished() { return std::exchange(finished_, {}); }

bool PeArray::quiet() const {
  for (const Pe& p : pes_)
    if (p.a.valid || p.d.valid || p.wp.valid || p.acc.valid || p.out.valid || p.chain.valid)
      return false;
  for (const Word& w : row_ring_)
    if (w.valid) return false;
  for (const Word& w : col_ring_)
    if (w.valid) return false;
  return true;
}

bool PeArray::awaiting_jobs() const {
  const size_t n = folds_.size();
  return os() ? !streaming_ && next_stream_ == n : !loading_ && next_load_ == n;
}

bool PeArray::may_issue(std::uint32_t g, std::uint64_t FoldIssue::*event, std::uint64_t x) const {
  const Job& jb = jobs_[folds_[g].job];
  return jb.in.ready <= x && (g != jb.first_fold || jb.in.earliest.*event <= x);
}

PeArray::Num PeArray::decode(std::uint16_t code) const {
  Num v;
  if (int_)
    v.i = decode_int8(code);
  else
    v.f = decode_operand(cfg_.input_type, code);
  return v;
}

// Operands of fold f; zero outside the fold (padding). kr / cc: the k index of PE row r and the
// matrix index of PE column c.
PeArray::Num PeArray::stationary_at(const Fold& f, std::uint32_t r, std::uint32_t c) const {
  if (r >= f.rows || c >= f.cols) return Num{};
  const PeJob& in = jobs_[f.job].in;
  const std::uint32_t kr = f.rb * R_ + r, cc = f.cb * C_ + c;
  if (cfg_.dataflow == Dataflow::kWeightStationary)  // PE(r, c) holds W[kr][cc]
    return decode(in.w[static_cast<size_t>(kr) * in.n + cc]);
  return decode(in.a[static_cast<size_t>(cc) * in.k + kr]);  // is: PE(r, c) holds A[cc][kr]
}

PeArray::Num PeArray::row_operand(const Fold& f, std::uint32_t r, std::uint32_t t) const {
  if (r >= f.rows) return Num{};
  const PeJob& in = jobs_[f.job].in;
  const std::uint32_t kr = f.rb * R_ + r;
  switch (cfg_.dataflow) {
    case Dataflow::kWeightStationary:  // row r: A[t][kr]
      return decode(in.a[static_cast<size_t>(t) * in.k + kr]);
    case Dataflow::kInputStationary:  // row r: W[kr][t]
      return decode(in.w[static_cast<size_t>(kr) * in.n + t]);
    case Dataflow::kOutputStationary:  // row r: A[m = kr][k = t]
      break;
  }
  return decode(in.a[static_cast<size_t>(kr) * in.k + t]);
}

PeArray::Num PeArray::column_operand(const Fold& f, std::uint32_t c, std::uint32_t t) const {
  if (c >= f.cols) return Num{};
  const PeJob& in = jobs_[f.job].in;
  return decode(in.w[static_cast<size_t>(t) * in.n + f.cb * C_ + c]);  // os: column c: W[t][n]
}

void PeArray::stream_word(std::uint64_t x, std::uint32_t g, std::uint32_t t,
                          std::vector<Word>& row_in, std::vector<Word>& col_in) {
  const Fold& f = folds_[g];
  Job& jb = jobs_[f.job];
  if (jb.in.ready > x) hazard(x, 0, 0, "operands streamed before they are ready", Word{});
  const bool first_fold = g == jb.first_fold, last_fold = g + 1 == jb.first_fold + jb.folds;
  if (t == 0 && first_fold) {
    jb.out.first_stream = x;
    if (os()) jb.out.start = x;
  }
  if (t == 0 && last_fold) jb.out.last_fold = x;
  if (t + 1 == f.t && first_fold) jb.out.first_fold_last = x;
  if (t + 1 == f.t && last_fold) jb.out.stream_end = x + 1;
  Word w;
  w.valid = true;
  w.last = t + 1 == f.t;
  w.fold = g;
  w.t = t;
  for (std::uint32_t i = 0; i < R_; ++i) {
    w.v = row_operand(f, i, t);
    row_in[i] = w;
  }
  if (os())
    for (std::uint32_t j = 0; j < C_; ++j) {
      w.v = column_operand(f, j, t);
      col_in[j] = w;
    }
}

void PeArray::load_row(std::uint32_t g, std::uint32_t c, std::vector<Word>& col_in) {
  // Row c of the shift carries the words of PE row R-1-c: the deepest row goes first.
  const Fold& f = folds_[g];
  Word w;
  w.valid = true;
  w.fold = g;
  w.row = R_ - 1 - c;
  for (std::uint32_t j = 0; j < C_; ++j) {
    w.v = stationary_at(f, w.row, j);
    col_in[j] = w;
  }
}

bool PeArray::release_ready(std::uint32_t j) const {
  const std::uint32_t fold = pes_[j].out.fold;
  for (std::uint32_t i = 0; i < R_; ++i) {
    const Pe& p = pes_[static_cast<size_t>(i) * C_ + j];
    if (!p.out.valid || p.out.fold != fold) return false;
    if (i + 1 < R_ && p.chain.valid) return false;
  }
  return true;
}

void PeArray::control(std::uint64_t x, std::vector<Word>& row_in, std::vector<Word>& col_in) {
  if (forced_) {
    if (forced_stream_.count(x) > 1) hazard(x, 0, 0, "two vectors at the input port", Word{});
    if (forced_load_.count(x) > 1) hazard(x, 0, 0, "two tile rows at the weight port", Word{});
    if (auto it = forced_stream_.find(x); it != forced_stream_.end())
      stream_word(x, it->second.first, it->second.second, row_in, col_in);
    if (auto it = forced_load_.find(x); it != forced_load_.end()) {
      const auto [g, c] = it->second;
      Job& jb = jobs_[folds_[g].job];
      if (jb.in.ready > x) hazard(x, 0, 0, "tile loaded before it is ready", Word{});
      if (c == 0 && g == jb.first_fold) jb.out.start = x;
      load_row(g, c, col_in);
    }
    return;
  }
  const auto n_folds = static_cast<std::uint32_t>(folds_.size());
  if (os()) {
    // Stream fold after fold; the last vector of a fold waits until PE(0,0)'s output register
    // is free or drains this cycle (its column releases), so it cannot overwrite a result.
    if (!streaming_ && next_stream_ < n_folds && may_issue(next_stream_, &FoldIssue::first, x)) {
      streaming_ = true;
      stream_t_ = 0;
    }
    if (streaming_) {
      const std::uint32_t T = folds_[next_stream_].t;
      const bool last = stream_t_ + 1 == T;
      if (!last || ((!pes_[0].out.valid || release_ready(0)) &&
                    may_issue(next_stream_, &FoldIssue::last, x))) {
        stream_word(x, next_stream_, stream_t_, row_in, col_in);
        if (last) {
          streaming_ = false;
          ++next_stream_;
        } else {
          ++stream_t_;
        }
      }
    }
    return;
  }
  // ws / is. Streamer: a fold starts once PE(0,0)'s shadow register holds its tile (the tile
  // reached row 0 of column 0, the last word of the shift) and the port is free.
  if (!streaming_ && next_stream_ < n_folds) {
    const Word& s = pes_[0].shadow;
    if (s.valid && !s.last && s.fold == next_stream_ &&
        may_issue(next_stream_, &FoldIssue::first, x)) {
      streaming_ = true;
      stream_t_ = 0;
      started_ = next_stream_;
    }
  }
  if (streaming_) {
    stream_word(x, next_stream_, stream_t_, row_in, col_in);
    if (++stream_t_ == folds_[next_stream_].t) {
      streaming_ = false;
      ++next_stream_;
    }
  }
  // Loader: the next tile may shift in once its operands are ready and the previous fold has
  // started streaming (in this cycle or before): from then on its tile moves from the shadow
  // registers into the PEs along the input wavefront, ahead of the new tile's words.
  if (!loading_ && next_load_ < n_folds) {
    const std::uint32_t g = next_load_;
    Job& jb = jobs_[folds_[g].job];
    if (may_issue(g, &FoldIssue::load, x) &&
        (g == 0 || started_ >= static_cast<std::int64_t>(g) - 1)) {
      loading_ = true;
      load_c_ = 0;
      if (g == jb.first_fold) jb.out.start = x;
    }
  }
  if (loading_) {
    load_row(next_load_, load_c_, col_in);
    if (++load_c_ == R_) {
      loading_ = false;
      ++next_load_;
    }
  }
}

void PeArray::tick(std::uint64_t x) {
  if (settled_) return;
  if (idle() && !forced_ && quiet()) {
    // Every result is out and nothing moves: ticks change nothing until the next job, so the
    // array may skip cycles. Until then padding lanes still carry a fold's first vector (which
    // moves the shadow tiles into use) and tile words may still shift down: they tick on.
    settled_ = true;
    return;
  }
  std::vector<Word> row_in(R_), col_in(C_);
  control(x, row_in, col_in);
  for (std::uint32_t i = 0; i < R_; ++i) row_ring_[(x % R_) * R_ + i] = row_in[i];
  for (std::uint32_t j = 0; j < C_; ++j) col_ring_[(x % C_) * C_ + j] = col_in[j];
  if (os())
    sweep_os(x);
  else
    sweep_ws(x);
  pe_updates_ += static_cast<std::uint64_t>(R_) * C_;
}

PeArray::Num PeArray::mac(Num acc, Num a, Num w) const {
  Num r;
  if (int_)
    r.i = wrap_add(acc.i, wrap_mul(a.i, w.i));
  else
    r.f = acc.f + a.f * w.f;  // the product is exact in fp32: one rounding, in the add
  return r;
}

void PeArray::sweep_ws(std::uint64_t x) {
  // Registers update from their neighbours' values of the previous cycle: sweeping from the
  // bottom-right corner reads every neighbour before it is overwritten.
  for (std::uint32_t i = R_; i-- > 0;)
    for (std::uint32_t j = C_; j-- > 0;) {
      Pe& p = pe(i, j);
      const Word a_in = j == 0 ? row_ring_[((x % R_) + R_ - i) % R_ * R_ + i] : pe(i, j - 1).a;
      const Word wp_in = i == 0 ? col_ring_[((x % C_) + C_ - j) % C_ * C_ + j] : pe(i - 1, j).wp;
      Word d_in;
      if (i > 0) {
        d_in = pe(i - 1, j).d;
      } else if (a_in.valid) {  // row 0 starts every partial sum at zero
        d_in = a_in;
        d_in.v = Num{};
      }
      // The first vector of a fold moves the shadow tile into the PE (the old shadow value:
      // this cycle's latch below writes the next tile).
      if (a_in.valid && (!p.active.valid || p.active.fold != a_in.fold)) {
        if (!p.shadow.valid || p.shadow.last || p.shadow.fold != a_in.fold)
          hazard(x, i, j, "tile not in the shadow registers", a_in);
        p.active = p.shadow;
        p.shadow.last = true;  // consumed
      }
      if (wp_in.valid && wp_in.row == i) {
        if (p.shadow.valid && !p.shadow.last)
          hazard(x, i, j, "shadow tile overwritten before use", wp_in);
        p.shadow = wp_in;
        p.shadow.last = false;
      }
      if (a_in.valid) {
        if (!d_in.valid || d_in.fold != a_in.fold || d_in.t != a_in.t)
          hazard(x, i, j, "operand met the wrong partial sum", a_in);
        p.d = d_in;
        p.d.v = mac(d_in.v, a_in.v, p.active.v);
      } else {
        if (d_in.valid) hazard(x, i, j, "partial sum without its operand", d_in);
        p.d = Word{};
      }
      p.a = a_in;
      p.wp = wp_in;
    }
  for (std::uint32_t j = 0; j < C_; ++j)
    if (pe(R_ - 1, j).d.valid) deliver(x, pe(R_ - 1, j).d, j);
}

void PeArray::sweep_os(std::uint64_t x) {
  // Drain: a column whose output registers all hold the same fold, and whose chain has room,
  // copies them into its shift chain (decided on last cycle's state); otherwise the chain
  // shifts down one row. The bottom register's value leaves the array this cycle.
  for (std::uint32_t j = 0; j < C_; ++j) {
    if (release_ready(j)) {
      for (std::uint32_t i = 0; i < R_; ++i) {
        Pe& p = pe(i, j);
        p.chain = p.out;
        p.chain.row = i;
        p.out = Word{};
      }
    } else {
      for (std::uint32_t i = R_; i-- > 1;) pe(i, j).chain = pe(i - 1, j).chain;
      pe(0, j).chain = Word{};
    }
    if (pe(R_ - 1, j).chain.valid) deliver(x, pe(R_ - 1, j).chain, j);
  }
  for (std::uint32_t i = R_; i-- > 0;)
    for (std::uint32_t j = C_; j-- > 0;) {
      Pe& p = pe(i, j);
      const Word a_in = j == 0 ? row_ring_[((x % R_) + R_ - i) % R_ * R_ + i] : pe(i, j - 1).a;
      const Word w_in = i == 0 ? col_ring_[((x % C_) + C_ - j) % C_ * C_ + j] : pe(i - 1, j).d;
      if (a_in.valid != w_in.valid || (a_in.valid && (a_in.fold != w_in.fold || a_in.t != w_in.t)))
        hazard(x, i, j, "operands of different steps met", a_in.valid ? a_in : w_in);
      if (a_in.valid) {
        const bool first = a_in.t == 0;
        if (first ? p.acc.valid
                  : (!p.acc.valid || p.acc.fold != a_in.fold || p.acc.t + 1 != a_in.t))
          hazard(x, i, j, "accumulation out of order", a_in);
        Word s = a_in;
        s.v = mac(first ? Num{} : p.acc.v, a_in.v, w_in.v);
        if (a_in.last) {
          if (p.out.valid) hazard(x, i, j, "result overwritten before it drained", a_in);
          p.out = s;
          p.acc = Word{};
        } else {
          p.acc = s;
        }
      }
      p.a = a_in;
      p.d = w_in;
    }
}

void PeArray::deliver(std::uint64_t x, const Word& w, std::uint32_t col) {
  const Fold& f = folds_[w.fold];
  Job& jb = jobs_[f.job];
  size_t idx = 0;
  if (os()) {
    if (w.row >= f.rows || col >= f.cols) return;  // padding
    if (jb.done) hazard(x, R_ - 1, col, "result of a finished job", w);
    idx = static_cast<size_t>(f.rb * R_ + w.row) * jb.in.n + f.cb * C_ + col;
    if (jb.acc_count[idx]++ != 0) hazard(x, R_ - 1, col, "result delivered twice", w);
    if (int_)
      jb.out.c_int[idx] = w.v.i;
    else
      jb.out.c_float[idx] = w.v.f;
  } else {
    if (col >= f.cols) return;  // padding column
    if (jb.done) hazard(x, R_ - 1, col, "result of a finished job", w);
    const std::uint32_t c = f.cb * C_ + col;
    idx = cfg_.dataflow == Dataflow::kWeightStationary ? static_cast<size_t>(w.t) * jb.in.n + c
                                                       : static_cast<size_t>(c) * jb.in.n + w.t;
    // The accumulator adds the k folds' partial sums in fold order.
    if (jb.acc_count[idx]++ != f.rb) hazard(x, R_ - 1, col, "partial sums out of order", w);
    if (int_)
      jb.out.c_int[idx] = f.rb == 0 ? w.v.i : wrap_add(jb.out.c_int[idx], w.v.i);
    else
      jb.out.c_float[idx] = f.rb == 0 ? w.v.f : jb.out.c_float[idx] + w.v.f;
  }
  if (++jb.received == jb.expected) {
    jb.done = true;
    jb.out.end = x + 1;
    finished_.push_back(std::move(jb.out));
    ++jobs_done_;
    // A finished job keeps no operand data: copies of the array (PePipeline) stay small.
    jb.in.a = {};
    jb.in.w = {};
    jb.acc_count = {};
  }
}

void PeArray::hazard(std::uint64_t x, std::uint32_t i, std::uint32_t j, const char* what,
                     const Word& w) const {
  throw SimError(fmt::format("PE array {}x{} {}: cycle {}, PE({}, {}): {} (fold {}, vector {})", R_,
                             C_, dataflow_name(cfg_.dataflow), x, i, j, what, w.fold, w.t));
}

}  // namespace systole::models

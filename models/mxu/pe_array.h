#pragma once
// PE-level reference model of one R x C systolic array (plain C++; PeArrayModule clocks it in
// SystemC). Every PE, every cycle, real multiply-accumulates on real values; operands move one
// PE per cycle with the diagonal skew; stationary tiles shift in through the columns; results
// leave at the bottom edge. Its cycle counts define "cycle-exact" for the MXU (README.md);
// hazard detectors in every PE make an illegal schedule an error instead of a wrong number.

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "models/mxu/mxu_config.h"

namespace systole::models {

/// Issue cycles of one fold, to drive the array with a given schedule instead of its
/// controller (tests of how tight the controller's rules are).
struct FoldIssue {
  std::uint64_t load = 0;   ///< ws/is: first cycle of the stationary-tile shift
  std::uint64_t first = 0;  ///< first vector (vectors 1 .. T-2 follow back to back)
  std::uint64_t last = 0;   ///< last vector (>= first + T - 1)
};

/// One matmul C[m x n] = A[m x k] * W[k x n] for the reference array.
struct PeJob {
  std::uint32_t m = 0, k = 0, n = 0;
  std::vector<std::uint16_t> a;  ///< m x k operand codes (numerics.h), row-major
  std::vector<std::uint16_t> w;  ///< k x n operand codes, row-major
  std::uint64_t ready = 0;       ///< first cycle its operands may enter the array
  /// Lower bounds on the issue cycles of its first fold (tile load, first and last vector),
  /// beyond `ready`: how an operand port that delivers late postpones a whole op (PePipeline).
  FoldIssue earliest;
};

/// What the reference array produced for one job, and the cycles it observed.
struct PeResult {
  std::uint64_t id = 0;               ///< submission index
  std::vector<std::int32_t> c_int;    ///< m x n, int8 inputs (int32 accumulate)
  std::vector<float> c_float;         ///< m x n, float inputs (fp32 accumulate)
  std::uint64_t start = 0;            ///< first stationary word entered (os: first streamed word)
  std::uint64_t first_stream = 0;     ///< first vector of its first fold entered
  std::uint64_t last_fold = 0;        ///< first vector of its last fold entered
  std::uint64_t first_fold_last = 0;  ///< last vector of its first fold entered
  std::uint64_t stream_end = 0;       ///< cycle after its last vector entered
  std::uint64_t end = 0;              ///< cycle after its last result left the array
};

/// The reference array: per-PE registers updated every cycle, a controller of local
/// handshakes (README.md), hazard detectors; in MXU clock cycles.
class PeArray {
 public:
  explicit PeArray(const MxuConfig& cfg);
  /// Queues a job behind the others; returns its id.
  std::uint64_t submit(PeJob job);
  /// Replaces the controller by fixed issue cycles of every fold submitted so far, in fold
  /// order (call before the first tick).
  void force(std::vector<FoldIssue> schedule);
  /// Runs clock cycle `cycle` (consecutive calls, starting anywhere). Throws SimError on a
  /// hazard: an operand meeting the wrong partial sum, a tile used before it has arrived or
  /// overwritten before use, an output overwritten before it drained, a port collision.
  void tick(std::uint64_t cycle);
  bool idle() const { return jobs_done_ == jobs_.size(); }
  /// Idle, and nothing in flight any more: ticks change nothing until the next submit, so
  /// cycles may be skipped (tick() itself returns at once).
  bool settled() const { return settled_; }
  /// True once the controller has begun issuing every fold submitted so far (ws/is: every tile
  /// load; os: every stream): from the next tick on it would consider a new job's first fold.
  /// Until then a job submitted later runs exactly as if it had been submitted earlier.
  bool awaiting_jobs() const;
  /// Results finished since the last call, in completion order.
  std::vector<PeResult> take_finished();
  const MxuConfig& config() const { return cfg_; }
  std::uint64_t pe_updates() const { return pe_updates_; }

  /// Operand value in a PE: the int8 value or the exact fp32 value of the code.
  struct Num {
    std::int32_t i = 0;
    float f = 0.0f;
  };
  /// A streamed operand or partial sum in flight, tagged with its fold and vector index.
  struct Word {
    bool valid = false;
    bool last = false;
    std::uint32_t fold = 0;
    std::uint32_t t = 0;    ///< vector (os: reduction step) index within the fold
    std::uint32_t row = 0;  ///< weight words: destination row; drain chain: source row
    Num v;
  };

 private:
  struct Fold {
    std::uint64_t job = 0;
    std::uint32_t rb = 0, cb = 0;      // row block, column block
    std::uint32_t rows = 0, cols = 0;  // PEs used
    std::uint32_t t = 0;               // vectors streamed
  };
  struct Job {
    PeJob in;
    PeResult out;
    std::vector<std::uint32_t> acc_count;  // ws/is: k folds accumulated per output
    std::uint64_t expected = 0, received = 0;
    std::uint32_t first_fold = 0, folds = 0;
    bool done = false;
  };
  struct Pe {
    Word a;       // streamed operand moving right
    Word d;       // moving down: ws/is partial sum; os W operand
    Word wp;      // ws/is: weight word moving down to its row
    Word shadow;  // ws/is: next tile (valid = loaded, last = consumed)
    Word active;  // ws/is: tile in use
    Word acc;     // os: running sum
    Word out;     // os: finished sum waiting to drain (valid = full)
    Word chain;   // os: drain register (column shift chain)
  };

  bool os() const { return cfg_.dataflow == Dataflow::kOutputStationary; }
  Pe& pe(std::uint32_t i, std::uint32_t j) { return pes_[i * C_ + j]; }
  Num decode(std::uint16_t code) const;
  Num stationary_at(const Fold& f, std::uint32_t r, std::uint32_t c) const;
  Num row_operand(const Fold& f, std::uint32_t r, std::uint32_t t) const;
  Num column_operand(const Fold& f, std::uint32_t c, std::uint32_t t) const;
  /// Whether fold g's `event` (FoldIssue::load, first or last) may issue at cycle x: its job's
  /// operands are ready and, for the job's first fold, `earliest` allows it.
  bool may_issue(std::uint32_t g, std::uint64_t FoldIssue::*event, std::uint64_t x) const;
  void control(std::uint64_t x, std::vector<Word>& row_in, std::vector<Word>& col_in);
  void stream_word(std::uint64_t x, std::uint32_t g, std::uint32_t t, std::vector<Word>& row_in,
                   std::vector<Word>& col_in);
  void load_row(std::uint32_t g, std::uint32_t c, std::vector<Word>& col_in);
  bool release_ready(std::uint32_t j) const;
  Num mac(Num acc, Num a, Num w) const;
  /// No valid word in any PE register (stationary tiles aside) or on the input rings.
  bool quiet() const;
  void sweep_ws(std::uint64_t x);
  void sweep_os(std::uint64_t x);
  void deliver(std::uint64_t x, const Word& w, std::uint32_t col);
  [[noreturn]] void hazard(std::uint64_t x, std::uint32_t i, std::uint32_t j, const char* what,
                           const Word& w) const;

  MxuConfig cfg_;
  std::uint32_t R_, C_;
  bool int_;
  std::vector<Pe> pes_;
  std::vector<Word> row_ring_;  // R slots x R rows: vector issued at cycle x in slot x % R
  std::vector<Word> col_ring_;  // C slots x C columns
  std::vector<Job> jobs_;
  std::vector<Fold> folds_;
  size_t jobs_done_ = 0;
  std::vector<PeResult> finished_;
  // Controller state.
  std::uint32_t next_stream_ = 0, next_load_ = 0;
  bool streaming_ = false, loading_ = false;
  std::uint32_t stream_t_ = 0, load_c_ = 0;
  std::int64_t started_ = -1;  // last fold whose first vector has been issued
  // Forced schedule: cycle -> (fold, vector or load row), keyed by cycle.
  bool forced_ = false;
  std::multimap<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> forced_stream_;
  std::multimap<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> forced_load_;
  bool settled_ = false;  // idle and quiet: ticks change nothing until the next submit
  std::uint64_t pe_updates_ = 0;
};

}  // namespace systole::models

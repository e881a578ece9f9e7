#pragma once
// Timing of the GPU L2 and its crossbar (plain C++, picoseconds). An upstream transfer (a
// strided DmaDescriptor) is looked up line by line in one tight loop when it is accepted: the
// tags (L2Tags) decide hits, sector misses and evictions; each line's sectors take their turn,
// first come first served, at its slice (slice_bandwidth), its home partition's crossbar port
// (xbar_bandwidth) and the requester's port (port_bandwidth), and arrive hit_latency later
// (+ far_penalty when the home partition is not the requester's). Missing sectors go down as
// few transfers as the walk allows (consecutive runs merged, equal runs at a constant stride
// as one strided transfer); dirty victims go down as writes, likewise merged. A transfer that
// misses, or needs sectors still in flight for an earlier miss (merged, as an MSHR merges), is
// settled when those fetches have arrived (+ its return latency) and its write-backs have been
// accepted downstream (a full write-back path holds it). Fidelity and assumptions: README.md.

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "models/dma/dma_descriptor.h"
#include "models/l2/l2_address_map.h"
#include "models/l2/l2_config.h"
#include "models/l2/l2_order.h"
#include "models/l2/l2_stats.h"
#include "models/l2/l2_tags.h"

namespace systole::models {

/// What accepting one upstream transfer gave.
struct L2Access {
  std::uint64_t id = 0;  ///< the access (never 0)
  bool settled = false;  ///< done_ps is final; otherwise it waits for downstream transfers
  double done_ps = 0;    ///< when its last sector has arrived (when settled)
};

/// A waiting access that downstream progress settled.
struct L2Settled {
  std::uint64_t id;
  double done_ps;
};

/// The L2 timing model: tags, sector bits, slice/crossbar/port servers, merged misses.
class L2Timing {
 public:
  explicit L2Timing(const L2Config& cfg);

  /// A requester's crossbar port in partition `partition`; returns its index for access().
  std::uint32_t add_port(std::uint32_t partition);
  /// Looks up transfer `d` (a write if `write`) from `port`, accepted at `now_ps`. Its
  /// downstream reads and writes are in fetches() and writebacks() until the next access. A
  /// multicast read also crosses the `also_n` ports `also` (each sector after the crossbar,
  /// at each port in parallel; the access is done when every port has passed it).
  L2Access access(std::uint32_t port, const DmaDescriptor& d, bool write, double now_ps,
                  const std::uint32_t* also = nullptr, std::uint32_t also_n = 0);
  const std::vector<DmaDescriptor>& fetches() const { return fetch_out_; }
  const std::vector<DmaDescriptor>& writebacks() const { return wb_out_; }

  /// The oldest downstream read not yet arrived has arrived at `now_ps`; returns the accesses
  /// this settles (valid until the next call).
  const std::vector<L2Settled>& fetch_arrived(double now_ps);
  /// The oldest downstream write not yet accepted was accepted by the memory at `now_ps`.
  const std::vector<L2Settled>& writeback_accepted(double now_ps);

  const L2Config& config() const { return cfg_; }
  /// Moves the L2 to clock `f` (its cycle counts stay; their times scale), between accesses: a
  /// board's DVFS step between kernels. Servers keep when they are free.
  void set_clock(Hz f);
  const L2Counters& counters() const { return counters_; }
  const L2Tags& tags() const { return tags_; }
  const L2AddressMap& address_map() const { return map_; }
  std::uint32_t partition_of_slice(std::uint32_t slice) const { return partition_[slice]; }
  /// Accesses waiting for downstream transfers.
  std::size_t waiting() const { return waiting_.size(); }

 private:
  // A line of the walk, located, waiting for its lookup. Its sector masks are packed in 16-bit
  // words: a byte store would alias every member the walk keeps in registers.
  struct LineRef {
    std::uint64_t line;
    std::uint32_t set, tag;  // set: over all slices, slice x sets_per_slice + set in it
    std::uint16_t sectors;   // touched | written whole << 8
  };
  // Lines are located and their set blocks prefetched kBatch to 2 x kBatch lines ahead of
  // their lookup: when 2 x kBatch wait, the oldest kBatch are looked up.
  static constexpr std::uint32_t kBatch = 32;
  static constexpr std::uint32_t kMaxSectors = 8;
  struct Merge {  // a hit's merge into an earlier fetch, waiting for its fetch id (flush())
    std::uint32_t set, way;
    std::uint8_t pend;
    bool far;
  };
  struct Run {
    std::uint64_t addr, bytes;
  };
  struct Current {  // the access being walked
    std::uint32_t port = 0, partition = 0;
    const std::uint32_t* also = nullptr;  // multicast: the other ports the data crosses
    std::uint32_t also_n = 0;
    bool write = false;
    double now = 0, done = 0;
    std::uint64_t group = 0;  // its fetch group, opened at its first missing sector
    bool own_near = false, own_far = false;
    std::uint64_t near_dep = 0, far_dep = 0;  // latest earlier fetch groups it merged into
  };
  struct Waiting {
    double done;
    std::uint32_t deps;
  };

  /// A line's touched sectors | those of them written whole << 8, for bytes b0..b1 of it.
  std::uint16_t sectors(std::uint64_t b0, std::uint64_t b1) const;
  /// Queues located lines for their lookup: the batch's count, the map's and the tags'
  /// constants live in this local while a walk runs, not in members that every store of a
  /// LineRef could alias (they were reloaded for each line).
  class Pusher {
   public:
    explicit Pusher(L2Timing& t)
        : t_(t),
          lines_(t.batch_.data()),
          n_(t.batched_),
          set_bits_(t.set_bits_),
          prefetch_(t.tags_.prefetcher()) {}
    ~Pusher() { t_.batched_ = n_; }
    Pusher(const Pusher&) = delete;
    Pusher& operator=(const Pusher&) = delete;
    /// Queues the line under the cursor `c` with its `sectors` (as sectors() gives them).
    void operator()(const L2AddressMap::Cursor& c, std::uint64_t line, std::uint16_t sectors) {
      const std::uint32_t set = (c.slice() << set_bits_) | c.set();
      prefetch_(set);
      lines_[n_++] = {line, set, c.tag(), sectors};
      if (n_ == 2 * kBatch) {
        t_.batched_ = n_;
        t_.flush(kBatch);
        n_ = t_.batched_;
      }
    }

   private:
    L2Timing& t_;
    LineRef* const lines_;
    std::uint32_t n_;
    const std::uint32_t set_bits_;
    const L2Tags::Prefetcher prefetch_;
  };
  void walk_rows(std::uint64_t addr, std::uint64_t rows, std::uint64_t stride, std::uint64_t bytes);
  void walk_row(std::uint64_t addr, std::uint64_t bytes);
  static void row_lines(Pusher& push, L2AddressMap::Cursor& c, std::uint64_t first,
                        std::uint64_t span, std::uint16_t head, std::uint16_t tail,
                        std::uint16_t whole);
  /// Looks up the oldest `n` lines waiting.
  void flush(std::uint32_t n);
  void events(const LineRef& l, std::uint32_t way, std::uint8_t missing, std::uint8_t pend,
              std::uint32_t victim, std::uint8_t dirty);
  void merge_pending(std::uint32_t set, std::uint32_t way, std::uint8_t pend, bool far);
  void fetch(std::uint64_t line, std::uint32_t set, std::uint32_t way, std::uint8_t missing,
             bool far);
  void write_back(std::uint64_t victim_line, std::uint8_t dirty);
  void add_sectors(std::vector<Run>& runs, std::uint64_t line, std::uint8_t mask) const;
  /// Joins bytes addr.. to the last run when they continue it, else starts a run.
  static void add_run(std::vector<Run>& runs, std::uint64_t addr, std::uint64_t bytes) {
    if (!runs.empty() && runs.back().addr + runs.back().bytes == addr)
      runs.back().bytes += bytes;
    else
      runs.push_back({addr, bytes});
  }
  static void to_descriptors(const std::vector<Run>& runs, std::vector<DmaDescriptor>& out);
  L2Access finish_access();
  /// The servers' and latencies' picoseconds at cfg_.clock.
  void set_times();
  void settle(std::uint64_t id, double at_ps);

  L2Config cfg_;
  L2AddressMap map_;
  std::array<LineRef, 2 * kBatch> batch_{};
  std::uint32_t batched_ = 0;
  std::array<Merge, 2 * kBatch> merges_{};
  L2Tags tags_;
  std::uint32_t sectors_, sets_, set_bits_, line_bits_, sector_bits_;
  std::uint8_t all_sectors_;
  std::uint16_t whole_line_;  // sectors() of a whole line
  std::uint64_t line_limit_;  // the address map's
  double near_ps_, far_ps_;   // hit latency, near and far
  // The bandwidth servers, first come first served (as FcfsServer, without its busy sum): when
  // each slice, partition crossbar port and requester port is free again, and the time n
  // sectors hold each (n = 0 .. kMaxSectors; n << sector_bits bytes x ps per byte).
  std::vector<double> slice_free_, xbar_free_, port_free_;
  std::array<double, kMaxSectors + 1> slice_ps_{}, xbar_ps_{}, port_ps_{};
  std::array<std::uint64_t, kMaxSectors + 1> sector_bytes_{};  // n << sector_bits
  std::vector<std::uint32_t> port_partition_;
  std::vector<std::uint32_t> partition_;  // of each slice
  L2Order fetch_order_, wb_order_;
  std::unordered_map<std::uint64_t, Waiting> waiting_;
  std::uint64_t next_id_ = 1;
  Current cur_;
  std::vector<Run> fetch_runs_, wb_runs_;
  std::vector<DmaDescriptor> fetch_out_, wb_out_;
  std::vector<L2Settled> settled_;
  L2Counters counters_;
};

}  // namespace systole::models

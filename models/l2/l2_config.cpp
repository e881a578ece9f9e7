#include "models/l2/l2_config.h"

#include <fmt/format.h>

namespace systole::models {

namespace {

bool is_pow2(std::uint64_t v) { return v > 0 && (v & (v - 1)) == 0; }

[[noreturn]] void fail(const config::Node& n, const std::string& p, const char* key,
                       const std::string& msg) {
  const config::Node* k = n.is_map() ? n.find(key) : nullptr;
  throw ConfigError(k ? k->origin() : n.origin(), p.empty() ? key : p + "." + key, msg);
}

/// The organisation must cut into whole slices of whole sets, a power of two of sets per slice
/// (the set index is a bit field), and lines of whole sectors (at most 8: one byte of bits).
void validate(const L2Config& c, const config::Node& n, const std::string& p) {
  const std::uint64_t line = c.line.value(), sector = c.sector.value();
  if (!is_pow2(line)) fail(n, p, "line", fmt::format("{} B is not a power of two", line));
  if (!is_pow2(sector) || sector > line || line / sector > 8)
    fail(n, p, "sector",
         fmt::format("{} B must be a power of two dividing the {} B line into at most 8 sectors",
                     sector, line));
  const auto slices = static_cast<std::uint64_t>(c.slices());
  const std::uint64_t set_bytes = line * static_cast<std::uint64_t>(c.associativity);
  if (c.capacity.value() % (slices * set_bytes) != 0 ||
      !is_pow2(c.capacity.value() / slices / set_bytes))
    fail(n, p, "capacity",
         fmt::format("{} B over {} slices ({} partitions x {}) of {}-way sets of {} B lines does "
                     "not give a power of two of whole sets per slice",
                     c.capacity.value(), slices, c.partitions, c.slices_per_partition,
                     c.associativity, line));
}

}  // namespace

// Sources (models/l2/README.md has the derivations):
// A100: 40 MB L2 in 2 partitions of 40 slices of 512 KB, 5120 B/clk of read bandwidth
// ([A100-WP] NVIDIA A100 Tensor Core GPU Architecture whitepaper, §4.6.3): 64 B/clk
// per slice. 128 B lines of four 32 B sectors (NVIDIA's answer on the developer forum,
// forums.developer.nvidia.com/t/understanding-l1-tex-cache-sectors-req/312884: "The L1 and L2
// cache line size is 128 bytes" of 4 x 32 B sectors). Ways and MSHRs are unpublished; Accel-Sim's
// calibrated A100 L2 (accel-sim/accel-sim-framework
// gpu-simulator/configs/tested-cfgs/NVIDIA_A100_80GB_PCIe/gpgpusim.config:
// `-gpgpu_cache:dl2 S:256:128:16,...,A:192:4`: 256 sets x 128 B x 16 ways = 512 KB per slice,
// 192 MSHRs per slice). Latencies: pointer chase on A100-80 SXM at 1410 MHz, L2 hit 211 cycles
// (te42kyfo/gpu-benches gpu-latency/a100_80.txt); far partition 1.75x slower (te42kyfo/gpu-benches
// README; GTC'21 "Dissecting the Ampere GPU Architecture through Microbenchmarking"): +158, an
// ASSUMPTION (1.75 x 211 = 369, inside the 340-415 cycles measured on A100 PCIe for 22-33 MB
// footprints, HPMLL/NVIDIA-Hopper-Benchmark RegularUnits/random_latency/a100_pcie.txt).
const config::SchemaOf<L2Config>& L2Config::schema() {
  static const config::SchemaOf<L2Config> s = [] {
    config::SchemaOf<L2Config> b("l2",
                                 "GPU L2: partitions of sectored set-associative slices "
                                 "behind a crossbar, write-back, write-allocate");
    b.bytes("capacity", &L2Config::capacity, std::string("40MiB"), Bytes(1024), Bytes(1ull << 34),
            "total capacity, all partitions (A100 40 MiB, H100 50 MiB)")
        .integer("partitions", &L2Config::partitions, 2, 1, 8,
                 "partitions; a requester's own is near, the others far", "partitions")
        .integer("slices_per_partition", &L2Config::slices_per_partition, 40, 1, 1024,
                 "slices (tag and data banks) per partition; A100: 40 of 512 KiB", "slices")
        .bytes("line", &L2Config::line, std::string("128B"), Bytes(16), Bytes(4096),
               "bytes per tag")
        .bytes("sector", &L2Config::sector, std::string("32B"), Bytes(4), Bytes(4096),
               "bytes per valid and dirty bit; misses fetch whole sectors")
        .integer("associativity", &L2Config::associativity, 16, 1, 64,
                 "ways per set, LRU replacement (ASSUMPTION 16, plausible 8-32: Accel-Sim's A100)",
                 "ways")
        .choice("address_hash", &L2Config::address_hash,
                {{"xor", L2Hash::kXor}, {"none", L2Hash::kNone}}, std::string("xor"),
                "xor: the slice and set fields also take the address bits above them, XOR-folded "
                "(ASSUMPTION: the real hash is unpublished); none: plain interleaving")
        .frequency("clock", &L2Config::clock, std::string("1410MHz"), Hz(1e6), Hz(1e11),
                   "clock of the cycle counts below (A100 boost)")
        .integer("hit_latency", &L2Config::hit_latency, 211, 0, 100000,
                 "near-partition hit, request to data through the crossbar (A100 pointer chase)",
                 "cycles")
        .integer(
            "far_penalty", &L2Config::far_penalty, 158, 0, 100000,
            "added to an access homed in a far partition (ASSUMPTION: A100's far hit 1.75x the "
            "near one, plausible 100-210)",
            "cycles")
        .integer("slice_bandwidth", &L2Config::slice_bandwidth, 64, 1, 1 << 16,
                 "bytes per clock of one slice (A100: 5120 B/clk over 80 slices)", "B/clk")
        .integer("xbar_bandwidth", &L2Config::xbar_bandwidth, 2560, 1, 1 << 20,
                 "bytes per clock of one partition's crossbar port (ASSUMPTION: its slices' "
                 "sum, plausible 1280-2560)",
                 "B/clk")
        .integer("port_bandwidth", &L2Config::port_bandwidth, 64, 1, 1 << 20,
                 "bytes per clock of one requester's crossbar port (ASSUMPTION, plausible 32-128)",
                 "B/clk")
        .integer("mshrs_per_slice", &L2Config::mshrs_per_slice, 192, 1, 1 << 16,
                 "lines a slice may have in flight from memory (ASSUMPTION: Accel-Sim's A100, "
                 "plausible 32-256)",
                 "lines")
        .integer("transfer_queue", &L2Config::transfer_queue, 16, 1, 1 << 20,
                 "transfers a requester may have accepted and not yet completed; a full queue "
                 "refuses the next until one completes (ASSUMPTION, as hbm.transfer_queue)",
                 "transfers");
    b.check(validate);
    return b;
  }();
  return s;
}

}  // namespace systole::models

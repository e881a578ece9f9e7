// Staging GEMM operands in CMEM: the mapping stages A when it is re-read, the lowered program
// reads each staged element from HBM once, and every CMEM access is ordered after the copy it
// reads (read after write) and every copy after the previous readers of its place (write after
// read), for random shapes, both core splits, partial staging and repeated instances.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

#include "sim/config/node.h"
#include "tests/support/tiny_chip.h"
#include "workloads/lowering/tpu_gemm_lowering.h"

using namespace systole;
using test::chip_with;
using test::gemm;

namespace {

struct Traffic {
  std::uint64_t hbm_loaded = 0, hbm_stored = 0, cmem_loaded = 0, cmem_stored = 0;
};

/// Checks the CMEM hazards of a program (a CMEM access's place is its descriptor's address):
/// a load depends on the last store to its place, a store on every load of its place since the
/// store before it. Returns the bytes moved to and from each memory.
Traffic check_cmem_order(const models::Program& prog, std::uint64_t cmem_capacity) {
  Traffic t;
  std::map<std::uint64_t, std::uint32_t> last_store;
  std::map<std::uint64_t, std::vector<std::uint32_t>> loads_since;
  for (std::uint32_t i = 0; i < prog.ops.size(); ++i) {
    const auto& op = prog.ops[i];
    if (op.kind != models::OpKind::kLoad && op.kind != models::OpKind::kStore) continue;
    const bool load = op.kind == models::OpKind::kLoad;
    if (op.memory == 0) {
      (load ? t.hbm_loaded : t.hbm_stored) += op.bytes;
      continue;
    }
    REQUIRE(op.memory == 1);
    (load ? t.cmem_loaded : t.cmem_stored) += op.bytes;
    std::uint64_t end = op.mem.addr + op.mem.row_bytes;  // one past its last byte
    for (const auto& d : op.mem.dims) end += (d.count - 1) * d.stride;
    REQUIRE(end <= cmem_capacity);
    const std::set<std::uint32_t> deps(op.deps.begin(), op.deps.end());
    if (load) {
      const auto w = last_store.find(op.mem.addr);
      REQUIRE(w != last_store.end());  // nothing reads CMEM before it was written
      CHECK(deps.count(w->second) == 1);
      loads_since[op.mem.addr].push_back(i);
    } else {
      for (const auto r : loads_since[op.mem.addr]) CHECK(deps.count(r) == 1);
      loads_since[op.mem.addr].clear();
      last_store[op.mem.addr] = i;
      // A copy of an A tile just loaded from HBM into the slot it reads, or a tile's partial
      // sums after the matmuls that produced them.
      bool from_hbm = false, from_mxu = false;
      for (const auto d : op.deps) {
        const auto& p = prog.ops[d];
        from_hbm |= p.kind == models::OpKind::kLoad && p.memory == 0 &&
                    p.sram_addr == op.sram_addr && p.bytes == op.bytes;
        from_mxu |= p.kind == models::OpKind::kMatmul;
      }
      CHECK((from_hbm || from_mxu));
    }
  }
  return t;
}

}  // namespace

TEST_CASE("GPT-3 projections stage A in CMEM and read every operand from HBM once",
          "[unit][mapping]") {
  const auto chip = chip_with("chip: {}");  // TPU v4: 128 MiB CMEM
  // qkv_proj of a GPT-3 175B block, prefill 2048: A is 48 MiB, re-read once per n tile.
  const auto l = gemm(2048, 3 * 12288, 12288);
  const auto mp = workloads::map_gemm(chip, l);
  INFO(mp.tile_text());
  CHECK(mp.cmem_k == l.k);
  const std::uint64_t M = 2048, N = 3 * 12288, K = 12288;
  CHECK(mp.bounds.planned_bytes == mp.bounds.compulsory_bytes);
  const auto t = check_cmem_order(workloads::lower_gemm(chip, l, mp), 128ull << 20);
  CHECK(t.hbm_loaded == (M * K + K * N) * 2);
  CHECK(t.hbm_stored == M * N * 2);
  CHECK(t.cmem_stored == M * K * 2);  // each A element copied once
  CHECK(t.cmem_loaded + t.cmem_stored == mp.cmem_bytes);
  // mlp_down: A (2048 x 49152, 192 MiB) does not fit, C's partial sums (96 MiB) do: K runs in
  // chunks and every operand still moves once.
  const auto down = gemm(2048, 12288, 4 * 12288);
  const auto mpd = workloads::map_gemm(chip, down);
  INFO(mpd.tile_text());
  CHECK(mpd.k_chunked);
  CHECK(mpd.bounds.planned_bytes == mpd.bounds.compulsory_bytes);
  // A chip without CMEM (TPU v1-like) stages nothing.
  const auto none = workloads::map_gemm(chip_with("chip: {cmem: {capacity: 0B}}"), l);
  CHECK(none.cmem_k == 0);
  CHECK(none.bounds.planned_bytes > mp.bounds.planned_bytes);
  // A decode GEMM re-reads almost nothing: staging would only add copies.
  CHECK(workloads::map_gemm(chip, gemm(8, 8192, 8192)).cmem_k == 0);
}

TEST_CASE("random GEMMs: staged programs keep CMEM reads after their copies", "[unit][mapping]") {
  std::mt19937_64 rng(77);
  std::uniform_int_distribution<int> dim(1, 2500), pick(0, 3), count(1, 3);
  // Small VMEMs force many n tiles (A re-read); small CMEMs force partial staging.
  const char* chips[] = {"chip: {vmem: {capacity: 1MiB}, cmem: {capacity: 2MiB}}",
                         "chip: {tensor_cores: 1, mxus_per_core: 2, mxu: {rows: 32, cols: 16}, "
                         "vmem: {capacity: 128KiB}, cmem: {capacity: 512KiB}, dma: {engines: 3}}",
                         "chip: {tensor_cores: 3, mxus_per_core: 1, mxu: {rows: 8, cols: 8}, "
                         "vmem: {capacity: 64KiB}, cmem: {capacity: 96KiB}}",
                         // Room for C's partial sums but not all of A: K runs in chunks.
                         "chip: {vmem: {capacity: 1MiB}, cmem: {capacity: 2MiB}}"};
  int staged = 0, partial = 0, split_m = 0, chunked = 0, blocked = 0, panel = 0;
  for (int i = 0; i < 200; ++i) {
    const int c = pick(rng);
    const auto chip = chip_with(chips[c]);
    // On the last chip, few rows and wide outputs (C's partial sums fit, A is re-read) and a
    // deep K (A does not fit).
    const bool deep = c == 3;
    const int dm = deep ? 64 + dim(rng) / 13 : dim(rng), dn = deep ? 1000 + dim(rng) / 5 : dim(rng),
              dk = deep ? 3000 + 2 * dim(rng) : dim(rng);
    const auto l = gemm(dm, std::max(dn, 1), dk);
    INFO("case " << i << ": chip " << c << ", " << l.shape());
    const auto mp = workloads::map_gemm(chip, l);
    INFO("tile " << mp.tile_text());
    const std::int64_t n = count(rng);
    models::Program prog;
    workloads::ProgramBuilder b(chip, prog);
    workloads::append_gemm(b, l, mp, n);
    std::uint64_t macs = 0;
    for (std::uint32_t j = 0; j < prog.ops.size(); ++j) {
      for (auto d : prog.ops[j].deps) REQUIRE(d < j);
      if (prog.ops[j].kind == models::OpKind::kMatmul)
        macs += std::uint64_t{prog.ops[j].m} * prog.ops[j].k * prog.ops[j].n;
    }
    CHECK(macs == l.macs() * static_cast<std::uint64_t>(n));  // every MAC once, row blocks too
    blocked += mp.row_block < l.rows();
    panel += mp.b_panel;
    const auto t = check_cmem_order(prog, chip.cmem.capacity.value());
    const auto M = static_cast<std::uint64_t>(l.m), N = static_cast<std::uint64_t>(l.n),
               ks = static_cast<std::uint64_t>(mp.k_chunked ? l.k : mp.cmem_k);
    const std::uint64_t chunks =
        mp.k_chunked ? static_cast<std::uint64_t>((l.k + mp.cmem_k - 1) / mp.cmem_k) : 1;
    const auto reps = static_cast<std::uint64_t>(n);
    CHECK(t.hbm_loaded + t.hbm_stored == mp.bounds.planned_bytes * reps);
    CHECK(t.hbm_stored == M * N * 2 * reps);
    CHECK(t.cmem_stored == (M * ks * 2 + (chunks - 1) * M * N * 4) * reps);
    CHECK(t.cmem_loaded + t.cmem_stored == mp.cmem_bytes * reps);
    if (mp.cmem_k > 0) {
      ++staged;
      partial += mp.cmem_k < l.k && !mp.k_chunked;
      chunked += mp.k_chunked;
      split_m += !mp.split_n;
      CHECK((mp.cmem_k == l.k || mp.cmem_k % mp.tk == 0));
    }
  }
  // The cases exercise what they are meant to.
  CHECK(staged > 30);
  CHECK(partial > 5);
  CHECK(split_m > 5);
  CHECK(chunked > 5);
  CHECK(blocked > 5);  // A fits CMEM only in row blocks
  CHECK(panel > 5);    // B stays in VMEM across m tiles
}

TEST_CASE("square bf16 GEMMs on TPU v4 move at most 2.5x their compulsory HBM bytes",
          "[unit][mapping]") {
  // Issue 10 target, set before measuring: an A panel held in CMEM while B streams (16384^3
  // needs about 3 GiB, not the 14.6 GiB the mapping moved before row blocks and B panels).
  const auto chip = chip_with("chip: {}");
  for (const std::int64_t s : {1024, 2048, 4096, 8192, 16384}) {
    const auto l = gemm(s, s, s);
    const auto mp = workloads::map_gemm(chip, l);
    INFO(s << "^3: tile " << mp.tile_text() << ", " << mp.bounds.planned_bytes << " B");
    CHECK(static_cast<double>(mp.bounds.planned_bytes) <=
          2.5 * static_cast<double>(mp.bounds.compulsory_bytes));
    // What the lowered program moves is what the mapping planned.
    models::Program prog;
    workloads::ProgramBuilder b(chip, prog);
    workloads::append_gemm(b, l, mp);
    const auto t = check_cmem_order(prog, chip.cmem.capacity.value());
    CHECK(t.hbm_loaded + t.hbm_stored == mp.bounds.planned_bytes);
  }
}

// L2 bandwidth by load path and by active SM count, for tests/validation/gpu (run by l2bw.sh).
// What limits an SM's reads from a warm L2: its load path (LD), its bulk copy engine (TMA,
// cp.async.bulk into shared memory, completing on an mbarrier), or the L2 and crossbar shared by
// all SMs; and whether a TMA multicast to a 2-CTA cluster delivers more bytes per SM than unicast.
//   ld:    one 1024-thread block per SM, float4 __ldcg loads, U independent loads per thread.
//   tma:   one block per SM, one thread keeps N bulk copies of C bytes in flight (ring of N stages).
//   clus:  2-CTA clusters, rounds of N stages: each CTA copies C/2 bytes multicast to both CTAs
//          (mcast) or C bytes to itself (ucast); a cluster barrier ends each round.
// Every launch puts one block on each SM (200 KiB of shared memory each); only blocks with index
// < S (clusters with index < S/2) work, the others exit at once.
// Each working block reads `per_block` bytes: chunks b, b+A, b+2A, ... (mod footprint/C) of the
// footprint, A = working blocks. Per block: clock64 and %globaltimer at start and end.
// Output (CSV on stdout): per-SM bytes per SM cycle (mean over working blocks), the aggregate
// GB/s (bytes / (last end - first start) on %globaltimer) and the SM clock (cycles / ns).
// Later rounds (l2bw.sh lists them) add: tmav (issue variants), tma2d (2D tensor copies through
// a tensor map), ld_smid (SMs chosen by %smid, per-SM rates) and a batch timer (round 9).
// Written for this project (method: TMA/bulk-copy PTX as in the PTX ISA manual, sections on
// cp.async.bulk and mbarrier); no code taken from elsewhere. The helpers it shares with
// smemfill.cu are in ptx_async.cuh.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "ptx_async.cuh"

namespace cg = cooperative_groups;

struct Stamp {
  unsigned long long bytes, cycles, t0, t1;
};

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// The same wait with mbarrier.test_wait (never suspends: the thread spins), for round 7.
__device__ __forceinline__ void mbar_spin(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n S: mbarrier.test_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra S;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_copy_mcast(unsigned dst, const void* src, unsigned bytes,
                                                unsigned bar, unsigned short mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1], %2, [%3], %4;" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar), "h"(mask)
      : "memory");
}

__global__ void ld_kernel(const float4* p, size_t chunks, int unroll, unsigned active,
                          unsigned long long per_block, Stamp* out, float* sink) {
  unsigned sm = blockIdx.x;  // one block per SM (shared memory), so blocks < active = SMs
  if (sm >= active) return;
  __syncthreads();
  unsigned long long c0 = clock64(), t0 = gtimer();
  size_t per_chunk4 = size_t(blockDim.x) * unroll;  // float4s per chunk
  unsigned long long n = per_block / (per_chunk4 * 16);
  float acc = 0.f;
  size_t k = sm;
  for (unsigned long long i = 0; i < n; ++i) {
    const float4* q = p + (k % chunks) * per_chunk4 + threadIdx.x;
    float4 v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u)
      if (u < unroll) v[u] = __ldcg(q + u * blockDim.x);
#pragma unroll
    for (int u = 0; u < 8; ++u)
      if (u < unroll) acc += v[u].x + v[u].y + v[u].z + v[u].w;
    k += active;
  }
  __syncthreads();
  unsigned long long c1 = clock64(), t1 = gtimer();
  if (acc == 12345.678f) *sink = acc;  // keeps the loads; never true on zeroed data
  if (threadIdx.x == 0) out[sm] = {n * per_chunk4 * 16, c1 - c0, t0, t1};
}

__global__ void tma_kernel(const char* p, size_t chunks, unsigned chunk, unsigned stages,
                           unsigned active, unsigned long long per_block, Stamp* out) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) unsigned long long bars[32];
  unsigned sm = blockIdx.x;
  if (sm >= active || threadIdx.x != 0) return;
  for (unsigned s = 0; s < stages; ++s) mbar_init(smem_addr(&bars[s]), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned long long c0 = clock64(), t0 = gtimer();
  unsigned long long n = per_block / chunk;
  size_t k = sm;
  for (unsigned long long i = 0; i < n; ++i) {
    unsigned s = unsigned(i % stages);
    unsigned bar = smem_addr(&bars[s]);
    if (i >= stages) mbar_wait(bar, unsigned((i / stages - 1) & 1));
    mbar_expect(bar, chunk);
    bulk_copy(smem_addr(smem + size_t(s) * chunk), p + (k % chunks) * chunk, chunk, bar);
    k += active;
  }
  for (unsigned long long i = (n > stages ? n - stages : 0); i < n; ++i)
    mbar_wait(smem_addr(&bars[i % stages]), unsigned((i / stages) & 1));
  unsigned long long c1 = clock64(), t1 = gtimer();
  out[sm] = {n * chunk, c1 - c0, t0, t1};
}

// Variants of tma_kernel for round 2: `alive` keeps the warp's other lanes (they wait at the end);
// `split` issues each stage as that many copies on one barrier; `batch` issues all stages, then
// waits for all (rounds); `issuers` warps each run their own ring of stages/issuers stages.
__global__ void tma_var_kernel(const char* p, size_t chunks, unsigned chunk, unsigned stages,
                               unsigned active, unsigned long long per_block, int alive,
                               unsigned split, int batch, Stamp* out, int spin = 0) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) unsigned long long bars[32];
  unsigned sm = blockIdx.x;
  unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, issuers = blockDim.x / 32;
  if (sm >= active) return;
  if (!alive && lane != 0) return;
  unsigned ring = stages / issuers;  // stages of this warp: [warp*ring, (warp+1)*ring)
  if (lane == 0)
    for (unsigned s = 0; s < ring; ++s) mbar_init(smem_addr(&bars[warp * ring + s]), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned long long c0 = clock64(), t0 = gtimer();
  unsigned long long n = per_block / chunk / issuers;  // copies (stages' worth) per warp
  size_t k = size_t(sm) * issuers + warp;
  size_t step = size_t(active) * issuers;
  unsigned piece = chunk / split;
  if (lane == 0) {
    for (unsigned long long i = 0; i < n; ++i) {
      unsigned s = warp * ring + unsigned(i % ring);
      unsigned bar = smem_addr(&bars[s]);
      if (!batch && i >= ring) {
        if (spin)
          mbar_spin(bar, unsigned((i / ring - 1) & 1));
        else
          mbar_wait(bar, unsigned((i / ring - 1) & 1));
      }
      if (batch && i >= ring && i % ring == 0)
        for (unsigned t = 0; t < ring; ++t)
          mbar_wait(smem_addr(&bars[warp * ring + t]), unsigned((i / ring - 1) & 1));
      mbar_expect(bar, chunk);
      const char* src = p + (k % chunks) * chunk;
      for (unsigned q = 0; q < split; ++q)
        bulk_copy(smem_addr(smem + size_t(s) * chunk + q * piece), src + q * piece, piece, bar);
      k += step;
    }
    for (unsigned long long i = (n > ring ? n - ring : 0); i < n; ++i)
      mbar_wait(smem_addr(&bars[warp * ring + unsigned(i % ring)]), unsigned((i / ring) & 1));
  }
  if (alive) __syncthreads();
  unsigned long long c1 = clock64(), t1 = gtimer();
  if (threadIdx.x == 0) out[sm] = {n * chunk * issuers, c1 - c0, t0, t1};
}

// Round 4: ld_kernel's loads on SMs chosen by %smid (smid % every == 0 and smid < below), to see
// whether SMs share a link to the L2 (TPC: SM pairs; GPC: groups of about 16-18).
// Round 5: the same loads on blocks < below (by_block), chunk k = block + step * i (step 0: the
// grid size, as round 4), to separate the chunk pattern from the choice of SMs.
__global__ void ld_smid_kernel(const float4* p, size_t chunks, unsigned every, unsigned below,
                               unsigned long long per_block, Stamp* out, unsigned* ids,
                               float* sink, int by_block, unsigned step, unsigned from) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (threadIdx.x == 0) ids[blockIdx.x] = sm;
  unsigned who = by_block ? blockIdx.x : sm;
  if (who % every != 0 || who >= below || who < from) return;
  __syncthreads();
  unsigned long long c0 = clock64(), t0 = gtimer();
  const unsigned unroll = 8;
  size_t per_chunk4 = size_t(blockDim.x) * unroll;
  unsigned long long n = per_block / (per_chunk4 * 16);
  float acc = 0.f;
  size_t k = blockIdx.x;
  for (unsigned long long i = 0; i < n; ++i) {
    const float4* q = p + (k % chunks) * per_chunk4 + threadIdx.x;
    float4 v[unroll];
#pragma unroll
    for (unsigned u = 0; u < unroll; ++u) v[u] = __ldcg(q + u * blockDim.x);
#pragma unroll
    for (unsigned u = 0; u < unroll; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
    k += step ? step : gridDim.x;
  }
  __syncthreads();
  unsigned long long c1 = clock64(), t1 = gtimer();
  if (acc == 12345.678f) *sink = acc;
  if (threadIdx.x == 0) out[blockIdx.x] = {n * per_chunk4 * 16, c1 - c0, t0, t1};
}

// Round 8: 2D tensor copies (cp.async.bulk.tensor.2d through a tensor map, 128-byte swizzle) of
// box_rows x 64 bf16 tiles from an 8192 x 1024 bf16 array (16 MiB), as GEMM kernels load tiles;
// `issuers` warps each keep a ring of stages / issuers copies, lane 0 issuing.
__global__ void tma2d_kernel(const __grid_constant__ CUtensorMap tmap, unsigned box_rows,
                             unsigned stages, unsigned active, unsigned long long per_block,
                             Stamp* out) {
  extern __shared__ __align__(128) char smem[];  // the 1 KiB-aligned base below: 128B swizzle
  __shared__ __align__(8) unsigned long long bars[32];
  unsigned sm = blockIdx.x;
  unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, issuers = blockDim.x / 32;
  if (sm >= active) return;
  const unsigned chunk = box_rows * 64 * 2;
  const unsigned base = (smem_addr(smem) + 1023u) & ~1023u;
  unsigned ring = stages / issuers;
  if (lane == 0)
    for (unsigned s = 0; s < ring; ++s) mbar_init(smem_addr(&bars[warp * ring + s]), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned long long c0 = clock64(), t0 = gtimer();
  unsigned long long n = per_block / chunk / issuers;
  const unsigned col_tiles = 1024 / 64, row_tiles = 8192 / box_rows;
  size_t k = size_t(sm) * issuers + warp;
  size_t step = size_t(active) * issuers;
  if (lane == 0) {
    for (unsigned long long i = 0; i < n; ++i) {
      unsigned s = warp * ring + unsigned(i % ring);
      unsigned bar = smem_addr(&bars[s]);
      if (i >= ring) mbar_wait(bar, unsigned((i / ring - 1) & 1));
      mbar_expect(bar, chunk);
      int c = int((k % col_tiles) * 64), r = int(((k / col_tiles) % row_tiles) * box_rows);
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3}], [%4];" ::"r"(base + s * chunk),
          "l"(&tmap), "r"(c), "r"(r), "r"(bar)
          : "memory");
      k += step;
    }
    for (unsigned long long i = (n > ring ? n - ring : 0); i < n; ++i)
      mbar_wait(smem_addr(&bars[warp * ring + unsigned(i % ring)]), unsigned((i / ring) & 1));
  }
  __syncthreads();
  unsigned long long c1 = clock64(), t1 = gtimer();
  if (threadIdx.x == 0) out[sm] = {n * chunk * issuers, c1 - c0, t0, t1};
}

// Round 9: one thread issues n 2D copies (16 KiB boxes) back to back, each on its own mbarrier,
// then waits for all: cycles per batch, averaged over `reps` batches (as a kernel whose stages
// cover all its k-tiles issues them: cuBLAS's 1024x1024x512 in data/*_kfixed_run1.csv).
__global__ void tma2d_batch_kernel(const __grid_constant__ CUtensorMap tmap, unsigned n,
                                   unsigned reps, unsigned active, Stamp* out) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) unsigned long long bars[32];
  unsigned sm = blockIdx.x;
  if (sm >= active || threadIdx.x != 0) return;
  const unsigned chunk = 128 * 64 * 2;
  const unsigned base = (smem_addr(smem) + 1023u) & ~1023u;
  for (unsigned s = 0; s < n; ++s) mbar_init(smem_addr(&bars[s]), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned long long total = 0;
  size_t k = sm * 7;
  for (unsigned r = 0; r < reps; ++r) {
    unsigned long long c0 = clock64();
    for (unsigned s = 0; s < n; ++s) {
      unsigned bar = smem_addr(&bars[s]);
      mbar_expect(bar, chunk);
      int c = int((k % 16) * 64), row = int(((k / 16) % 64) * 128);
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3}], [%4];" ::"r"(base + s * chunk),
          "l"(&tmap), "r"(c), "r"(row), "r"(bar)
          : "memory");
      ++k;
    }
    for (unsigned s = 0; s < n; ++s) mbar_wait(smem_addr(&bars[s]), r & 1);
    total += clock64() - c0;
  }
  out[sm] = {n, total / reps, 0, 0};
}

// One warp per CTA; lane 0 issues, the whole warp waits and joins the cluster barrier.
__global__ void cluster_kernel(const char* p, size_t chunks, unsigned chunk, unsigned stages,
                               unsigned active_clusters, unsigned long long per_block,
                               int mcast, Stamp* out) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) unsigned long long bars[32];
  cg::cluster_group cl = cg::this_cluster();
  unsigned rank = cl.block_rank();
  unsigned cid = blockIdx.x / 2;
  bool on = cid < active_clusters;
  if (threadIdx.x == 0)
    for (unsigned s = 0; s < stages; ++s) mbar_init(smem_addr(&bars[s]), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cl.sync();
  if (!on) return;  // both CTAs of a cluster agree
  unsigned long long c0 = clock64(), t0 = gtimer();
  unsigned long long rounds = per_block / (unsigned long long)(chunk) / stages;
  size_t k = mcast ? cid : blockIdx.x;  // multicast: the pair reads one chunk per stage
  size_t step = mcast ? active_clusters : 2 * active_clusters;
  unsigned half = chunk / 2;
  for (unsigned long long r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0)
      for (unsigned s = 0; s < stages; ++s) {
        unsigned bar = smem_addr(&bars[s]);
        unsigned dst = smem_addr(smem + size_t(s) * chunk);
        const char* src = p + (k % chunks) * chunk;
        mbar_expect(bar, chunk);
        if (mcast)
          bulk_copy_mcast(dst + rank * half, src + rank * half, half, bar, 0x3);
        else
          bulk_copy(dst, src, chunk, bar);
        k += step;
      }
    __syncwarp();
    for (unsigned s = 0; s < stages; ++s) mbar_wait(smem_addr(&bars[s]), unsigned(r & 1));
    cl.sync();
  }
  unsigned long long c1 = clock64(), t1 = gtimer();
  if (threadIdx.x == 0) out[blockIdx.x] = {rounds * stages * chunk, c1 - c0, t0, t1};
}

struct Summary {
  int blocks;
  double per_sm_b_per_clk, agg_gb_s, ghz;
};

static Summary summarize(const std::vector<Stamp>& st) {
  Summary s{0, 0, 0, 0};
  unsigned long long first = ~0ull, last = 0, bytes = 0, cyc = 0, ns = 0;
  for (const Stamp& x : st) {
    if (x.cycles == 0) continue;
    ++s.blocks;
    s.per_sm_b_per_clk += double(x.bytes) / double(x.cycles);
    bytes += x.bytes;
    cyc += x.cycles;
    ns += x.t1 - x.t0;
    first = std::min(first, x.t0);
    last = std::max(last, x.t1);
  }
  if (s.blocks == 0) return s;
  s.per_sm_b_per_clk /= s.blocks;
  s.agg_gb_s = double(bytes) / double(last - first);
  s.ghz = double(cyc) / double(ns);
  return s;
}

static Stamp* g_out;
static int g_sms;

static std::vector<Stamp> fetch(int n) {
  std::vector<Stamp> st(n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(st.data(), g_out, n * sizeof(Stamp), cudaMemcpyDeviceToHost));
  CHECK(cudaMemset(g_out, 0, 1024 * sizeof(Stamp)));
  return st;
}

static void report(const char* path, size_t footprint, unsigned chunk, unsigned depth,
                   unsigned active, const Summary& s) {
  std::printf("%s,%zu,%u,%u,%u,%d,%.2f,%.1f,%.3f\n", path, footprint, chunk, depth, active,
              s.blocks, s.per_sm_b_per_clk, s.agg_gb_s, s.ghz);
  std::fflush(stdout);
}

static const size_t kSmem = 200 * 1024;  // one block per SM

static void run_ld(const char* buf, size_t footprint, int unroll, unsigned active) {
  size_t chunk = size_t(1024) * 16 * unroll;
  unsigned long long per_block = 128ull << 20;
  for (int warm = 1; warm >= 0; --warm) {
    ld_kernel<<<g_sms, 1024, kSmem>>>(reinterpret_cast<const float4*>(buf), footprint / chunk,
                                      unroll, active,
                                      warm ? std::max(footprint / active, chunk) : per_block, g_out,
                                      reinterpret_cast<float*>(g_out + 1000));
    Summary s = summarize(fetch(g_sms));
    if (!warm) report("ld", footprint, unsigned(chunk), unroll, active, s);
  }
}

static void run_tma(const char* buf, size_t footprint, unsigned chunk, unsigned stages,
                    unsigned active) {
  unsigned long long per_block = 128ull << 20;
  for (int warm = 1; warm >= 0; --warm) {
    tma_kernel<<<g_sms, 32, kSmem>>>(buf, footprint / chunk, chunk, stages, active,
                                     warm ? std::max<size_t>(footprint / active, chunk * stages)
                                          : per_block,
                                     g_out);
    Summary s = summarize(fetch(g_sms));
    if (!warm) report("tma", footprint, chunk, stages, active, s);
  }
}

/// A launch of `grid` blocks of 32 threads in 2-CTA clusters with kSmem of shared memory each;
/// `attr` (the cluster shape) must outlive the returned config.
static cudaLaunchConfig_t pair_clusters(unsigned grid, cudaLaunchAttribute& attr) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(32);
  cfg.dynamicSmemBytes = kSmem;
  attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cfg;
}

static void run_cluster(const char* buf, size_t footprint, unsigned chunk, unsigned stages,
                        unsigned clusters, int mcast, int max_clusters) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = pair_clusters(2 * max_clusters, attr);
  unsigned long long per_block = 128ull << 20;
  for (int warm = 1; warm >= 0; --warm) {
    unsigned long long pb =
        warm ? std::max<size_t>(footprint / clusters, size_t(chunk) * stages) : per_block;
    CHECK(cudaLaunchKernelEx(&cfg, cluster_kernel, buf, footprint / chunk, chunk, stages,
                             clusters, pb, mcast, g_out));
    Summary s = summarize(fetch(2 * max_clusters));
    if (!warm) report(mcast ? "clus_mcast" : "clus_ucast", footprint, chunk, stages, 2 * clusters, s);
  }
}

static void run_tma_var(const char* buf, size_t footprint, unsigned chunk, unsigned stages,
                        unsigned active, int alive, unsigned split, int batch, unsigned issuers,
                        int spin = 0) {
  unsigned long long per_block = 128ull << 20;
  char name[64];
  std::snprintf(name, sizeof name, "tmav_a%d_s%u_b%d_w%u%s", alive, split, batch, issuers,
                spin ? "_spin" : "");
  for (int warm = 1; warm >= 0; --warm) {
    unsigned long long pb =
        warm ? std::max<size_t>(footprint / active, size_t(chunk) * stages) : per_block;
    tma_var_kernel<<<g_sms, 32 * issuers, kSmem>>>(buf, footprint / chunk, chunk, stages, active,
                                                   pb, alive, split, batch, g_out, spin);
    Summary s = summarize(fetch(g_sms));
    if (!warm) report(name, footprint, chunk, stages, active, s);
  }
}

static void round2(const char* buf, const size_t l2fp) {
  CHECK(cudaFuncSetAttribute(tma_var_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  for (unsigned a : {1u, unsigned(g_sms)}) {
    run_tma_var(buf, l2fp, 16384, 8, a, 0, 1, 0, 1);   // = tma_kernel
    run_tma_var(buf, l2fp, 16384, 8, a, 1, 1, 0, 1);   // other lanes alive
    run_tma_var(buf, l2fp, 16384, 8, a, 1, 4, 0, 1);   // 4 copies of 4 KiB per stage
    run_tma_var(buf, l2fp, 16384, 8, a, 1, 16, 0, 1);  // 16 copies of 1 KiB per stage
    run_tma_var(buf, l2fp, 16384, 8, a, 1, 1, 1, 1);   // rounds: issue 8, wait 8
    run_tma_var(buf, l2fp, 16384, 12, a, 1, 1, 0, 4);  // 4 issuing warps, 3 stages each
    run_tma_var(buf, l2fp, 16384, 12, a, 1, 1, 0, 12); // 12 issuing warps, 1 stage each
    run_tma_var(buf, l2fp, 65536, 3, a, 1, 1, 0, 1);   // 64 KiB copies
    run_tma_var(buf, l2fp, 65536, 3, a, 1, 1, 0, 3);   // 64 KiB copies, 3 warps
  }
}

// Round 3: the LD path's ceiling with 128 KiB in flight per SM, by active SMs and by footprint.
static void round3(const char* buf, const size_t l2fp) {
  for (unsigned a : {2u, 8u, 33u, 66u, 99u, 132u}) run_ld(buf, l2fp, 8, a);
  for (size_t mb : {4, 8, 24, 32, 40, 48}) run_ld(buf, mb << 20, 8, g_sms);
  for (unsigned a : {1u, 132u}) run_tma_var(buf, l2fp, 16384, 12, a, 1, 1, 0, 12);  // = round 2's
  run_ld(buf, size_t(2) << 30, 8, g_sms);
}

static void run_ld_smid(const char* buf, size_t footprint, unsigned every, unsigned below,
                        bool print_map, int by_block = 0, unsigned step = 0,
                        unsigned from = 0, bool per_block = false) {
  size_t chunk = size_t(1024) * 16 * 8;
  unsigned* ids;
  CHECK(cudaMalloc(&ids, 1024 * sizeof(unsigned)));
  for (int warm = 1; warm >= 0; --warm) {
    ld_smid_kernel<<<g_sms, 1024, kSmem>>>(reinterpret_cast<const float4*>(buf),
                                           footprint / chunk, every, below,
                                           warm ? footprint / 8 : 128ull << 20, g_out, ids,
                                           reinterpret_cast<float*>(g_out + 1000), by_block, step,
                                           from);
    std::vector<Stamp> st = fetch(g_sms);
    Summary s = summarize(st);
    if (!warm) {
      char name[64];
      if (by_block)
        std::snprintf(name, sizeof name, "ld_block_below%u_step%u", below, step);
      else
        std::snprintf(name, sizeof name, "ld_smid_every%u_from%u_below%u", every, from, below);
      report(name, footprint, unsigned(chunk), 8, unsigned(s.blocks), s);
      if (per_block) {
        std::vector<unsigned> h(g_sms);
        CHECK(cudaMemcpy(h.data(), ids, g_sms * sizeof(unsigned), cudaMemcpyDeviceToHost));
        std::printf("per_block_smid:B_per_clk:end_us");
        for (int b = 0; b < g_sms; ++b)
          if (st[b].cycles)
            std::printf(",%u:%.1f:%.0f", h[b], double(st[b].bytes) / st[b].cycles,
                        (st[b].t1 - st[b].t0) / 1e3);
        std::printf("\n");
      }
    }
  }
  if (print_map) {
    std::vector<unsigned> h(g_sms);
    CHECK(cudaMemcpy(h.data(), ids, g_sms * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::printf("smid_of_block");
    for (unsigned v : h) std::printf(",%u", v);
    std::printf("\n");
  }
  CHECK(cudaFree(ids));
}

static void round4(const char* buf, const size_t l2fp) {
  CHECK(cudaFuncSetAttribute(ld_smid_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  run_ld_smid(buf, l2fp, 1, 1000, true);
  for (unsigned below : {1u, 2u, 4u, 8u, 12u, 16u, 18u, 24u, 32u, 36u, 48u, 66u, 99u})
    run_ld_smid(buf, l2fp, 1, below, false);
  for (unsigned every : {2u, 4u, 8u, 16u, 33u}) run_ld_smid(buf, l2fp, every, 1000, false);
  run_ld_smid(buf, l2fp, 2, 4, false);    // SMs 0 and 2
  run_ld_smid(buf, l2fp, 2, 132, false);  // every even SM
}

static void round5(const char* buf, const size_t l2fp) {
  CHECK(cudaFuncSetAttribute(ld_smid_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  for (unsigned below : {33u, 66u, 132u})
    for (unsigned step : {below, 132u, 1u, 129u}) run_ld_smid(buf, l2fp, 1, below, false, 1, step);
  for (size_t mb : {2, 48})
    for (unsigned step : {33u, 132u}) run_ld_smid(buf, mb << 20, 1, 33, false, 1, step);
  run_ld_smid(buf, l2fp, 1, 33, false, 0, 33);   // smid < 33, distinct chunks per step
  run_ld_smid(buf, l2fp, 1, 33, false, 0, 132);  // smid < 33, as round 4
}

// Round 7: one issuing thread that spins on mbarrier.test_wait instead of try_wait.
static void round7(const char* buf, const size_t l2fp) {
  CHECK(cudaFuncSetAttribute(tma_var_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  for (unsigned a : {1u, unsigned(g_sms)}) {
    run_tma_var(buf, l2fp, 16384, 8, a, 1, 1, 0, 1, 0);   // round 2's, try_wait
    run_tma_var(buf, l2fp, 16384, 8, a, 1, 1, 0, 1, 1);   // test_wait spin
    run_tma_var(buf, l2fp, 16384, 12, a, 1, 1, 0, 1, 1);
    run_tma_var(buf, l2fp, 4096, 16, a, 1, 1, 0, 1, 1);
    run_tma_var(buf, l2fp, 65536, 3, a, 1, 1, 0, 1, 1);
    run_tma_var(buf, l2fp, 16384, 8, a, 1, 4, 0, 1, 1);   // 4 copies of 4 KiB per stage
  }
}

typedef CUresult (*EncodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static CUtensorMap tensor_map(const char* buf, unsigned box_rows);

static void run_tma2d(const char* buf, unsigned box_rows, unsigned stages, unsigned active,
                      unsigned issuers) {
  const CUtensorMap map = tensor_map(buf, box_rows);
  const size_t chunk = size_t(box_rows) * 128;
  char name[64];
  std::snprintf(name, sizeof name, "tma2d_w%u", issuers);
  for (int warm = 1; warm >= 0; --warm) {
    unsigned long long pb =
        warm ? std::max<size_t>((16u << 20) / active, chunk * stages) : 128ull << 20;
    tma2d_kernel<<<g_sms, 32 * issuers, kSmem>>>(map, box_rows, stages, active, pb, g_out);
    Summary s = summarize(fetch(g_sms));
    if (!warm) report(name, 16u << 20, unsigned(chunk), stages, active, s);
  }
}

/// An 8192 x 1024 bf16 tensor map over `buf`, boxes of 64 x box_rows, 128-byte swizzle.
static CUtensorMap tensor_map(const char* buf, unsigned box_rows) {
  static EncodeTiled encode = nullptr;
  if (!encode) {
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled",
                                           reinterpret_cast<void**>(&encode), 12000,
                                           cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !encode) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
      std::exit(1);
    }
  }
  CUtensorMap map;
  cuuint64_t dims[2] = {1024, 8192}, strides[1] = {1024 * 2};
  cuuint32_t box[2] = {64, box_rows}, estr[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<char*>(buf), dims,
                      strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r));
    std::exit(1);
  }
  return map;
}

// Round 9: cycles for a batch of n copies issued back to back, 1 SM and every SM.
static void round9(const char* buf) {
  CHECK(cudaFuncSetAttribute(tma2d_batch_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             kSmem));
  const CUtensorMap map = tensor_map(buf, 128);
  std::printf("batch2d,copies,active_sms,mean_cycles_per_batch_sm0,mean_over_sms\n");
  for (unsigned a : {1u, unsigned(g_sms)})
    for (unsigned n : {1u, 2u, 4u, 8u, 12u}) {
      tma2d_batch_kernel<<<g_sms, 32, kSmem>>>(map, n, 2, a, g_out);  // warm
      fetch(g_sms);
      tma2d_batch_kernel<<<g_sms, 32, kSmem>>>(map, n, 20, a, g_out);
      std::vector<Stamp> st = fetch(g_sms);
      double sum = 0;
      for (unsigned b = 0; b < a; ++b) sum += double(st[b].cycles);
      std::printf("batch2d,%u,%u,%llu,%.0f\n", n, a, st[0].cycles, sum / a);
      std::fflush(stdout);
    }
}

// Round 8: GEMM-like 2D tensor copies from one issuing thread, and from 4 warps.
static void round8(const char* buf) {
  CHECK(cudaFuncSetAttribute(tma2d_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  for (unsigned a : {1u, unsigned(g_sms)}) {
    run_tma2d(buf, 128, 8, a, 1);   // 16 KiB boxes
    run_tma2d(buf, 256, 6, a, 1);   // 32 KiB
    run_tma2d(buf, 64, 16, a, 1);   // 8 KiB
    run_tma2d(buf, 128, 12, a, 4);  // 16 KiB, 4 issuing warps
  }
}

// Round 6: each working SM's own rate, to find which SMs are slow.
static void round6(const char* buf, const size_t l2fp) {
  CHECK(cudaFuncSetAttribute(ld_smid_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  run_ld_smid(buf, l2fp, 1, 33, false, 1, 33, 0, true);       // blocks 0-32
  run_ld_smid(buf, l2fp, 1, 132, false, 1, 132, 0, true);     // all
  run_ld_smid(buf, l2fp, 1, 1000, false, 0, 0, 120, true);    // smid >= 120
  run_ld_smid(buf, l2fp, 1, 132, false, 0, 0, 124, true);     // smid 124-131
  run_ld_smid(buf, l2fp, 1, 129, false, 0, 0, 128, true);     // smid 128 alone
  run_ld_smid(buf, l2fp, 1, 17, false, 0, 0, 0, true);        // smid 0-16
  run_ld_smid(buf, l2fp, 1, 66, false, 0, 0, 0, true);        // smid 0-65
}

int main(int argc, char** argv) {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  std::printf("device,%s,sms=%d,l2=%d\n", prop.name, g_sms, prop.l2CacheSize);
  CHECK(cudaFuncSetAttribute(ld_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  CHECK(cudaFuncSetAttribute(tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  CHECK(cudaFuncSetAttribute(cluster_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  CHECK(cudaMalloc(&g_out, 1024 * sizeof(Stamp)));
  CHECK(cudaMemset(g_out, 0, 1024 * sizeof(Stamp)));
  const size_t big = size_t(2) << 30;
  char* buf;
  CHECK(cudaMalloc(&buf, big));
  CHECK(cudaMemset(buf, 0, big));

  int max_clusters = 0;
  {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = pair_clusters(2 * (g_sms / 2), attr);
    CHECK(cudaOccupancyMaxActiveClusters(&max_clusters, cluster_kernel, &cfg));
  }
  std::printf("max_active_2cta_clusters,%d\n", max_clusters);
  std::printf("path,footprint_bytes,chunk_bytes,depth,active_sms,blocks,"
              "per_sm_bytes_per_clk,aggregate_GB_per_s,sm_ghz\n");
  const size_t l2fp = size_t(16) << 20;
  const std::string round = argc > 1 ? argv[1] : "";
  if (round == "round2" || round == "round3" || round == "round4" ||
      round == "round5" || round == "round6" || round == "round7" ||
      round == "round8" || round == "round9") {
    if (round == "round2") round2(buf, l2fp);
    if (round == "round3") round3(buf, l2fp);
    if (round == "round4") round4(buf, l2fp);
    if (round == "round5") round5(buf, l2fp);
    if (round == "round6") round6(buf, l2fp);
    if (round == "round7") round7(buf, l2fp);
    if (round == "round8") round8(buf);
    if (round == "round9") round9(buf);
    CHECK(cudaFree(buf));
    return 0;
  }
  const unsigned counts[] = {1, 2, 4, 8, 16, 33, 66, 99, 132};
  for (unsigned a : counts) run_ld(buf, l2fp, 4, std::min<unsigned>(a, g_sms));
  for (int u : {1, 2, 8}) {
    run_ld(buf, l2fp, u, 1);
    run_ld(buf, l2fp, u, g_sms);
  }
  for (unsigned a : counts) run_tma(buf, l2fp, 16384, 8, std::min<unsigned>(a, g_sms));
  const unsigned shapes[][2] = {{16384, 2}, {16384, 4}, {16384, 12}, {4096, 16}, {8192, 16},
                                {32768, 6}};
  for (auto& sh : shapes) {
    run_tma(buf, l2fp, sh[0], sh[1], 1);
    run_tma(buf, l2fp, sh[0], sh[1], g_sms);
  }
  // DRAM: a footprint of 2 GiB, every SM.
  run_ld(buf, big, 4, g_sms);
  run_tma(buf, big, 16384, 8, g_sms);
  run_tma(buf, big, 16384, 12, g_sms);
  // L2 footprints between 4 and 48 MiB, every SM, TMA 16 KiB x 8.
  for (size_t mb : {4, 8, 32, 48}) run_tma(buf, mb << 20, 16384, 8, g_sms);
  for (unsigned c : {1u, 4u, 16u, 33u, unsigned(max_clusters)})
    for (int m : {0, 1}) run_cluster(buf, l2fp, 16384, 8, std::min<unsigned>(c, max_clusters), m,
                                     max_clusters);
  for (int m : {0, 1}) run_cluster(buf, l2fp, 32768, 6, max_clusters, m, max_clusters);
  for (int m : {0, 1}) run_cluster(buf, big, 16384, 8, max_clusters, m, max_clusters);
  CHECK(cudaFree(buf));
  return 0;
}

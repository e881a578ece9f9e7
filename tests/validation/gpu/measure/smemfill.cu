// Does a cp.async (LDGSTS) fill take shared-memory bandwidth from ldmatrix, and does a TMA
// (cp.async.bulk) fill? For tests/validation/gpu (run by smemfill.sh). The device assumes the
// first (models/gpu_sm/README.md, rule 4, "cp.async fills share the data pipe") and not the
// second; this program measures both on an sm_90 GPU.
// One CTA per SM (grid: 1 SM, or every SM so the L2 is shared as in a kernel), R ldmatrix warps
// first (warp w runs on sub-partition w % 4) and F fill warps after them. After one
// __syncthreads every warp runs for D SM cycles (clock64) and counts what it did:
//   ldsm:    8 ldmatrix.x4 per iteration from the warp's own 4 KiB (lane x 16 B: every 8-lane
//            phase covers all 32 banks once, no conflict); results XORed, stored at the end.
//   cpasync: 4 cp.async.cg of 16 B per lane per iteration (2 KiB per warp) from a 4 MiB source
//            warmed into the L2, into the warp's 16 KiB ring; commit; wait_group kGroups - 1.
//   tma:     lane 0 keeps kGroups bulk copies of 4 KiB in flight into the warp's ring, each
//            completing on its stage's mbarrier.
// Output (CSV on stdout), per SM and averaged over CTAs: ldmatrix bytes per cycle, fill bytes per
// cycle and their sum. If fills share the pipe with ldmatrix, ldsm+cpasync's ldmatrix rate drops
// by about the fill rate (the sum stays at the ldsm-alone rate); if they do not, it stays.
// Written for this project from the PTX ISA manual (ldmatrix, cp.async, cp.async.bulk, mbarrier).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"
#include "ptx_async.cuh"

namespace {

constexpr int kMaxWarps = 16;
constexpr unsigned kLdsmBytes = 512;        // one ldmatrix.x4 per warp
constexpr unsigned kCpWarpBytes = 32 * 16;  // one cp.async.cg 16 B per lane
constexpr unsigned kRing = 16 * 1024;       // a fill warp's ring
constexpr unsigned kTmaBytes = 4 * 1024;    // one bulk copy
constexpr int kGroups = 4;                  // fill groups / copies in flight per warp
constexpr size_t kSource = 4u << 20;        // L2-resident source

enum Fill { kNone = 0, kCpAsync = 1, kTma = 2 };

struct Counts {
  unsigned long long ldsm_bytes, fill_bytes, cycles, sink;
};

__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned& a, unsigned& b, unsigned& c,
                                        unsigned& d) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "r"(addr));
}
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_wait_all_but() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kGroups - 1) : "memory");
}
__device__ __forceinline__ void cp_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

__device__ unsigned long long ldsm_loop(unsigned base, long long t0, long long d, unsigned& sink) {
  const unsigned lane = threadIdx.x & 31;
  unsigned long long n = 0;
  unsigned x = 0;
  while (clock64() - t0 < d) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      unsigned a, b, c, e;
      ldsm_x4(base + j * kLdsmBytes + lane * 16, a, b, c, e);
      x ^= a ^ b ^ c ^ e;
    }
    n += 8;
  }
  sink ^= x;
  return n * kLdsmBytes;
}

__device__ unsigned long long cp_loop(unsigned ring, const char* src, size_t off, long long t0,
                                      long long d) {
  const unsigned lane = threadIdx.x & 31;
  unsigned long long n = 0;
  unsigned slot = 0;
  while (clock64() - t0 < d) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      cp_async16(ring + slot + j * kCpWarpBytes + lane * 16,
                 src + off + j * kCpWarpBytes + lane * 16);
    }
    cp_commit();
    cp_wait_all_but();
    n += 4;
    slot = (slot + 4 * kCpWarpBytes) % kRing;
    off = (off + 4 * kCpWarpBytes) % kSource;
  }
  cp_wait_all();
  return n * kCpWarpBytes;
}

__device__ unsigned long long tma_loop(unsigned ring, unsigned bars, const char* src, size_t off,
                                       long long t0, long long d) {
  if ((threadIdx.x & 31) != 0) return 0;
  unsigned long long done = 0;
  unsigned phase[kGroups] = {};
  for (int s = 0; s < kGroups; ++s) {  // fill the ring
    mbar_expect(bars + 8 * s, kTmaBytes);
    bulk_copy(ring + s * kTmaBytes, src + off, kTmaBytes, bars + 8 * s);
    off = (off + kTmaBytes) % kSource;
  }
  for (int s = 0; clock64() - t0 < d; s = (s + 1) % kGroups) {
    mbar_wait(bars + 8 * s, phase[s]);
    phase[s] ^= 1;
    ++done;
    mbar_expect(bars + 8 * s, kTmaBytes);
    bulk_copy(ring + s * kTmaBytes, src + off, kTmaBytes, bars + 8 * s);
    off = (off + kTmaBytes) % kSource;
  }
  for (int s = 0; s < kGroups; ++s) mbar_wait(bars + 8 * s, phase[s]);  // drain
  return (done + kGroups) * kTmaBytes;
}

__global__ void smemfill(int ldsm_warps, int fill_warps, int fill, long long d, const char* src,
                         Counts* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ unsigned long long ldsm_bytes, fill_bytes;
  __shared__ long long t0;
  __shared__ unsigned sink;
  __shared__ __align__(8) unsigned long long bars[kMaxWarps * kGroups];
  const int warp = threadIdx.x / 32;
  const unsigned ldsm_base = smem_addr(smem);
  const unsigned fill_base = ldsm_base + ldsm_warps * 4096;
  if (threadIdx.x == 0) {
    ldsm_bytes = fill_bytes = 0;
    sink = 0;
    for (int i = 0; i < fill_warps * kGroups; ++i) mbar_init(smem_addr(&bars[i]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  for (unsigned i = threadIdx.x; i < unsigned(ldsm_warps) * 4096; i += blockDim.x)
    smem[i] = static_cast<unsigned char>(i * 7);
  __syncthreads();
  if (threadIdx.x == 0) t0 = clock64();
  __syncthreads();
  // Each CTA's fill warps start at their own 64 KiB of the source (reads wrap in its 4 MiB).
  const size_t start = (size_t(blockIdx.x) * kMaxWarps + warp) * 64 * 1024 % kSource;
  unsigned long long mine = 0;
  unsigned x = 0;
  if (warp < ldsm_warps) {
    mine = ldsm_loop(ldsm_base + warp * 4096, t0, d, x);
    if ((threadIdx.x & 31) == 0) atomicAdd(&ldsm_bytes, mine);
    atomicXor(&sink, x);
  } else if (warp < ldsm_warps + fill_warps) {
    const int f = warp - ldsm_warps;
    const unsigned ring = fill_base + f * kRing;
    if (fill == kCpAsync) {
      mine = cp_loop(ring, src, start, t0, d);
      if ((threadIdx.x & 31) == 0) atomicAdd(&fill_bytes, mine);
    } else if (fill == kTma) {
      mine = tma_loop(ring, smem_addr(&bars[f * kGroups]), src, start, t0, d);
      if ((threadIdx.x & 31) == 0) atomicAdd(&fill_bytes, mine);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x] = {ldsm_bytes, fill_bytes, static_cast<unsigned long long>(clock64() - t0),
                       sink};
  }
}

struct Case {
  const char* name;
  int ldsm_warps, fill_warps, fill;
};

}  // namespace

// smemfill: every case on 1 SM and on every SM; smemfill CASE GRID: case CASE (its index in
// `cases`) alone on GRID CTAs (for Nsight Compute).
int main(int argc, char** argv) {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  char* src = nullptr;
  CHECK(cudaMalloc(&src, kSource));
  CHECK(cudaMemset(src, 1, kSource));
  Counts* out = nullptr;
  CHECK(cudaMalloc(&out, sms * sizeof(Counts)));
  const size_t smem = kMaxWarps * 4096 + 4 * kRing;
  CHECK(cudaFuncSetAttribute(smemfill, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const long long d = 400000;  // SM cycles per run (~0.2 ms)
  const Case cases[] = {
      {"ldsm", 4, 0, kNone},    {"ldsm", 8, 0, kNone},
      {"ldsm", 16, 0, kNone},   {"cpasync", 0, 4, kCpAsync},
      {"tma", 0, 4, kTma},      {"ldsm+cpasync", 8, 4, kCpAsync},
      {"ldsm+tma", 8, 4, kTma}, {"ldsm+cpasync", 4, 4, kCpAsync},
      {"ldsm+tma", 4, 4, kTma},
  };
  const int only = argc == 3 ? std::atoi(argv[1]) : -1;
  const int ncases = int(sizeof(cases) / sizeof(cases[0]));
  if (argc == 3 &&
      (only < 0 || only >= ncases || std::atoi(argv[2]) < 1 || std::atoi(argv[2]) > sms)) {
    std::fprintf(stderr, "usage: smemfill [CASE (0..%d) GRID (1..%d)]\n", ncases - 1, sms);
    return 2;
  }
  std::printf("case,ldsm_warps,fill_warps,ctas,ldsm_B_per_clk,fill_B_per_clk,sum_B_per_clk\n");
  for (const int grid : {1, sms}) {
    for (int ci = 0; ci < ncases; ++ci) {
      if (only >= 0 && (ci != only || grid != 1)) continue;
      const Case& c = cases[ci];
      const int g = only >= 0 ? std::atoi(argv[2]) : grid;
      const int threads = 32 * (c.ldsm_warps + c.fill_warps);
      for (int rep = 0; rep < 2; ++rep) {  // the first warms the L2 with the source
        smemfill<<<g, threads, smem>>>(c.ldsm_warps, c.fill_warps, c.fill, d, src, out);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
      }
      std::vector<Counts> h(g);
      CHECK(cudaMemcpy(h.data(), out, g * sizeof(Counts), cudaMemcpyDeviceToHost));
      double l = 0, f = 0;
      for (const Counts& k : h) {
        l += double(k.ldsm_bytes) / double(k.cycles);
        f += double(k.fill_bytes) / double(k.cycles);
      }
      l /= g;
      f /= g;
      std::printf("%s,%d,%d,%d,%.2f,%.2f,%.2f\n", c.name, c.ldsm_warps, c.fill_warps, g, l, f,
                  l + f);
    }
  }
  CHECK(cudaFree(out));
  CHECK(cudaFree(src));
  return 0;
}

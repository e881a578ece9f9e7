// Memory-hierarchy microbenchmarks for tests/validation/gpu (run on a real GPU by measure.sh).
//   chase: one thread follows a random cyclic chain of 128-byte-spaced words over a footprint;
//          clock64() around the timed loads gives SM cycles per dependent load (L1 with
//          ld.global.ca, L2/DRAM with ld.global.cg which skips L1).
//   readbw: every SM streams float4 loads over a footprint again and again; bytes / event time.
// Output: CSV lines on stdout. Written for this project; method as in the public pointer-chase
// studies cited in FACTS.md §C.2 (GPUBENCH, HOPPERBENCH), no code taken from them.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "cuda_check.h"

__device__ __forceinline__ uint32_t load_ca(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ uint32_t load_cg(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

template <bool kL1>
__global__ void chase(const uint32_t* next, uint32_t start, int warm, int iters,
                      long long* cycles, uint32_t* sink) {
  uint32_t i = start;
  for (int k = 0; k < warm; ++k) i = kL1 ? load_ca(next + i) : load_cg(next + i);
  long long t0 = clock64();
  for (int k = 0; k < iters; ++k) i = kL1 ? load_ca(next + i) : load_cg(next + i);
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = i;
}

__global__ void readbw(const float4* p, size_t n4, int reps, float* sink) {
  float acc = 0.f;
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int r = 0; r < reps; ++r)
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
      float4 v = __ldcg(p + i);
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == 12345.678f) *sink = acc;  // keeps the loads; never true on zeroed data
}

static void run_chase(uint32_t* dev, size_t footprint, bool l1, int sm_clock_khz) {
  const size_t spacing = 32;  // words: 128 bytes, one line per hop
  size_t lines = footprint / (spacing * 4);
  if (lines < 2) return;
  std::vector<uint32_t> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = uint32_t(i);
  std::mt19937_64 rng(42 + footprint);
  std::shuffle(order.begin() + 1, order.end(), rng);
  std::vector<uint32_t> host(lines * spacing, 0);
  for (size_t i = 0; i < lines; ++i)
    host[order[i] * spacing] = uint32_t(order[(i + 1) % lines] * spacing);
  CHECK(cudaMemcpy(dev, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
  long long* cyc;
  uint32_t* sink;
  CHECK(cudaMalloc(&cyc, sizeof(long long)));
  CHECK(cudaMalloc(&sink, 4));
  int warm = int(std::min<size_t>(lines, 1u << 20));
  if (footprint > (256u << 20)) warm = 0;  // DRAM-sized: nothing to warm, a pass takes seconds
  int iters = 20000;
  if (l1)
    chase<true><<<1, 1>>>(dev, 0, warm, iters, cyc, sink);
  else
    chase<false><<<1, 1>>>(dev, 0, warm, iters, cyc, sink);
  CHECK(cudaGetLastError());
  long long c = 0;
  CHECK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
  double per = double(c) / iters;
  std::printf("chase,%s,%zu,%.2f,%.1f\n", l1 ? "ca" : "cg", footprint, per,
              per / (sm_clock_khz * 1e-6));
  std::fflush(stdout);
  CHECK(cudaFree(cyc));
  CHECK(cudaFree(sink));
}

static void run_readbw(const float4* dev, size_t footprint, int sms) {
  size_t n4 = footprint / 16;
  double target = 8e9;  // bytes per timed launch
  int reps = int(std::max(1.0, target / double(footprint)));
  float* sink;
  CHECK(cudaMalloc(&sink, 4));
  readbw<<<sms * 4, 512>>>(dev, n4, 1, sink);  // warm (L2 fill)
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventRecord(a));
  readbw<<<sms * 4, 512>>>(dev, n4, reps, sink);
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  std::printf("readbw,%zu,%d,%.4f,%.1f\n", footprint, reps, ms,
              double(footprint) * reps / (ms * 1e-3) / 1e9);
  std::fflush(stdout);
  CHECK(cudaFree(sink));
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("device,%s,sms=%d,l2=%d,clock_khz=%d\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize, clock_khz);
  std::printf("kind,mode,footprint_bytes,cycles_per_load,ns_at_max_clock\n");
  const size_t max_chase = size_t(1) << 30;
  uint32_t* chase_buf;
  CHECK(cudaMalloc(&chase_buf, max_chase));
  for (size_t kb : {8, 16, 32, 64, 128})
    run_chase(chase_buf, kb << 10, true, clock_khz);
  for (size_t mb : {1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64, 96, 128, 256, 1024})
    run_chase(chase_buf, mb << 20, false, clock_khz);
  CHECK(cudaFree(chase_buf));
  std::printf("kind,footprint_bytes,reps,ms,GB_per_s\n");
  const size_t max_bw = size_t(4) << 30;
  float4* bw_buf;
  CHECK(cudaMalloc(&bw_buf, max_bw));
  CHECK(cudaMemset(bw_buf, 0, max_bw));
  for (size_t mb : {2, 4, 8, 16, 24, 32, 40, 48, 64, 96, 256, 1024, 4096})
    run_readbw(bw_buf, mb << 20, prop.multiProcessorCount);
  CHECK(cudaFree(bw_buf));
  return 0;
}

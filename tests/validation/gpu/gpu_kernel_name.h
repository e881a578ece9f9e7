#pragma once
// Decodes the cuBLAS kernel names in the `kernels` column of data/*.csv into the CTA
// configuration the GPU device can be told to run (system.mapping.tile_m/tile_n/warps_m/
// warps_n/stages), so the GEMM validation can compare the device with the kernel the GPU really
// ran as well as with the device's own tile search (README.md beside this file: "cuBLAS's
// kernel").
//
// Name format (inferred from the names in data/; NVIDIA does not document it):
//   nvjet_sm90_<types>_<T1>x<T2>_<BK>x<S>_<C1>x<C2>_<r>_<bz>[_<schedule>][_algoN]_<layouts>
//   T1 x T2  CTA tile in cuBLAS's column-major orientation (T1 along cuBLAS's M)
//   BK x S   k-tile depth in elements and pipeline stages
//   C1 x C2  thread-block cluster (T1-wise x T2-wise)
//   r        raster order: h or v
//   schedule coopA / coopB: cooperative (two consumer warpgroups share one tile); absent:
//            one consumer warpgroup per tile (the ping-pong / basic kernels); splitK: K split
// Ignored: <types> (tst = bf16, hsh = fp16, qqtst = fp8), bz, algoN, the operand layouts, the
// raster order and the cluster (the device models no TMA multicast, so a cluster changes only
// the mapper's estimate), and which tile axis coopA / coopB split (the device splits the one its
// wgmma M rule allows, below).

#include <cstdint>
#include <optional>
#include <string>

namespace systole::test::gpu {

/// The fields of one nvjet kernel name.
struct CublasKernel {
  std::string name;
  std::int64_t t1 = 0, t2 = 0, bk = 0, stages = 0, c1 = 0, c2 = 0;
  bool cooperative = false;  ///< coopA / coopB
  bool split_k = false;      ///< splitK (the kernel list then has a reduction kernel too)
};

/// The first nvjet_sm90 kernel in a `kernels` cell ("Memset (Device) | nvjet_..."); nullopt
/// when the cell names none (an empty cell, a CUTLASS sm75 fallback).
std::optional<CublasKernel> parse_cublas_kernel(const std::string& kernels);

/// What the device runs for a kernel: torch.mm's row-major C = A B is cuBLAS's column-major
/// C^T = B^T A^T, so T1 runs along torch's N (the device's tile_n) and T2 along M (tile_m).
/// Warpgroups: 2 when cooperative, else 1, placed along M if each warpgroup's rows stay whole
/// m64 wgmmas and its N at most 256, else along N; if neither fits, the same on the transposed
/// tile (the device's wgmma M runs along tile_m; the same MACs and bytes per k-tile). nullopt
/// when no placement is valid.
struct DeviceKernel {
  std::int64_t tile_m = 0, tile_n = 0, warps_m = 0, warps_n = 0, stages = 0;
  std::int64_t tile_k = 0;   ///< 0: the candidate's (cuBLAS's names all have BK 64)
  std::string text() const;  ///< "128x320/3 wg1x2", "128x128x32 wg1x1" (stages 0: any)
};
std::optional<DeviceKernel> device_kernel(const CublasKernel& k);

/// cuDNN's Hopper implicit-GEMM convolution kernels (data/*_heldout_run1.csv, *_networks_run1.csv):
///   sm90_xmma_fprop_implicit_gemm_<types>_nhwckrsc_nhwc_tilesize<M>x<N>x<K>_
///   warpgroupsize<A>x<B>x1_g1_execute_segment_k_off_kernel__5x_cudnn
/// M runs along the output pixels (N x P x Q), N along the output channels, K is the k-tile
/// depth; A x B consumer warpgroups along M and N (the grids in data/h100_heldout_kernels_run1.csv
/// fit this orientation: 256x96 over 12544 pixels and 64 channels is 49 tiles, grid 10x5). The
/// stages are not in the name (left to the device: StageCountAuto). nullopt when the cell names
/// no such kernel.
std::optional<DeviceKernel> parse_cudnn_fprop_kernel(const std::string& kernels);

}  // namespace systole::test::gpu

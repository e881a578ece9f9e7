#include "tests/validation/gpu/gpu_kernel_name.h"

#include <fmt/format.h>

#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

namespace systole::test::gpu {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);) out.push_back(part);
  return out;
}

bool pair(const std::string& s, std::int64_t& a, std::int64_t& b) {
  long x = 0, y = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%ldx%ld%c", &x, &y, &tail) != 2) return false;
  a = x;
  b = y;
  return a > 0 && b > 0;
}

/// wgmma: a warpgroup's rows are whole m64 instructions and its N at most 256 (models/gpu_sm).
bool valid(std::int64_t bm, std::int64_t bn, std::int64_t wm, std::int64_t wn) {
  return bm % (64 * wm) == 0 && bn % (8 * wn) == 0 && bn / wn <= 256;
}

}  // namespace

std::optional<CublasKernel> parse_cublas_kernel(const std::string& kernels) {
  for (std::string k : split(kernels, '|')) {
    k.erase(0, k.find_first_not_of(' '));
    k.erase(k.find_last_not_of(' ') + 1);
    if (k.rfind("nvjet_sm90_", 0) != 0) continue;
    const auto f = split(k, '_');  // nvjet sm90 types T1xT2 BKxS C1xC2 r bz [...] layouts
    if (f.size() < 8) return std::nullopt;
    CublasKernel c;
    c.name = k;
    if (!pair(f[3], c.t1, c.t2) || !pair(f[4], c.bk, c.stages) || !pair(f[5], c.c1, c.c2))
      return std::nullopt;
    for (size_t i = 6; i < f.size(); ++i) {
      if (f[i] == "coopA" || f[i] == "coopB") c.cooperative = true;
      if (f[i] == "splitK") c.split_k = true;
    }
    return c;
  }
  return std::nullopt;
}

std::string DeviceKernel::text() const {
  if (tile_k > 0) return fmt::format("{}x{}x{} wg{}x{}", tile_m, tile_n, tile_k, warps_m, warps_n);
  return fmt::format("{}x{}/{} wg{}x{}", tile_m, tile_n, stages, warps_m, warps_n);
}

std::optional<DeviceKernel> parse_cudnn_fprop_kernel(const std::string& kernels) {
  for (std::string k : split(kernels, '|')) {
    k.erase(0, k.find_first_not_of(' '));
    if (k.rfind("sm90_xmma_fprop_implicit_gemm_", 0) != 0) continue;
    const auto t = k.find("_tilesize"), w = k.find("_warpgroupsize");
    if (t == std::string::npos || w == std::string::npos) return std::nullopt;
    long m = 0, n = 0, kk = 0, a = 0, b = 0;
    if (std::sscanf(k.c_str() + t, "_tilesize%ldx%ldx%ld", &m, &n, &kk) != 3 ||
        std::sscanf(k.c_str() + w, "_warpgroupsize%ldx%ldx", &a, &b) != 2)
      return std::nullopt;
    DeviceKernel d;
    d.tile_m = m, d.tile_n = n, d.tile_k = kk, d.warps_m = a, d.warps_n = b;
    if (m <= 0 || n <= 0 || kk <= 0 || !valid(m, n, a, b)) return std::nullopt;
    return d;
  }
  return std::nullopt;
}

std::optional<DeviceKernel> device_kernel(const CublasKernel& k) {
  DeviceKernel d;
  d.tile_m = k.t2;
  d.tile_n = k.t1;
  d.stages = k.stages;
  const std::int64_t groups = k.cooperative ? 2 : 1;
  // The named orientation first, then the transposed tile (same MACs and bytes per k-tile).
  for (const bool transpose : {false, true}) {
    if (transpose) std::swap(d.tile_m, d.tile_n);
    if (valid(d.tile_m, d.tile_n, groups, 1)) {
      d.warps_m = groups;
      d.warps_n = 1;
      return d;
    }
    if (valid(d.tile_m, d.tile_n, 1, groups)) {
      d.warps_m = 1;
      d.warps_n = groups;
      return d;
    }
  }
  return std::nullopt;
}

}  // namespace systole::test::gpu

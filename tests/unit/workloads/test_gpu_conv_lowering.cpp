// GPU lowering of convolutions (workloads/lowering/gpu_lowering.h): input channels padded to
// whole 16-byte vectors as cuDNN and CUTLASS read them (ResNet-50's conv1, C = 3 -> 8 at bf16):
// a memset and a padding kernel before the implicit GEMM, whose K is R x S x C_padded and whose
// activation loads walk the padded image; aligned convolutions keep one kernel and their K.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>
#include <string>

#include "tests/unit/workloads/gpu_device_fixture.h"
#include "workloads/lowering/gpu_lowering.h"

using namespace systole;
using namespace systole::workloads;

namespace {

Layer conv(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t k, std::int64_t r,
           std::int64_t stride, DataType t = DataType::kBf16) {
  Layer l;
  l.name = "conv";
  l.op = LayerOp::kConv2d;
  l.dtype = t;
  l.conv = {n, hw, hw, c, k, r, r, stride, r / 2, 1, 1};  // n h w c k r s stride pad dil groups
  return l;
}

std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(v); }

}  // namespace

TEST_CASE("GPU conv input channels pad to whole 16-byte vectors", "[gpu_lowering]") {
  CHECK(gpu_conv_padded_channels(3, 2) == 8);
  CHECK(gpu_conv_padded_channels(8, 2) == 8);
  CHECK(gpu_conv_padded_channels(9, 2) == 16);
  CHECK(gpu_conv_padded_channels(64, 2) == 64);
  CHECK(gpu_conv_padded_channels(3, 1) == 16);
  CHECK(gpu_conv_padded_channels(3, 4) == 4);
  std::mt19937 rng(11);
  for (int t = 0; t < 500; ++t) {
    const std::int64_t c = std::uniform_int_distribution<std::int64_t>(1, 300)(rng);
    const std::uint64_t e = 1u << std::uniform_int_distribution<int>(0, 2)(rng);
    const std::int64_t p = gpu_conv_padded_channels(c, e);
    INFO("c " << c << " elem " << e);
    CHECK(u(p) * e % 16 == 0);  // whole vectors
    CHECK(p >= c);
    CHECK(u(p - c) * e < 16);  // the fewest that make whole vectors
  }
}

TEST_CASE("GPU lowering pads ResNet-50's conv1 (C = 3) to 8 channels before its implicit GEMM",
          "[gpu_lowering]") {
  const auto dev = test::h100();
  const Layer l = conv(8, 224, 3, 64, 7, 2);
  const GpuProgram p = compile_gpu(dev, {l});
  const auto& kernels = p.layers.at(0).kernels;
  REQUIRE(kernels.size() >= 3);  // memset, padding, GEMM (and a split-K reduction if split)
  const GpuKernel& memset = p.kernels[kernels[0]];
  const GpuKernel& pad = p.kernels[kernels[1]];
  const GpuKernel& gemm = p.kernels[kernels[2]];
  CHECK(memset.name == "conv.pad_memset");
  CHECK(pad.name == "conv.pad");
  REQUIRE(gemm.kind == GpuKernel::Kind::kGemm);

  const std::uint64_t pixels = 8 * 224 * 224, e = 2;
  CHECK(memset.compulsory_bytes == pixels * 8 * e);                // writes the padded image
  CHECK(pad.compulsory_bytes == pixels * 3 * e + pixels * 8 * e);  // reads C = 3, writes C = 8
  const std::int64_t m = 8 * 112 * 112;
  CHECK(gemm.gemm.m == m);
  CHECK(gemm.gemm.n == 64);
  CHECK(gemm.gemm.k == 7 * 7 * 8);                 // K = R x S x C_padded, not 147
  CHECK(gemm.flops == u(2 * m * 64 * 7 * 7 * 3));  // useful work: the zeros are not counted

  // The GEMM reads the padded image the padding kernel wrote, 8 channels a tap.
  std::uint64_t written = ~0ull;
  for (const auto& sm : pad.stream.per_sm)
    for (const auto& c : sm)
      for (const auto& w : c.writes) written = std::min(written, w.addr);
  CHECK(gemm.addr.a == written);
  CHECK(gemm.addr.a_row == 2 * 8 * e);  // next output pixel: stride x C_padded elements
  CHECK(gemm.addr.a_k(8) - gemm.addr.a_k(0) == 8 * e);            // next tap along S
  CHECK(gemm.addr.a_k(7 * 8) - gemm.addr.a_k(0) == 224 * 8 * e);  // next filter row: one image row
  // The CTAs' A loads carry the padding: M x K_padded elements over the whole grid.
  std::uint64_t a_elems = 0;
  for (const auto& w : gemm.works)
    if (w.n0 == 0) a_elems += u(w.m) * u(w.k);
  CHECK(a_elems == u(m) * 7 * 7 * 8);
}

TEST_CASE("GPU lowering keeps aligned convolutions as one implicit GEMM of K = R x S x C",
          "[gpu_lowering]") {
  const auto dev = test::h100();
  const GpuProgram p = compile_gpu(dev, {conv(8, 56, 64, 64, 3, 1)});
  const auto& kernels = p.layers.at(0).kernels;
  REQUIRE(!kernels.empty());
  const GpuKernel& gemm = p.kernels[kernels[0]];
  REQUIRE(gemm.kind == GpuKernel::Kind::kGemm);
  CHECK(gemm.name == "conv");
  CHECK(gemm.gemm.k == 3 * 3 * 64);
  CHECK(gemm.addr.a_row == 64 * 2);
  CHECK(gemm.flops == u(2 * 8 * 56 * 56 * 64 * 3 * 3 * 64));
}

TEST_CASE("GPU lowering runs strided and wider-than-1x1 convolutions as cuDNN's implicit GEMMs",
          "[gpu_lowering]") {
  // ResNet-50's batch-1 layers whose GEMM fills few tiles: as GEMMs the mapper would split K or
  // take cuBLAS's swapped-operand skinny tiles; cuDNN's implicit-GEMM kernels have neither.
  const auto dev = test::h100();
  const Layer implicit[] = {conv(1, 14, 512, 512, 3, 2), conv(1, 7, 512, 512, 3, 1),
                            conv(1, 14, 256, 256, 3, 1), conv(1, 28, 512, 1024, 1, 2)};
  for (const Layer& l : implicit) {
    INFO("conv r " << l.conv.r << " c " << l.conv.c << " k " << l.conv.k << " stride "
                   << l.conv.stride);
    const GpuProgram p = compile_gpu(dev, {l});
    REQUIRE(p.layers.at(0).kernels.size() == 1);  // no split-K reduction kernel
    const GpuKernel& g = p.kernels[p.layers[0].kernels[0]];
    REQUIRE(g.kind == GpuKernel::Kind::kGemm);
    CHECK(g.gemm.decomposition == GpuDecomposition::kDataParallel);
    CHECK_FALSE(g.gemm.tile.swap_ab);
  }
  // The same M x N x K as a 1x1 stride-1 convolution (a plain GEMM over NHWC) may take a
  // skinny tile but no split-K (no convolution cuDNN ran had one); as a GEMM layer it splits K.
  const GpuProgram plain = compile_gpu(dev, {conv(1, 7, 4608, 512, 1, 1)});
  REQUIRE(plain.layers.at(0).kernels.size() == 1);
  const GpuKernel& g = plain.kernels[plain.layers[0].kernels[0]];
  CHECK(g.gemm.decomposition == GpuDecomposition::kDataParallel);
  CHECK(g.gemm.tile.swap_ab);
  Layer gemm;
  gemm.name = "gemm";
  gemm.op = LayerOp::kGemm;
  gemm.dtype = DataType::kBf16;
  gemm.m = 49;
  gemm.n = 512;
  gemm.k = 4608;
  const GpuProgram as_gemm = compile_gpu(dev, {gemm});
  CHECK(as_gemm.kernels[as_gemm.layers.at(0).kernels.at(0)].gemm.decomposition ==
        GpuDecomposition::kSplitK);
}

TEST_CASE("GPU implicit-GEMM k-tiles do not span filter taps", "[gpu_lowering]") {
  // CUTLASS's analytic/optimized fprop iterators: R x S x ceil(C / bk) k-tiles; C below bk
  // packs taps (the few-channels iterator), a 1x1 filter is a plain K.
  GpuMappingOptions o;
  o.conv_taps = 9;
  o.conv_channels = 96;
  CHECK(gpu_implicit_gemm_k(o, 864, 64) == 9 * 128);
  CHECK(gpu_implicit_gemm_k(o, 864, 32) == 864);
  o.conv_channels = 128;
  CHECK(gpu_implicit_gemm_k(o, 1152, 64) == 1152);
  o.conv_channels = 8;  // ResNet-50's padded conv1 tap: packed
  CHECK(gpu_implicit_gemm_k(o, 72, 64) == 72);
  o.conv_taps = 1;
  o.conv_channels = 96;
  CHECK(gpu_implicit_gemm_k(o, 96, 64) == 96);
  CHECK(gpu_implicit_gemm_k(GpuMappingOptions{}, 1000, 64) == 1000);  // not a convolution
  std::mt19937 rng(5);
  for (int t = 0; t < 300; ++t) {
    o.conv_taps = std::uniform_int_distribution<std::int64_t>(2, 49)(rng);
    o.conv_channels = 8 * std::uniform_int_distribution<std::int64_t>(1, 64)(rng);
    const std::int64_t bk = 32 << std::uniform_int_distribution<int>(0, 1)(rng);
    const std::int64_t k = o.conv_taps * o.conv_channels, e = gpu_implicit_gemm_k(o, k, bk);
    INFO("taps " << o.conv_taps << " C " << o.conv_channels << " bk " << bk);
    CHECK(e >= k);
    if (o.conv_channels >= bk) {
      CHECK(e % (o.conv_taps * bk) == 0);  // whole k-tiles per tap
      CHECK(e - k < o.conv_taps * bk);     // at most one partial k-tile per tap
    } else {
      CHECK(e == k);
    }
  }
}

TEST_CASE("GPU lowering pads each tap of an implicit GEMM to whole k-tiles", "[gpu_lowering]") {
  // C = 96 with a 64-deep k-tile (cuDNN's 128x128x64 fprop tile, named): each of the 9 taps
  // takes two k-tiles, the second half masked; the A loads step tap by tap over 128 columns.
  const auto dev = test::h100();
  GpuMappingOptions o;
  o.tile_m = 128, o.tile_n = 128, o.tile_k = 64, o.warps_m = 1, o.warps_n = 1;
  const GpuProgram p = compile_gpu(dev, {conv(4, 28, 96, 128, 3, 1)}, o);
  const GpuKernel& g = p.kernels[p.layers.at(0).kernels.at(0)];
  REQUIRE(g.kind == GpuKernel::Kind::kGemm);
  CHECK(g.gemm.tile.bk == 64);
  CHECK(g.gemm.k == 9 * 128);
  const std::uint64_t e = 2;
  CHECK(g.addr.a_k(128) - g.addr.a_k(0) == 96 * e);           // next tap along S: C elements
  CHECK(g.addr.a_k(3 * 128) - g.addr.a_k(0) == 28 * 96 * e);  // next filter row
  CHECK(g.addr.a_k(64) - g.addr.a_k(0) == 64 * e);            // the tap's second k-tile
  CHECK(g.flops == u(2 * 4 * 28 * 28 * 128 * 9 * 96));        // useful work only
  // With a 32-deep k-tile the taps need no padding.
  o.tile_k = 32;
  const GpuProgram q = compile_gpu(dev, {conv(4, 28, 96, 128, 3, 1)}, o);
  CHECK(q.kernels[q.layers.at(0).kernels.at(0)].gemm.k == 9 * 96);
}

TEST_CASE("GPU Hopper implicit GEMMs take cuDNN's fprop tiles and cover the padded K",
          "[gpu_lowering]") {
  // The tiles of cuDNN 9.19's sm90_xmma_fprop_implicit_gemm kernels (bm x bn x bk, consumer
  // warpgroups along M x N), as gpu_gemm_mapping.cpp lists them from tests/validation/gpu/data.
  const std::set<std::string> cudnn = {"64x64x64 1x1",   "64x128x64 1x1",  "128x64x64 1x1",
                                       "128x128x64 1x1", "128x128x32 1x1", "256x64x32 1x1",
                                       "64x192x32 1x1",  "256x96x32 2x1",  "256x96x64 2x1"};
  const auto dev = test::h100();
  std::mt19937 rng(17);
  for (int t = 0; t < 40; ++t) {
    const std::int64_t n = 1 << std::uniform_int_distribution<int>(0, 5)(rng);
    const std::int64_t hw = 7 * (1 << std::uniform_int_distribution<int>(0, 3)(rng));
    const std::int64_t c = 32 * std::uniform_int_distribution<std::int64_t>(1, 16)(rng);
    const std::int64_t k = 32 * std::uniform_int_distribution<std::int64_t>(1, 16)(rng);
    const bool three = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    const std::int64_t r = three ? 3 : 1, stride = three ? 1 + t % 2 : 2;
    const Layer l = conv(n, hw, c, k, r, stride);
    INFO("n " << n << " hw " << hw << " c " << c << " k " << k << " r " << r << " stride "
              << stride);
    const GpuProgram p = compile_gpu(dev, {l});
    const GpuKernel& g = p.kernels[p.layers.at(0).kernels.at(0)];
    REQUIRE(g.kind == GpuKernel::Kind::kGemm);
    const auto& tile = g.gemm.tile;
    CHECK(cudnn.count(std::to_string(tile.bm) + "x" + std::to_string(tile.bn) + "x" +
                      std::to_string(tile.bk) + " " + std::to_string(tile.warps_m) + "x" +
                      std::to_string(tile.warps_n)) == 1);
    const std::int64_t cb = r > 1 && c >= tile.bk ? (c + tile.bk - 1) / tile.bk * tile.bk : c;
    CHECK(g.gemm.k == r * r * cb);
    // The CTAs cover M x N x K_padded exactly once.
    std::uint64_t volume = 0;
    for (const auto& w : g.works) volume += u(w.m) * u(w.n) * u(w.k);
    CHECK(volume == u(g.gemm.m) * u(g.gemm.n) * u(g.gemm.k));
    // The HBM estimate reads the image once per pass over N (its taps re-read it from L2),
    // not im2col's M x K elements, which are up to R x S times as many.
    const double image = static_cast<double>(n * hw * hw * c * 2);
    const double im2col = static_cast<double>(g.gemm.m * r * r * c * 2);
    const double weights = static_cast<double>(k * r * r * cb * 2);
    const double out = static_cast<double>(g.gemm.m * k * 2);
    CHECK(static_cast<double>(g.gemm.hbm_bytes) <=
          (std::min(image, im2col) + weights) * static_cast<double>(g.gemm.tiles_n) + out + 1);
  }
}

TEST_CASE("GPU implicit-GEMM HBM estimate counts the image, not im2col", "[gpu_lowering]") {
  // 32 x 56 x 56 x 96, 3x3: im2col's A is 100352 x 864 elements (173 MB), the image 19.3 MB;
  // the device reads the image from HBM about once (the taps hit in L2).
  const auto dev = test::h100();
  const GpuProgram p = compile_gpu(dev, {conv(32, 56, 96, 128, 3, 1)});
  const GpuKernel& g = p.kernels[p.layers.at(0).kernels.at(0)];
  const double im2col = 100352.0 * 864 * 2;
  CHECK(static_cast<double>(g.gemm.hbm_bytes) < im2col / 3);
  CHECK(g.gemm.hbm_bytes >= u(32 * 56 * 56 * 96 * 2 + 100352 * 128 * 2));  // image + output
  // Whatever k-tile it runs, its K pays for the taps (C = 96: a 64-deep k-tile pads each tap).
  const std::int64_t bk = g.gemm.tile.bk;
  CHECK(g.gemm.k == 9 * ((96 + bk - 1) / bk * bk));
}

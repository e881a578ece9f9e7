// GPU lowering of convolutions (workloads/lowering/gpu_lowering.h): input channels padded to
// whole 16-byte vectors as cuDNN and CUTLASS read them (ResNet-50's conv1, C = 3 -> 8 at bf16):
// a memset and a padding kernel before the implicit GEMM, whose K is R x S x C_padded and whose
// activation loads walk the padded image; aligned convolutions keep one kernel and their K.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
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

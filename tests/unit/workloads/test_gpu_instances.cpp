// GPU lowering of repeated layers (workloads/lowering/gpu_lowering.h, compile_gpu's `instance`):
// each instance of a `repeat: R` layer reads weights of its own, so a warm-up pass does not
// leave the next pass its weights in the L2; every other address, and any layer without a
// repeat, is the same in every instance, and instance R is instance 0 again.
#include <catch2/catch.hpp>

#include <cstdint>

#include "tests/unit/workloads/gpu_device_fixture.h"
#include "workloads/lowering/gpu_lowering.h"

using namespace systole;
using namespace systole::workloads;

namespace {

Layer gemm(const char* name, std::int64_t repeat) {
  Layer l;
  l.name = name;
  l.op = LayerOp::kGemm;
  l.dtype = DataType::kBf16;
  l.m = 512, l.n = 768, l.k = 1024;
  l.repeat = repeat;
  return l;
}

Layer conv(std::int64_t repeat) {
  Layer l;
  l.name = "conv";
  l.op = LayerOp::kConv2d;
  l.dtype = DataType::kBf16;
  l.conv = {2, 14, 14, 64, 64, 3, 3, 1, 1, 1, 1};  // n h w c k r s stride pad dil groups
  l.repeat = repeat;
  return l;
}

}  // namespace

TEST_CASE("GPU lowering: each instance of a repeated layer reads weights of its own",
          "[gpu_lowering]") {
  const auto dev = test::h100();
  const std::vector<Layer> layers = {gemm("once", 1), gemm("thrice", 3), conv(2)};
  const GpuProgram p0 = compile_gpu(dev, layers, {}, 0);
  REQUIRE(p0.kernels.size() == compile_gpu(dev, layers).kernels.size());
  for (std::size_t instance = 1; instance <= 6; ++instance) {
    const GpuProgram p = compile_gpu(dev, layers, {}, instance);
    REQUIRE(p.kernels.size() == p0.kernels.size());
    for (std::size_t k = 0; k < p.kernels.size(); ++k) {
      const auto& a = p.kernels[k].addr;
      const auto& a0 = p0.kernels[k].addr;
      const std::int64_t repeat = layers.at(p.kernels[k].layer).repeat;
      INFO("instance " << instance << " kernel " << p.kernels[k].name);
      CHECK(a.a == a0.a);  // activations: the same buffers
      CHECK(a.c == a0.c);
      if (p.kernels[k].kind != GpuKernel::Kind::kGemm) continue;
      if (instance % static_cast<std::size_t>(repeat) == 0)
        CHECK(a.b == a0.b);  // instance R is instance 0's layer again; repeat 1 never moves
      else
        CHECK(a.b != a0.b);  // another instance's weights: addresses nothing else uses
    }
  }
  // Instances 1 and 2 of the thrice-repeated GEMM differ from each other too.
  auto b_of = [&](std::size_t instance) {
    for (const auto& k : compile_gpu(dev, layers, {}, instance).kernels)
      if (k.name == "thrice") return k.addr.b;
    return std::uint64_t{0};
  };
  CHECK(b_of(1) != b_of(2));
}

// Speed of the FlashAttention forward model (plain C++, one core): the issue-11 example, a
// FlashAttention-3 forward of b=2, h=16, seq 8192, d=128 (bf16) on all 132 SMs of the H100 SXM5
// preset, behind workloads::gpu_attention_port (a latency-bandwidth port); and the
// same shape as FA-2 on the A100 preset. Prints simulated cycles, TFLOP/s and wall/CPU seconds.
// Usage: bench_gpu_attention [seq, default 8192] [repeats, default 3]
// Target (issue 11): the FA-3 run <= 5 s on one core. Measured figures: models/gpu_sm/README.md.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "models/gpu_sm/gpu_attention.h"
#include "sim/config/node.h"
#include "workloads/mapping/gpu_attention_mapping.h"

using namespace systole;

namespace {

models::GpuDeviceConfig load(const std::string& file) {
  const std::string path = std::string(SYSTOLE_SOURCE_DIR_DEFAULT) + "/configs/presets/" + file;
  config::Node root = config::resolve_bases(config::load_yaml_file(path));
  return models::GpuDeviceConfig::schema().load(*root.find("system")->find("device"),
                                                "system.device");
}

void run(const char* name, const std::string& preset, std::int64_t seq, int repeats) {
  const models::GpuDeviceConfig d = load(preset);
  workloads::Layer l;
  l.name = "attn";
  l.op = workloads::LayerOp::kAttention;
  l.attn = {2, 16, 16, seq, seq, 128, false};
  const auto m = workloads::map_gpu_attention(d, l);
  const auto launch = workloads::gpu_attention_launch(m, static_cast<int>(d.sms));
  for (int r = 0; r < repeats; ++r) {
    models::LatencyBandwidthPort port = workloads::gpu_attention_port(d, m, launch);
    models::GpuAttentionModel model(d.gpu_sm, port);
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const models::FlashRun run = model.run(launch);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const double secs = static_cast<double>(run.cycles) / d.gpu_sm.clock.value();
    std::printf("%-4s %s seq %lld: %llu cycles, %.1f TFLOP/s, %zu tiles; %.3f s wall, %.3f s CPU\n",
                name, m.tile_text().c_str(), static_cast<long long>(seq),
                static_cast<unsigned long long>(run.cycles), m.bounds.flops / secs / 1e12,
                launch.ctas.size(), wall, cpu);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t seq = argc > 1 ? std::strtoll(argv[1], nullptr, 10) : 8192;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  run("fa3", "h100_sxm5.yaml", seq, repeats);
  run("fa2", "a100_sxm4_80gb.yaml", seq, repeats);
  return 0;
}

#include "models/gpu_sm/gpu_sm_config.h"

#include <fmt/format.h>

#include <functional>
#include <vector>

#include "sim/config/preset_table.h"

namespace systole::models {

namespace {

constexpr GpuSmPreset kPresets[] = {GpuSmPreset::kA100Sxm4, GpuSmPreset::kH100Sxm5};

const GpuSmConfig& preset_values(GpuSmPreset p) {
  return config::preset_values<GpuSmConfig>(kPresets, p);
}

bool is_preset_text(const config::Node& n) { return n.is_scalar() && n.text() == "preset"; }

/// The SM schema: keys whose default is `preset` keep the value the preset filled in; their
/// docs list each preset's value, so every default is written once, in gpu_sm_presets.cpp.
class GpuSmSchema : public config::SchemaOf<GpuSmConfig> {
 public:
  using SchemaOf::SchemaOf;
  using Text = std::function<std::string(const GpuSmConfig&)>;
  using Assign = std::function<void(GpuSmConfig&, const config::Node&, const std::string&)>;

  GpuSmSchema& preset_choice() {
    Entry e = base("preset", "SM generation: fills every key whose default is 'preset'",
                   config::ParamType::kEnum, "");
    e.default_text = "a100_sxm4";
    e.range_text = "a100_sxm4 | h100_sxm5";
    e.assign = [](void* o, const config::Node& n, const std::string& p) {
      const std::vector<std::string> names = {"a100_sxm4", "h100_sxm5"};
      static_cast<GpuSmConfig*>(o)->apply_preset(kPresets[config::to_choice(n, p, names)]);
    };
    add(std::move(e));
    return *this;
  }

  GpuSmSchema& preset_key(const char* name, config::ParamType t, const char* unit,
                          const std::string& range, const char* doc, const Text& text,
                          const Assign& assign) {
    std::string values;
    for (auto q : kPresets)
      values += fmt::format("{}{} {}", values.empty() ? "" : ", ", gpu_sm_preset_name(q),
                            text(preset_values(q)));
    Entry e = base(name, fmt::format("{} ({})", doc, values), t, unit);
    e.default_text = "preset";
    e.range_text = range;
    e.assign = [assign](void* o, const config::Node& n, const std::string& p) {
      if (!is_preset_text(n)) assign(*static_cast<GpuSmConfig*>(o), n, p);
    };
    add(std::move(e));
    return *this;
  }

  GpuSmSchema& preset_int(const char* name, std::int64_t GpuSmConfig::*m, std::int64_t min,
                          std::int64_t max, const char* unit, const char* doc) {
    return preset_key(
        name, config::ParamType::kInt, unit, fmt::format("[{}, {}]", min, max), doc,
        [m](const GpuSmConfig& c) { return std::to_string(c.*m); },
        [m, min, max](GpuSmConfig& c, const config::Node& n, const std::string& p) {
          c.*m = config::to_int(n, p, min, max);
        });
  }

  GpuSmSchema& preset_bytes(const char* name, Bytes GpuSmConfig::*m, double max, const char* doc) {
    return preset_key(
        name, config::ParamType::kBytes, "B",
        fmt::format("[0 B, {}]", format_quantity(max, Dimension::kBytes)), doc,
        [m](const GpuSmConfig& c) {
          return format_quantity(static_cast<double>((c.*m).value()), Dimension::kBytes);
        },
        [m, max](GpuSmConfig& c, const config::Node& n, const std::string& p) {
          c.*m = Bytes(
              static_cast<std::uint64_t>(config::to_quantity(n, p, Dimension::kBytes, 0, max)));
        });
  }

 private:
  static Entry base(const char* name, const std::string& doc, config::ParamType t,
                    const char* unit) {
    Entry e;
    e.name = name;
    e.doc = doc;
    e.type = t;
    e.unit = unit;
    return e;
  }
};

[[noreturn]] void fail(const config::Node& n, const std::string& p, const char* key,
                       const std::string& msg) {
  const config::Node* k = n.is_map() ? n.find(key) : nullptr;
  if (!k && n.is_map()) k = n.find("preset");
  throw ConfigError(k ? k->origin() : n.origin(), p.empty() ? key : p + "." + key, msg);
}

void validate(const GpuSmConfig& c, const config::Node& n, const std::string& p) {
  if (c.sub_partitions < 1)
    fail(n, p, "sub_partitions",
         "an SM needs at least one sub-partition (warp scheduler + tensor core); A100 and H100 "
         "have 4");
  if (c.arch == GpuArch::kAmpere && c.tc_fp8_fma > 0)
    fail(n, p, "tc_fp8_fma",
         fmt::format("Ampere (A100) has no fp8 tensor-core path, got {} FMA/clk: set "
                     "tc_fp8_fma: 0, or arch: hopper for an H100-class SM",
                     c.tc_fp8_fma));
  const std::pair<const char*, std::int64_t> per_sp[] = {
      {"tc_fp16_fma", c.tc_fp16_fma}, {"tc_bf16_fma", c.tc_bf16_fma},
      {"tc_tf32_fma", c.tc_tf32_fma}, {"tc_fp8_fma", c.tc_fp8_fma},
      {"tc_int8_mac", c.tc_int8_mac}, {"fp32_lanes", c.fp32_lanes},
      {"sfu_lanes", c.sfu_lanes},     {"alu_lanes", c.alu_lanes},
      {"registers", c.registers}};
  for (const auto& [key, v] : per_sp)
    if (v % c.sub_partitions != 0)
      fail(n, p, key,
           fmt::format("{} does not split evenly over {} sub-partitions: give a multiple of {}", v,
                       c.sub_partitions, c.sub_partitions));
  if (c.fp32_lanes == 0 || c.sfu_lanes == 0)
    fail(n, p, c.fp32_lanes == 0 ? "fp32_lanes" : "sfu_lanes",
         "the epilogue needs FP32 and SFU lanes (A100: 64 and 16 per SM)");
  if (c.alu_lanes == 0)
    fail(n, p, "alu_lanes", "the softmax needs ALU lanes (A100 and H100: 64 per SM)");
  if (c.smem_per_block + c.smem_reserved_per_block > c.smem_per_sm)
    fail(n, p, "smem_per_block",
         fmt::format(
             "{} per block plus {} reserved exceeds the {} per SM: lower smem_per_block",
             format_quantity(static_cast<double>(c.smem_per_block.value()), Dimension::kBytes),
             format_quantity(static_cast<double>(c.smem_reserved_per_block.value()),
                             Dimension::kBytes),
             format_quantity(static_cast<double>(c.smem_per_sm.value()), Dimension::kBytes)));
  if (c.max_threads_per_cta > 32 * c.max_warps)
    fail(n, p, "max_threads_per_cta",
         fmt::format("{} threads need {} warps, more than max_warps {}", c.max_threads_per_cta,
                     (c.max_threads_per_cta + 31) / 32, c.max_warps));
  if (c.smem_alloc_unit.value() == 0)
    fail(n, p, "smem_alloc_unit", "the allocation unit must be at least 1 B (CUDA: 128 B)");
}

}  // namespace

const char* gpu_arch_name(GpuArch a) { return a == GpuArch::kAmpere ? "ampere" : "hopper"; }

const char* gpu_sm_preset_name(GpuSmPreset p) {
  return p == GpuSmPreset::kA100Sxm4 ? "a100_sxm4" : "h100_sxm5";
}

const char* tc_type_name(TcType t) {
  switch (t) {
    case TcType::kFp16:
      return "fp16";
    case TcType::kBf16:
      return "bf16";
    case TcType::kTf32:
      return "tf32";
    case TcType::kFp8E4M3:
      return "fp8_e4m3";
    case TcType::kFp8E5M2:
      return "fp8_e5m2";
    case TcType::kInt8:
      return "int8";
  }
  return "?";
}

std::int64_t tc_type_bytes(TcType t) {
  switch (t) {
    case TcType::kFp16:
    case TcType::kBf16:
      return 2;
    case TcType::kTf32:
      return 4;
    case TcType::kFp8E4M3:
    case TcType::kFp8E5M2:
    case TcType::kInt8:
      return 1;
  }
  return 0;
}

bool tc_type_is_int(TcType t) { return t == TcType::kInt8; }

std::int64_t GpuSmConfig::mma_sync_ii(TcType t) const {
  if (mma_sync_cycles > 0) return mma_sync_cycles;
  const std::int64_t macs = 16 * 8 * (32 / tc_type_bytes(t)), rate_sp = tc_rate(t) / sub_partitions;
  return rate_sp > 0 ? (macs + rate_sp - 1) / rate_sp : 0;
}

std::int64_t GpuSmConfig::tc_rate(TcType t) const {
  switch (t) {
    case TcType::kFp16:
      return tc_fp16_fma;
    case TcType::kBf16:
      return tc_bf16_fma;
    case TcType::kTf32:
      return tc_tf32_fma;
    case TcType::kFp8E4M3:
    case TcType::kFp8E5M2:
      return tc_fp8_fma;
    case TcType::kInt8:
      return tc_int8_mac;
  }
  return 0;
}

GpuSmConfig GpuSmConfig::from_preset(GpuSmPreset p) {
  config::Node n = config::Node::map();
  n.set("preset", config::Node::scalar(gpu_sm_preset_name(p)));
  return schema().load(n, "gpu_sm");
}

const config::SchemaOf<GpuSmConfig>& GpuSmConfig::schema() {
  static const GpuSmSchema s = [] {
    GpuSmSchema b("gpu_sm",
                  "GPU streaming multiprocessor: tensor-core pipes, occupancy, shared "
                  "memory (warp-level reference and tile-level model)");
    b.choice<GpuSmModel>("model", &GpuSmConfig::model,
                         {{"tile", GpuSmModel::kTile}, {"warp", GpuSmModel::kWarp}},
                         std::string("tile"),
                         "tile: one closed-form event per warp section (the default); warp: the "
                         "warp-level reference, every warp every cycle, same cycles, ~20-50x "
                         "slower");
    b.preset_choice();
    b.preset_key(
        "arch", config::ParamType::kEnum, "", "ampere | hopper",
        "ampere: mma.sync, cp.async, ldmatrix; hopper adds wgmma, TMA and mbarriers",
        [](const GpuSmConfig& c) { return std::string(gpu_arch_name(c.arch)); },
        [](GpuSmConfig& c, const config::Node& n, const std::string& p) {
          c.arch = config::to_choice(n, p, {"ampere", "hopper"}) == 0 ? GpuArch::kAmpere
                                                                      : GpuArch::kHopper;
        });
    b.preset_int("sub_partitions", &GpuSmConfig::sub_partitions, 0, 16, "blocks",
                 "sub-partitions (processing blocks): one warp scheduler and tensor core each");
    b.preset_key(
        "clock", config::ParamType::kFrequency, "Hz", "[1 MHz, 10 GHz]", "SM clock",
        [](const GpuSmConfig& c) {
          return format_quantity(c.clock.value(), Dimension::kFrequency);
        },
        [](GpuSmConfig& c, const config::Node& n, const std::string& p) {
          c.clock = Hz(config::to_quantity(n, p, Dimension::kFrequency, 1e6, 1e10));
        });
    const std::int64_t kMaxRate = 1 << 20;
    b.preset_int("tc_fp16_fma", &GpuSmConfig::tc_fp16_fma, 0, kMaxRate, "FMA/clk",
                 "dense fp16 tensor FMA per SM per clock (fp32 accumulate); 0: unsupported")
        .preset_int("tc_bf16_fma", &GpuSmConfig::tc_bf16_fma, 0, kMaxRate, "FMA/clk",
                    "dense bf16 tensor FMA per SM per clock")
        .preset_int("tc_tf32_fma", &GpuSmConfig::tc_tf32_fma, 0, kMaxRate, "FMA/clk",
                    "dense tf32 tensor FMA per SM per clock")
        .preset_int("tc_fp8_fma", &GpuSmConfig::tc_fp8_fma, 0, kMaxRate, "FMA/clk",
                    "dense fp8 (e4m3/e5m2) tensor FMA per SM per clock; Ampere has none")
        .preset_int("tc_int8_mac", &GpuSmConfig::tc_int8_mac, 0, kMaxRate, "MAC/clk",
                    "dense int8 tensor MAC per SM per clock (int32 accumulate)")
        .preset_int("mma_sync_cycles", &GpuSmConfig::mma_sync_cycles, 0, 10000, "cycles",
                    "a sub-partition's tensor-core cycles per mma.sync m16n8 with a 32-byte K "
                    "(m16n8k16 fp16/bf16); 0: from the tensor rate (A100: 8). H100: 6, measured "
                    "(2/3 of wgmma's rate)")
        .preset_int("mma_latency", &GpuSmConfig::mma_latency, 1, 10000, "cycles",
                    "ASSUMPTION (16-40): mma.sync issue to its accumulator being ready")
        .preset_int("wgmma_latency", &GpuSmConfig::wgmma_latency, 0, 10000, "cycles",
                    "ASSUMPTION (16-64): end of a wgmma's tensor-pipe occupancy to completion")
        .preset_int("fp32_lanes", &GpuSmConfig::fp32_lanes, 0, 4096, "FMA/clk",
                    "FP32 FMA per SM per clock (epilogue math)")
        .preset_int("sfu_lanes", &GpuSmConfig::sfu_lanes, 0, 4096, "ops/clk",
                    "special-function results (exp2, rcp, ...) per SM per clock")
        .preset_int("alu_lanes", &GpuSmConfig::alu_lanes, 0, 4096, "ops/clk",
                    "ALU results per SM per clock: compare/min/max, FP32-to-16-bit packing, "
                    "integer add and logic (A100 and H100: 64)")
        .preset_int("registers", &GpuSmConfig::registers, 1024, 1 << 24, "regs",
                    "32-bit registers per SM")
        .preset_int("max_warps", &GpuSmConfig::max_warps, 1, 1024, "warps", "resident warps per SM")
        .preset_int("max_ctas", &GpuSmConfig::max_ctas, 1, 1024, "CTAs", "resident CTAs per SM")
        .preset_int("max_threads_per_cta", &GpuSmConfig::max_threads_per_cta, 32, 1 << 16,
                    "threads", "threads per CTA")
        .preset_int("reg_alloc_unit", &GpuSmConfig::reg_alloc_unit, 1, 1 << 16, "regs",
                    "registers per warp are allocated in units of this");
    const double kMaxSmem = 64.0 * 1024 * 1024;
    b.preset_bytes("smem_per_sm", &GpuSmConfig::smem_per_sm, kMaxSmem,
                   "shared memory available to CTAs per SM (the carve-out)")
        .preset_bytes("smem_per_block", &GpuSmConfig::smem_per_block, kMaxSmem,
                      "shared memory one CTA may allocate")
        .preset_bytes("smem_reserved_per_block", &GpuSmConfig::smem_reserved_per_block, kMaxSmem,
                      "system shared memory added to every CTA's allocation")
        .preset_bytes("smem_alloc_unit", &GpuSmConfig::smem_alloc_unit, kMaxSmem,
                      "a CTA's shared memory is rounded up to a multiple of this");
    b.preset_int("smem_banks", &GpuSmConfig::smem_banks, 1, 1024, "banks",
                 "shared-memory banks (bandwidth = banks x bank_bytes per clock)")
        .preset_int("smem_bank_bytes", &GpuSmConfig::smem_bank_bytes, 1, 64, "B",
                    "bytes per bank per clock")
        .preset_int("smem_latency", &GpuSmConfig::smem_latency, 0, 10000, "cycles",
                    "ldmatrix: data in registers this long after its bank cycles");
    b.check(validate);
    return b;
  }();
  return s;
}

}  // namespace systole::models

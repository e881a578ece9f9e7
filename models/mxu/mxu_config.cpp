#include "models/mxu/mxu_config.h"

#include <fmt/format.h>

namespace systole::models {

const char* dataflow_name(Dataflow d) {
  switch (d) {
    case Dataflow::kWeightStationary:
      return "ws";
    case Dataflow::kOutputStationary:
      return "os";
    case Dataflow::kInputStationary:
      return "is";
  }
  return "?";
}

const config::SchemaOf<MxuConfig>& MxuConfig::schema() {
  static const config::SchemaOf<MxuConfig> s = [] {
    config::SchemaOf<MxuConfig> b("mxu", "systolic matrix unit (rows x cols PEs)");
    b.choice<MxuModel>(
        "model", &MxuConfig::model, {{"fold", MxuModel::kFold}, {"pe", MxuModel::kPe}},
        std::string("fold"),
        "fold: fold-level timing, event-driven (closed forms per op; the default); pe: the "
        "PE-level reference runs every matmul, every PE every cycle, on "
        "pseudo-random operands, and checks each result against a reference "
        "GEMM: same cycles as fold, ~10 ns per PE per cycle (128x128: ~6,500 "
        "cycles/s); arrays up to 128x128 PEs");
    b.integer("rows", &MxuConfig::rows, 128, 1, 4096, "PE rows (reduction dimension in ws)", "PEs")
        .integer("cols", &MxuConfig::cols, 128, 1, 4096, "PE columns", "PEs")
        .choice<Dataflow>("dataflow", &MxuConfig::dataflow,
                          {{"ws", Dataflow::kWeightStationary},
                           {"os", Dataflow::kOutputStationary},
                           {"is", Dataflow::kInputStationary}},
                          std::string("ws"), "which operand stays in the PEs")
        .choice<DataType>("input_type", &MxuConfig::input_type,
                          {{"int8", DataType::kInt8},
                           {"bf16", DataType::kBf16},
                           {"fp8_e4m3", DataType::kFp8E4M3},
                           {"fp8_e5m2", DataType::kFp8E5M2}},
                          std::string("bf16"), "operand type fed to the multipliers")
        .choice<DataType>("accumulate_type", &MxuConfig::accumulate_type,
                          {{"fp32", DataType::kFp32}, {"int32", DataType::kInt32}},
                          std::string("fp32"), "accumulator type")
        // TPU v1: 4096 rows x 256 x 32-bit = 4 MiB, half of it for double buffering (FACTS.md
        // §A.1, [TPU1] §2). No figure is published for later TPUs; the v1 row count is the
        // default.
        .integer("accumulators", &MxuConfig::accumulators, 4096, 1, 1 << 24,
                 "accumulator rows (each cols x 32-bit); an output tile x 2 (double-buffered) "
                 "must fit",
                 "rows")
        // TPU v1 stages weights from its DDR3 weight memory through a FIFO four tiles deep
        // (FACTS.md §A.1, [TPU1] Jouppi et al., ISCA 2017, §2). TPU v4 reads them from VMEM,
        // double-buffered there and in the array's shadow tile: no FIFO (the default).
        .integer("weight_fifo", &MxuConfig::weight_fifo, 0, 0, 1024,
                 "weight tiles (rows x cols) buffered between weight memory and the array; each "
                 "matmul waits only for its own tile (TPU v1: 4); 0: no FIFO, weights are staged "
                 "in double-buffered VMEM tiles (TPU v4)",
                 "tiles");
    b.check([](const MxuConfig& c, const config::Node& n, const std::string& p) {
      if (c.model == MxuModel::kPe && c.rows * c.cols > kMaxPeModelPes) {
        const config::Node* key = n.is_map() ? n.find("model") : nullptr;
        throw ConfigError(key ? key->origin() : n.origin(), p + ".model",
                          fmt::format("the PE-level model simulates every PE every cycle and "
                                      "takes arrays of at most {} PEs (128x128); this one has "
                                      "{}x{} = {}: use model: fold (same cycles)",
                                      kMaxPeModelPes, c.rows, c.cols, c.rows * c.cols));
      }
      const bool int_in = c.input_type == DataType::kInt8;
      const bool int_acc = c.accumulate_type == DataType::kInt32;
      if (int_in != int_acc)
        throw ConfigError(n.origin(), p + ".accumulate_type",
                          std::string("input_type ") + dtype_name(c.input_type) +
                              " needs accumulate_type " + (int_in ? "int32" : "fp32"));
    });
    return b;
  }();
  return s;
}

}  // namespace systole::models

#pragma once
// Reads the `workload:` section of an experiment: a file name, `{file: ...}`, or inline
// `{name: ..., layers: [...]}`. Workload files hold `name`, `source` and `layers`.
// Errors are ConfigErrors naming file, line, YAML path and layer.

#include "sim/config/node.h"
#include "sim/config/schema.h"
#include "workloads/ir/layer.h"

namespace systole::workloads {

Workload load_workload(const config::Node& node, const std::string& path = "workload");

/// The schema of one GEMM layer entry (for --describe gemm).
const config::Schema& gemm_layer_schema();

}  // namespace systole::workloads

#pragma once
// Reads the `workload:` section of an experiment: a file name, `{file: ..., params: {...}}`, or
// inline `{name: ..., params: ..., layers: [...]}`. Workload files hold `name`, `source`,
// `params` (integers, e.g. batch, that layer fields may use in expressions such as
// `batch * 49` and that experiments and sweeps override: `workload.params.batch: [1, 8]`) and
// `layers`. Each layer has an `op` (gemm by default) and that op's fields.
// Errors are ConfigErrors naming file, line, YAML path and layer.

#include "sim/config/node.h"
#include "sim/config/schema.h"
#include "workloads/ir/layer.h"

namespace systole::workloads {

Workload load_workload(const config::Node& node, const std::string& path = "workload");

/// The schema of each layer op (for --describe gemm, conv2d, attention, softmax, ...).
const config::Schema& layer_schema(LayerOp op);
/// Every op name with its enum, in registry order.
const std::vector<std::pair<std::string, LayerOp>>& layer_ops();

}  // namespace systole::workloads

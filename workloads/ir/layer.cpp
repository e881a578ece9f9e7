#include "workloads/ir/layer.h"

#include <fmt/format.h>

namespace systole::workloads {

const char* layer_op_name(LayerOp op) {
  switch (op) {
    case LayerOp::kGemm:
      return "gemm";
  }
  return "?";
}

std::string Layer::shape() const {
  if (batch == 1) return fmt::format("{}x{}x{}", m, n, k);
  return fmt::format("{}x({}x{}x{})", batch, m, n, k);
}

}  // namespace systole::workloads

#pragma once
// The layer IR: what to compute, independent of any target.

#include <cstdint>
#include <string>
#include <vector>

#include "models/mxu/mxu_config.h"
#include "sim/core/error.h"

namespace systole::workloads {

enum class LayerOp { kGemm };
const char* layer_op_name(LayerOp op);

/// A (batched) GEMM: C[batch][m x n] = A[batch][m x k] * B[k x n]. B (the weights) is shared
/// by the batch, so the batch folds into M.
struct Layer {
  std::string name;
  LayerOp op = LayerOp::kGemm;
  std::int64_t batch = 1;
  std::int64_t m = 0, n = 0, k = 0;
  models::DataType dtype = models::DataType::kBf16;  ///< operand type; outputs in the same type
  std::int64_t repeat = 1;  ///< identical layers in a row (e.g. transformer blocks)
  Origin origin;            ///< where the layer was declared

  std::int64_t rows() const { return batch * m; }  ///< GEMM M after folding the batch
  std::uint64_t macs() const {
    return static_cast<std::uint64_t>(rows()) * static_cast<std::uint64_t>(n) *
           static_cast<std::uint64_t>(k);
  }
  std::string shape() const;  ///< "8192x8192x8192" or "8x(8x8192)x..." for people
};

struct Workload {
  std::string name;
  std::string source;  ///< where the shapes come from
  std::string file;    ///< file it was read from, or "" when inline
  std::vector<Layer> layers;
};

}  // namespace systole::workloads

#pragma once
// MXU configurations for the PE-level and fold-level tests: an R x C array of a dataflow and
// input type, with the matching accumulator type and accumulators that never limit a job.
#include <cstdint>

#include "models/mxu/mxu_config.h"

namespace systole::test {

inline models::MxuConfig array(std::int64_t rows, std::int64_t cols, models::Dataflow d,
                               DataType t = DataType::kInt8) {
  models::MxuConfig c;
  c.rows = rows;
  c.cols = cols;
  c.dataflow = d;
  c.input_type = t;
  c.accumulate_type = t == DataType::kInt8 ? DataType::kInt32 : DataType::kFp32;
  c.accumulators = 1 << 20;
  return c;
}

}  // namespace systole::test

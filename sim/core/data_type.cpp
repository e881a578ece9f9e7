#include "sim/core/data_type.h"

namespace systole {

const char* dtype_name(DataType t) {
  switch (t) {
    case DataType::kInt8:
      return "int8";
    case DataType::kBf16:
      return "bf16";
    case DataType::kFp8E4M3:
      return "fp8_e4m3";
    case DataType::kFp8E5M2:
      return "fp8_e5m2";
    case DataType::kFp32:
      return "fp32";
    case DataType::kInt32:
      return "int32";
  }
  return "?";
}

std::uint32_t dtype_bytes(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kFp8E4M3:
    case DataType::kFp8E5M2:
      return 1;
    case DataType::kBf16:
      return 2;
    case DataType::kFp32:
    case DataType::kInt32:
      return 4;
  }
  return 0;
}

}  // namespace systole

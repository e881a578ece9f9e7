#pragma once
// Element types of tensors, shared by the workload IR, the compilers and every device model
// (MXU operands, GPU tensor-core inputs, accumulators).

#include <cstdint>

namespace systole {

enum class DataType { kInt8, kBf16, kFp8E4M3, kFp8E5M2, kFp32, kInt32 };
const char* dtype_name(DataType t);
std::uint32_t dtype_bytes(DataType t);

}  // namespace systole

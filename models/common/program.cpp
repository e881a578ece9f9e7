#include "models/common/program.h"

namespace systole::models {

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::kLoad:
      return "load";
    case OpKind::kStore:
      return "store";
    case OpKind::kMatmul:
      return "matmul";
    case OpKind::kVector:
      return "vector";
    case OpKind::kCollective:
      return "collective";
  }
  return "?";
}

}  // namespace systole::models

#pragma once
// The SystemC interface through which DMA engines reach a memory (HBM, CMEM).

#include <systemc>

#include <cstdint>

namespace systole::models {

class MemoryIf : public virtual sc_core::sc_interface {
 public:
  /// Called from an SC_THREAD. Blocks until the memory can take the next transfer from this
  /// caller; returns the extra time until the data has fully arrived.
  virtual sc_core::sc_time transfer(std::uint64_t bytes, bool write) = 0;
};

}  // namespace systole::models

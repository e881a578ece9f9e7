#pragma once
// A testbench's stimulus: runs a function in an SC_THREAD (so it may wait on events and time).

#include <systemc>

#include <functional>
#include <utility>

namespace systole::test {

/// Runs `body` in an SC_THREAD.
struct Driver : sc_core::sc_module {
  SC_HAS_PROCESS(Driver);
  Driver(const sc_core::sc_module_name& n, std::function<void()> body)
      : sc_core::sc_module(n), body_(std::move(body)) {
    SC_THREAD(run);
  }
  void run() { body_(); }
  std::function<void()> body_;
};

}  // namespace systole::test

#pragma once
// A SystemC testbench thread: runs `body` in an SC_THREAD; the test then calls sc_start() until
// no event is left.

#include <systemc>

#include <functional>
#include <utility>

namespace systole::test {

struct Bench : sc_core::sc_module {
  std::function<void()> body;
  explicit Bench(std::function<void()> f) : sc_core::sc_module("bench"), body(std::move(f)) {
    SC_HAS_PROCESS(Bench);
    SC_THREAD(run);
  }
  void run() { body(); }
};

}  // namespace systole::test

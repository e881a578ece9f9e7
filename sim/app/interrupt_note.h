#pragma once
// What simrun says when Ctrl-C (SIGINT) or SIGTERM stops a run: the points finished so far stay
// in the partial results file, and --resume continues from them.

#include <string>

namespace systole::app {

/// While alive, SIGINT and SIGTERM print one line naming "<out>.partial" and how to continue,
/// then end the process as the signal would have (the workers die with it). The previous
/// handlers come back when it is destroyed.
class InterruptNote {
 public:
  explicit InterruptNote(const std::string& out);
  ~InterruptNote();
  InterruptNote(const InterruptNote&) = delete;
  InterruptNote& operator=(const InterruptNote&) = delete;
};

}  // namespace systole::app

#pragma once
// Output files are written to "<path>.partial" and renamed at the end (DESIGN.md §6). These
// checks run before anything is simulated, so a bad output path costs nothing: the path must
// be a regular file or absent, in an existing writable directory, and none of the run's input
// files; and only one run at a time may write it (OutputLock).

#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.h"

namespace systole {

/// Where an output path was given, for its errors: `-o` on the command line, or a config key.
struct OutputArg {
  /// `-o` on the command line. (Out of line: GCC 12 reports a default member initializer of
  /// an aggregate used as a default argument as maybe uninitialized.)
  OutputArg();
  OutputArg(Origin o, std::string n) : origin(std::move(o)), name(std::move(n)) {}
  Origin origin;
  std::string name;
};

/// Throws ConfigError (exit 2) naming `arg` when `path` is empty, is not a regular file (a
/// directory, a device, a FIFO, a symbolic link), lies in a directory that is missing or not
/// writable, or is the same file as one of `inputs`.
void check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       const OutputArg& arg = {});

/// Throws ConfigError naming `arg` when `path` is the same file as one of `inputs` (device and
/// inode; a path that does not exist is no input).
void check_not_input(const std::string& path, const std::vector<std::string>& inputs,
                     const OutputArg& arg = {});

/// Why renaming a finished file over `path` would be wrong: "" when `path` is a regular file
/// or absent, else what it is ("a directory", "a character device", "a symbolic link", ...).
std::string replace_blocker(const std::string& path);

/// An exclusive lock on "<path>.lock" (flock), so a second run writing the same output fails at
/// once (ConfigError, exit 2) instead of both writing it and one run's results being lost. The
/// lock is held until the object is destroyed; then the lock file is removed. A run killed
/// with SIGKILL leaves the file unlocked, and the next run takes it over.
class OutputLock {
 public:
  OutputLock() = default;
  OutputLock(const std::string& path, const OutputArg& arg = {});
  ~OutputLock();
  OutputLock(OutputLock&& o) noexcept;
  OutputLock& operator=(OutputLock&& o) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  const std::string& lock_path() const { return lock_path_; }
  void release();

 private:
  std::string lock_path_;
  int fd_ = -1;
};

}  // namespace systole

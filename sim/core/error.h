#pragma once
// Typed exceptions. Library code throws these; only main() catches and prints them.

#include <stdexcept>
#include <string>

namespace systole {

/// Where a value came from: a file position, or a synthetic origin such as "-p" or a sweep.
struct Origin {
  std::string file;         // path as given, or "<command line>", "<sweep>", "<default>"
  int line = 0;             // 1-based; 0 when unknown
  int column = 0;           // 1-based; 0 when unknown
  std::string str() const;  // "file:line:col", "file:line" or "file"
};

/// Base of all Systole errors. exit_code() is what simrun returns for it.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  virtual int exit_code() const { return 1; }
};

/// Bad experiment/config input: `file:line:col: yaml.path: what was expected (did you mean ...)`.
class ConfigError : public Error {
 public:
  ConfigError(const Origin& origin, const std::string& path, const std::string& message);
  int exit_code() const override { return 2; }
  const Origin& origin() const { return origin_; }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

 private:
  Origin origin_;
  std::string path_;
  std::string message_;
};

/// Bad workload input (unknown op, inconsistent shapes, a layer that fits nowhere).
class WorkloadError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 2; }
};

/// A failure while simulating (an internal invariant broke, a deadlock).
class SimError : public Error {
 public:
  using Error::Error;
};

/// Internal invariant check with a message; never used for user input.
[[noreturn]] void fail_invariant(const char* cond, const char* file, int line,
                                 const std::string& msg);
#define SYSTOLE_ASSERT(cond, msg)                                             \
  do {                                                                        \
    if (!(cond)) ::systole::fail_invariant(#cond, __FILE__, __LINE__, (msg)); \
  } while (0)

}  // namespace systole

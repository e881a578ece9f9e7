#include "sim/core/output_path.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "sim/core/input_file.h"

namespace systole {

OutputArg::OutputArg() : origin{"<command line>", 0, 0}, name("-o") {}

namespace {

[[noreturn]] void fail(const OutputArg& arg, const std::string& msg) {
  throw ConfigError(arg.origin, arg.name, msg);
}

/// The directory an output file is created in ("." for a bare name).
std::string parent_dir(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

void check_directory(const std::string& path, const OutputArg& arg) {
  const std::string dir = parent_dir(path);
  const std::string kind = non_regular_kind(dir);
  if (kind == "missing")
    fail(arg, fmt::format("cannot write '{}': directory '{}' does not exist", path, dir));
  if (kind != "a directory")
    fail(arg, fmt::format("cannot write '{}': '{}' is not a directory", path, dir));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    fail(arg, fmt::format("cannot write '{}': directory '{}' is not writable ({})", path, dir,
                          std::strerror(errno)));
}

/// lstat's view: a symbolic link is reported as one, not followed.
std::string own_kind(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "missing";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  return non_regular_kind(path);
}

}  // namespace

std::string replace_blocker(const std::string& path) {
  const std::string kind = own_kind(path);
  return kind == "missing" ? "" : kind;
}

void check_not_input(const std::string& path, const std::vector<std::string>& inputs,
                     const OutputArg& arg) {
  struct stat out {};
  if (::stat(path.c_str(), &out) != 0) return;
  for (const auto& in : inputs) {
    struct stat st {};
    if (::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      fail(arg, fmt::format("'{}' is an input of this run{}; write the results elsewhere", path,
                            in == path ? "" : " (the same file as '" + in + "')"));
  }
}

void check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       const OutputArg& arg) {
  if (path.empty()) fail(arg, "empty file name: give the results file, e.g. -o results.h5");
  const std::string kind = own_kind(path);
  if (!kind.empty() && kind != "missing")
    fail(arg, fmt::format("'{}' is {}; the results file must be a regular file or not exist yet",
                          path, kind));
  if (path.back() == '/') fail(arg, fmt::format("'{}' names a directory; give a file name", path));
  check_directory(path, arg);
  check_not_input(path, inputs, arg);
}

OutputLock::OutputLock(const std::string& path, const OutputArg& arg) : lock_path_(path + ".lock") {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      fail(arg,
           fmt::format("cannot create the lock file '{}': {}", lock_path_, std::strerror(errno)));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      char pid[32] = {};
      const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
      ::close(fd);
      if (err == EWOULDBLOCK)
        fail(arg, fmt::format(
                      "'{}' is being written by another run{} (it holds '{}')", path,
                      n > 0 ? fmt::format(" (process {})", std::string(pid, static_cast<size_t>(n)))
                            : "",
                      lock_path_));
      fail(arg, fmt::format("cannot lock '{}': {}", lock_path_, std::strerror(err)));
    }
    // The holder before us may have removed the file after we opened it: lock the file that
    // is there now, or another run could lock a new one beside ours.
    struct stat ours {
    }, there{};
    if (::fstat(fd, &ours) == 0 && ::stat(lock_path_.c_str(), &there) == 0 &&
        ours.st_dev == there.st_dev && ours.st_ino == there.st_ino) {
      fd_ = fd;
      const std::string pid = std::to_string(::getpid());
      if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
        // The pid is only a hint for the error message of a second run.
      }
      return;
    }
    ::close(fd);
  }
  fail(arg, fmt::format("cannot lock '{}': it keeps being replaced", lock_path_));
}

OutputLock::~OutputLock() { release(); }

OutputLock::OutputLock(OutputLock&& o) noexcept
    : lock_path_(std::move(o.lock_path_)), fd_(std::exchange(o.fd_, -1)) {}

OutputLock& OutputLock::operator=(OutputLock&& o) noexcept {
  if (this != &o) {
    release();
    lock_path_ = std::move(o.lock_path_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

void OutputLock::release() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // while still locked, so no other run holds a removed file
  ::close(fd_);
  fd_ = -1;
}

}  // namespace systole

#pragma once
// Scratch folders of the fuzz targets that do not outlive their process. A fuzz process often
// dies without running atexit handlers (a crash, a timeout or an RSS limit: libFuzzer leaves by
// _Exit or a signal), so each folder is held with flock(2) by its process, and the next fuzz
// process, or tools/fuzz.sh at its end, removes every folder that nobody holds any more.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace systole::fuzz {

/// Name prefix of the folders (tools/fuzz.sh sweeps the same pattern). Unlike the unlocked
/// systole-fuzz-XXXXXX folders of earlier builds, so that a build of before does not lose its
/// folder to a build of after while both run.
inline constexpr const char* kScratchPrefix = "systole-fuzz-locked-";

/// A folder created and locked by this process; `fd` keeps the lock until the process ends.
struct LockedDir {
  std::filesystem::path path;
  int fd = -1;
};

/// Removes every <tmp>/systole-fuzz-locked-* whose lock can be taken: its process is gone.
inline void remove_orphans(const std::filesystem::path& tmp) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    if (p.filename().string().rfind(kScratchPrefix, 0) != 0) continue;
    const int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    std::error_code rm;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) fs::remove_all(p, rm);
    ::close(fd);
  }
}

/// Creates <tmp>/systole-fuzz-locked-XXXXXX and locks it. Between mkdtemp and flock another
/// process's remove_orphans may take the folder for an orphan and remove it; then this tries again.
inline LockedDir make_locked_dir(const std::filesystem::path& tmp) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmpl = (tmp / (std::string(kScratchPrefix) + "XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    const int fd = ::open(tmpl.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat held {};
    struct stat named {};
    if (fd >= 0 && ::flock(fd, LOCK_EX) == 0 && ::fstat(fd, &held) == 0 &&
        ::stat(tmpl.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev)
      return {tmpl, fd};
    if (fd >= 0) ::close(fd);
  }
  std::abort();
}

}  // namespace systole::fuzz

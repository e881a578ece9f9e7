// The fuzz targets' scratch folders (tests/fuzz/scratch_dir.h, fuzz_support.h): a process that
// ends normally removes its own; one that dies without its atexit handlers (libFuzzer's _Exit
// after a crash, a timeout or an RSS limit) leaves it to the next fuzz process, which removes
// every folder nobody holds. Before, each dying fuzz_results child left /tmp/systole-fuzz-*
// behind (about 1,580 of them after a day of fork-mode runs).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/fuzz/fuzz_support.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using systole::test::TempDir;

namespace {

enum class End { kNormal, kDies };

/// Runs a child whose temp dir is `tmp`: it writes one fuzz input, as a target does, then
/// returns from main's point of view (exit) or dies the way libFuzzer ends a crashing run.
void fuzz_child(const fs::path& tmp, End end) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    const uint8_t byte = 0;
    (void)systole::fuzz::write_input("r.h5", &byte, 1);
    if (end == End::kNormal) std::exit(0);
    ::_exit(1);  // libFuzzer's crash path: _Exit, no atexit handlers
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == (end == End::kNormal ? 0 : 1));
}

/// A child that makes a locked folder under `tmp` and dies holding it.
fs::path orphan(const fs::path& tmp) {
  const fs::path before = tmp / "before";
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const auto dir = systole::fuzz::make_locked_dir(tmp);
    std::FILE* f = std::fopen(before.c_str(), "w");
    if (f == nullptr) ::_exit(2);
    std::fputs(dir.path.c_str(), f);
    std::fclose(f);
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::ifstream in(before);
  std::string path;
  std::getline(in, path);
  fs::remove(before);
  return path;
}

}  // namespace

TEST_CASE(
    "a fuzz process leaves no scratch folder after a normal exit, nor after a crash once "
    "the next has started",
    "[unit][reliability][fuzz]") {
  TempDir tmp;
  fuzz_child(tmp.dir, End::kNormal);
  CHECK(tmp.count() == 0);
  fuzz_child(tmp.dir, End::kDies);
  CHECK(tmp.count() == 1);  // its folder: nobody ran its atexit handler
  fuzz_child(tmp.dir, End::kDies);
  CHECK(tmp.count() == 1);  // the second removed the first's, then died too
  fuzz_child(tmp.dir, End::kNormal);
  CHECK(tmp.count() == 0);
}

TEST_CASE("remove_orphans removes only the folders whose process is gone",
          "[unit][reliability][fuzz]") {
  TempDir tmp;
  const fs::path gone = orphan(tmp.dir);
  REQUIRE(fs::is_directory(gone));
  const auto mine = systole::fuzz::make_locked_dir(tmp.dir);
  const fs::path older = tmp.dir / "systole-fuzz-Ab12Cd";  // an unlocked folder of older builds
  const fs::path other = tmp.dir / "other";
  fs::create_directory(older);
  fs::create_directory(other);

  systole::fuzz::remove_orphans(tmp.dir);
  CHECK_FALSE(fs::exists(gone));
  CHECK(fs::is_directory(mine.path));
  CHECK(fs::is_directory(older));
  CHECK(fs::is_directory(other));

  ::close(mine.fd);  // as when this process ends
  systole::fuzz::remove_orphans(tmp.dir);
  CHECK_FALSE(fs::exists(mine.path));
  CHECK(tmp.count() == 2);
}

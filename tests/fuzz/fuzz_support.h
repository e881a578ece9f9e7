#pragma once
// Shared by the libFuzzer targets (tools/fuzz.sh): a scratch folder per process that mirrors the
// repository's configs/presets and workloads (so seeds that name `base: presets/...` or
// `workloads/...` resolve), and the rule every target checks: a loader may reject its input
// only with a Systole error (one clean line, exit 2 in simrun); any other exception is a
// finding, reported by abort() so libFuzzer saves the input.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>

#include "sim/core/error.h"
#include "tests/fuzz/scratch_dir.h"

namespace systole::fuzz {

/// <tmp>/systole-fuzz-locked-XXXXXX/configs, with presets -> the repository's configs/presets
/// and ../workloads -> the repository's workloads. Removed when the process exits normally;
/// after a crash, by the next fuzz process (or tools/fuzz.sh), which first removes every
/// folder whose process is gone (scratch_dir.h).
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    namespace fs = std::filesystem;
    const fs::path tmp = fs::temp_directory_path();
    remove_orphans(tmp);
    const fs::path root = make_locked_dir(tmp).path, src(SYSTOLE_SOURCE_DIR);
    fs::create_directories(root / "configs");
    fs::create_directory_symlink(src / "configs" / "presets", root / "configs" / "presets");
    fs::create_directory_symlink(src / "workloads", root / "workloads");
    static const std::string keep = root.string();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(keep, ec);
    });
    return root / "configs";
  }();
  return dir;
}

/// Writes `size` bytes to scratch()/name and returns its path.
inline std::string write_input(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = (scratch() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) std::abort();
  return path;
}

/// Runs `f`; a systole::Error is an accepted rejection, anything else a finding.
template <class F>
void expect_clean(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    // Rejected the way simrun reports bad input: exit 2 and one line.
    const std::string what = e.what();
    if (e.exit_code() != 2 || what.find('\n') != std::string::npos) {
      std::fprintf(stderr, "FINDING: exit code %d or several lines: %s\n", e.exit_code(),
                   what.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FINDING: %s escaped the loader: %s\n", typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "FINDING: a non-standard exception escaped the loader\n");
    std::abort();
  }
}

}  // namespace systole::fuzz

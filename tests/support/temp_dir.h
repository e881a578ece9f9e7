#pragma once
// A fresh empty directory under the system temp dir, removed with everything in it.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

namespace systole::test {

struct TempDir {
  std::filesystem::path dir;
  TempDir() {
    std::random_device rd;
    const auto t = std::chrono::steady_clock::now().time_since_epoch().count();
    dir = std::filesystem::temp_directory_path() /
          ("systole-test-" + std::to_string(t) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (dir / name).string(); }
  /// Writes `text` to `name` (creating sub-directories) and returns the full path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = dir / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  /// Entries directly in the directory.
  size_t count() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                             std::filesystem::directory_iterator{}));
  }
};

}  // namespace systole::test

// The bad-input catalogue (issue 15 item 6): every case in tests/e2e/bad_inputs/cases.txt runs
// `simrun` or `systole-trace` on malformed input (experiment, workload, SCALE-Sim cfg and
// topology files, results files, command lines) in one folder holding tests/e2e/bad_inputs/files
// and a results file from an earlier run, out.h5. Each must exit 2, print exactly its expected
// line on stderr and nothing on stdout, leave no file behind (no .partial, no .lock) and leave
// out.h5 byte for byte as it was.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/support/run.h"

using namespace systole;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name, run, err;
  int line = 0;
};

/// cases.txt: "[name]", "run: COMMAND", "err: LINE" per case; '#' lines are comments.
std::vector<Case> read_cases(const std::string& path) {
  std::ifstream in(path);
  std::vector<Case> out;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      out.push_back({line.substr(1, line.size() - 2), "", "", n});
    } else if (!out.empty() && line.rfind("run: ", 0) == 0) {
      out.back().run = line.substr(5);
    } else if (!out.empty() && line.rfind("err: ", 0) == 0) {
      out.back().err = line.substr(5);
    } else {
      FAIL(path << ":" << n << ": unexpected line: " << line);
    }
  }
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_symlink()) continue;  // presets/, workloads/: links into the repository
    out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

}  // namespace

TEST_CASE("the bad-input catalogue: exit 2, one exact line, nothing left behind",
          "[e2e][reliability][bad_inputs]") {
  const std::string src = test::source_dir(), here = src + "/tests/e2e/bad_inputs";
  const auto cases = read_cases(here + "/cases.txt");
  REQUIRE(cases.size() >= 100);

  test::TempDir dir;
  fs::copy(here + "/files", dir.dir, fs::copy_options::recursive);
  fs::create_directory_symlink(src + "/configs/presets", dir.dir / "presets");
  fs::create_directory_symlink(src + "/workloads", dir.dir / "workloads");
  fs::create_directory(dir.dir / "sub");
  REQUIRE(::mkfifo(dir.file("fifo.yaml").c_str(), 0600) == 0);
  const std::string earlier = "a results file from an earlier run\n";
  dir.write("out.h5", earlier);
  const auto before = listing(dir.dir);

  std::set<std::string> names;
  for (const auto& c : cases) {
    INFO("cases.txt:" << c.line << ": [" << c.name << "] " << c.run);
    CHECK(names.insert(c.name).second);
    REQUIRE(!c.run.empty());
    REQUIRE(!c.err.empty());
    const std::string program = c.run.substr(0, c.run.find(' '));
    REQUIRE((program == "simrun" || program == "systole-trace"));
    const std::string cmd = test::bin_dir() + "/" + replace_all(c.run, "{src}", src);
    const auto r = test::run("cd " + dir.dir.string() + " && " + cmd, dir);
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == replace_all(replace_all(c.err, "{dir}", dir.dir.string()), "{src}", src) + "\n");
    const auto after = listing(dir.dir);
    std::vector<std::string> left;
    std::set_symmetric_difference(after.begin(), after.end(), before.begin(), before.end(),
                                  std::back_inserter(left));
    CHECK(left.empty());
    for (const auto& f : left) fs::remove_all(dir.dir / f);
    CHECK(bytes_of(dir.file("out.h5")) == earlier);
    if (bytes_of(dir.file("out.h5")) != earlier) dir.write("out.h5", earlier);
  }
}

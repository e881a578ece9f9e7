// The direct YAML writer (sim/config/yaml_writer.h) against yaml-cpp's emitter: byte-identical
// text on every YAML file of the repository and on random trees with adversarial scalars. The
// benchmark is hidden from the default run: `unit_tests "[config][bench]"`.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/systems/tpu_chip/tpu_system_config.h"
#include "sim/config/experiment.h"
#include "sim/config/node.h"
#include "sim/config/yaml_writer.h"
#include "tests/support/paths.h"

namespace fs = std::filesystem;
using namespace systole;
using namespace systole::config;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Scalars that sit on the edges of yaml-cpp's plain/quoted decision.
const std::vector<std::string>& adversarial() {
  static const std::vector<std::string> v = {
      "",         " ",        "  ",    "a",       " a",     "a ",
      " a ",      "a b",      "a  b",  "a: b",    "a:b",    "a:",
      ":a",       ":",        "a #b",  "a#b",     "#a",     "'a'",
      "\"a\"",    "it's",     "a\"b",  "~",       "null",   "Null",
      "NULL",     "nULL",     "null ", "true",    "false",  "True",
      "no",       "yes",      "off",   "-",       "--",     "---",
      "- a",      "-a",       "-1",    "-.5",     ".5",     ".",
      "..",       "...",      "/",     "+",       "+1",     "0x1F",
      "1e3",      "1.2TB/s",  "16MiB", "1050MHz", "30ns",   "[",
      "]",        "{",        "}",     "[a]",     "{a: b}", ",",
      "a,b",      "a, b",     "&a",    "*a",      "!a",     "|",
      ">",        "%",        "@",     "`",       "?",      "?a",
      "? a",      "a?",       "é",     "ü1",      "日本",   "\xEF\xBB\xBF",
      "\xC2\x85", "\xC2\xA0", "\xFF",  "\x01",    "\x7F",   "a\nb",
      "\n",       "a\n",      "a\tb",  "\t",      "a\rb",   "a\\b",
      "a/b",      "a_b",      "a.b",   "a+b",     "a-b",    "a -b",
      "a - b",    "=",        "<<",    "1_000"};
  return v;
}

// Characters random scalars are drawn from: a word alphabet and every YAML indicator.
const std::vector<std::string>& pieces() {
  static const std::vector<std::string> v = {
      "a",  "Z", "0", "9",  "_",        ".",    "/",    "+",    "-",  " ",  " ",
      ":",  "#", "'", "\"", "~",        "[",    "]",    "{",    "}",  ",",  "&",
      "*",  "!", "|", ">",  "%",        "@",    "`",    "?",    "\t", "\n", "\r",
      "\\", "=", "<", "é",  "\xC2\xA0", "\xFF", "\x01", "null", "-1", ".5", "x"};
  return v;
}

class RandomTree {
 public:
  explicit RandomTree(unsigned seed) : rng_(seed) {}

  Node node(int depth) {
    const int kind = pick(depth >= 4 ? 2 : 5);
    if (kind == 0) return Node();
    if (kind == 1) return Node::scalar(scalar());
    if (kind == 2 || kind == 3) return list(depth);
    return map(depth);
  }

  Node map(int depth) {
    Node m = Node::map();
    const int n = pick(5);
    for (int i = 0; i < n; ++i) m.set(key(), node(depth + 1));
    return m;
  }

 private:
  std::mt19937 rng_;

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  Node list(int depth) {
    Node s = Node::seq();
    const int n = pick(5);
    const bool scalars_only = pick(2) == 0;
    for (int i = 0; i < n; ++i)
      s.push_back(scalars_only ? Node::scalar(scalar()) : node(depth + 1));
    return s;
  }

  std::string scalar() {
    const int how = pick(10);
    if (how < 3)
      return adversarial()[static_cast<size_t>(pick(static_cast<int>(adversarial().size())))];
    if (how == 3)
      return std::string(static_cast<size_t>(1000 + pick(1500)), 'x') + (pick(2) ? " " : "y");
    std::string s;
    const int n = pick(how < 7 ? 4 : 12);
    for (int i = 0; i < n; ++i)
      s += pieces()[static_cast<size_t>(pick(static_cast<int>(pieces().size())))];
    return s;
  }

  std::string key() {
    if (pick(200) == 0) return std::string(static_cast<size_t>(950 + pick(150)), 'k');
    return pick(3) == 0 ? scalar().substr(0, 40) : "k" + std::to_string(pick(50));
  }
};

}  // namespace

TEST_CASE("yaml writer: the block layout of yaml-cpp 0.7", "[config]") {
  Node root = Node::map();
  Node list = Node::seq();
  Node item = Node::map();
  item.set("b", Node::scalar("1"));
  item.set("c", Node::scalar("two words"));
  list.push_back(item);
  list.push_back(Node());
  Node inner = Node::seq();
  inner.push_back(Node::scalar("x"));
  inner.push_back(Node::map());
  list.push_back(inner);
  Node flow = Node::seq();
  flow.push_back(Node::scalar("1"));
  flow.push_back(Node::scalar("a, b"));
  list.push_back(flow);
  root.set("a", list);
  root.set("e", Node::map());
  root.set("", Node::scalar("null"));
  root.set("f", Node::seq());
  const std::string expected =
      "a:\n  - b: 1\n    c: two words\n  - ~\n  -\n    - x\n    - {}\n  - [1, \"a, b\"]\n"
      "e:\n  {}\n\"\": \"null\"\nf: []";
  CHECK(write_yaml(root) == expected);
  CHECK(write_yaml_reference(root) == expected);
  CHECK(root.to_yaml() == expected + "\n");
}

TEST_CASE("yaml writer: a root that is no map", "[config]") {
  for (const Node& n : {Node(), Node::scalar("x"), Node::scalar("a: b"), Node::map(), Node::seq()})
    CHECK(write_yaml(n) == write_yaml_reference(n));
  CHECK(write_yaml(Node()) == "~");
  CHECK(write_yaml(Node::map()) == "{}");
}

TEST_CASE("yaml writer: every adversarial scalar as key, value and flow item", "[config]") {
  for (const auto& s : adversarial()) {
    Node m = Node::map();
    m.set(s, Node::scalar(s));
    Node flow = Node::seq();
    flow.push_back(Node::scalar(s));
    flow.push_back(Node::scalar(s));
    m.set("flow", flow);
    INFO("scalar '" << s << "'");
    CHECK(write_yaml(m) == write_yaml_reference(m));
    CHECK(write_yaml(Node::scalar(s)) == write_yaml_reference(Node::scalar(s)));
  }
}

TEST_CASE("yaml writer: a key over 1024 bytes is written as yaml-cpp's long key", "[config]") {
  for (const size_t bytes : {1023, 1024, 1025, 1100}) {
    Node m = Node::map();
    m.set(std::string(bytes, 'k'), Node::scalar("v"));
    INFO(bytes << " bytes");
    CHECK((write_yaml(m).rfind("? ", 0) == 0) == (bytes > 1024));
    CHECK(write_yaml(m) == write_yaml_reference(m));
  }
  Node escaped = Node::map();
  escaped.set(std::string(400, '\x01'), Node::scalar("v"));
  CHECK(write_yaml(escaped).rfind("\"\\x01", 0) == 0);
  CHECK(write_yaml(escaped) == write_yaml_reference(escaped));
}

TEST_CASE("yaml writer: identical to yaml-cpp on every YAML file of the repository", "[config]") {
  size_t compared = 0;
  for (const char* dir : {"configs", "workloads", "tests"}) {
    for (const auto& f : fs::recursive_directory_iterator(test::source_dir() + "/" + dir)) {
      const auto ext = f.path().extension();
      if (!f.is_regular_file() || (ext != ".yaml" && ext != ".yml")) continue;
      Node n;
      try {
        n = parse_yaml(read_text(f.path()), f.path().string());
      } catch (const ConfigError&) {
        continue;  // the bad-input files of the error tests
      }
      INFO(f.path().string());
      CHECK(write_yaml(n) == write_yaml_reference(n));
      ++compared;
    }
  }
  CHECK(compared >= 150);
}

TEST_CASE("yaml writer: identical to yaml-cpp on 3000 random trees", "[config]") {
  RandomTree gen(20261127);
  for (int i = 0; i < 3000; ++i) {
    const Node n = i % 10 == 0 ? gen.node(0) : gen.map(0);
    const std::string direct = write_yaml(n);
    const std::string reference = write_yaml_reference(n);
    INFO("tree " << i << "\n" << reference);
    REQUIRE(direct == reference);
  }
}

namespace {

/// The resolved tree of a configs/tpuv4.yaml point, as sim/app/point.cpp builds it: the system
/// section over its schema's defaults.
Node resolved_tpuv4() {
  Experiment ex = load_experiment(test::source_dir() + "/configs/tpuv4.yaml", {});
  Node system = models::TpuSystemConfig::schema().defaults_node();
  system.set("kind", *ex.root.find("system")->find("kind"));
  merge_into(system, *ex.root.find("system"));
  ex.root.set("system", system);
  return ex.root;
}

/// Mean nanoseconds per call of `f` over `calls` calls.
template <class F>
double ns_per_call(int calls, F f) {
  size_t bytes = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) bytes += f().size();
  const auto t1 = std::chrono::steady_clock::now();
  CHECK(bytes > 0);
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / calls;
}

}  // namespace

TEST_CASE("yaml writer speed on the resolved tpuv4 chip config", "[.][config][bench]") {
  const Node root = resolved_tpuv4();
  REQUIRE(write_yaml(root) == write_yaml_reference(root));
  constexpr int kCalls = 2000;
  for (int round = 0; round < 3; ++round) {
    const double reference = ns_per_call(kCalls, [&] { return write_yaml_reference(root); });
    const double direct = ns_per_call(kCalls, [&] { return write_yaml(root); });
    fmt::print(
        "{} bytes: yaml-cpp emitter {:.0f} ns/call, direct writer {:.0f} ns/call ({:.1f}x)\n",
        write_yaml(root).size(), reference, direct, reference / direct);
  }
}

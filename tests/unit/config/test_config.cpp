// The configuration tree (YAML with origins, base files, paths, -p overrides), typed schemas,
// and loading the real experiment file configs/tpuv4_gemm.yaml.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sim/config/experiment.h"
#include "sim/config/node.h"
#include "sim/config/schema.h"
#include "tests/support/paths.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace systole;
using namespace systole::config;

namespace {

using systole::test::TempDir;

// The text of the scalar at `path`, or "<missing>" / "<not a scalar>".
std::string text_at(const Node& root, const std::string& path) {
  const Node* n = get_path(root, path);
  if (!n) return "<missing>";
  if (!n->is_scalar()) return "<not a scalar>";
  return n->text();
}

std::string tpuv4_yaml() { return test::source_dir() + "/configs/tpuv4_gemm.yaml"; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Node and YAML
// ---------------------------------------------------------------------------------------------

TEST_CASE("config: parse_yaml keeps 1-based line and column of keys and values", "[config]") {
  const Node root = parse_yaml(
      "system:\n"
      "  chip:\n"
      "    clock: 1050MHz\n"
      "sizes: [1, 22]\n",
      "exp.yaml");
  REQUIRE(root.is_map());
  REQUIRE(root.keys() == std::vector<std::string>{"system", "sizes"});

  const Node::Entry* system = root.find_entry("system");
  REQUIRE(system);
  CHECK(system->key_origin.str() == "exp.yaml:1:1");

  const Node* chip = root.find("system")->find("chip");
  REQUIRE(chip);
  const Node::Entry* clock = chip->find_entry("clock");
  REQUIRE(clock);
  CHECK(clock->key_origin.file == "exp.yaml");
  CHECK(clock->key_origin.line == 3);
  CHECK(clock->key_origin.column == 5);
  REQUIRE(clock->value.is_scalar());
  CHECK(clock->value.text() == "1050MHz");
  CHECK(clock->value.origin().str() == "exp.yaml:3:12");

  const Node* sizes = root.find("sizes");
  REQUIRE(sizes);
  REQUIRE(sizes->is_seq());
  REQUIRE(sizes->items().size() == 2);
  CHECK(sizes->items()[1].text() == "22");
  CHECK(sizes->items()[1].origin().str() == "exp.yaml:4:12");
}

TEST_CASE("config: node kinds and kind names", "[config]") {
  const Node root = parse_yaml("a: 1\nb: [x]\nc: {d: 2}\ne:\n", "k.yaml");
  CHECK(std::string(root.find("a")->kind_name()) == "a value");
  CHECK(std::string(root.find("b")->kind_name()) == "a list");
  CHECK(std::string(root.find("c")->kind_name()) == "a mapping");
  CHECK(root.find("e")->is_null());
  CHECK(std::string(root.find("e")->kind_name()) == "nothing");
  CHECK(root.find("zzz") == nullptr);
}

TEST_CASE("config: set replaces in place and erase removes while keys keep their order",
          "[config]") {
  Node m = Node::map();
  m.set("b", Node::scalar("1"));
  m.set("a", Node::scalar("2"));
  m.set("b", Node::scalar("3"));
  CHECK(m.keys() == std::vector<std::string>{"b", "a"});
  CHECK(m.find("b")->text() == "3");
  CHECK(m.erase("b"));
  CHECK_FALSE(m.erase("b"));
  CHECK(m.keys() == std::vector<std::string>{"a"});
}

TEST_CASE("config: to_yaml round-trips a tree", "[config]") {
  const Node root = parse_yaml("a:\n  b: 1\n  c: [x, y]\nd: hi\n", "t.yaml");
  const Node again = parse_yaml(root.to_yaml(), "again.yaml");
  CHECK(text_at(again, "a.b") == "1");
  CHECK(text_at(again, "a.c[1]") == "y");
  CHECK(text_at(again, "d") == "hi");
  CHECK(again.keys() == std::vector<std::string>{"a", "d"});
}

TEST_CASE("config: merge_into merges maps deeply and replaces scalars and lists", "[config]") {
  Node base = parse_yaml(
      "chip:\n"
      "  clock: 1GHz\n"
      "  cores: 2\n"
      "  sizes: [1, 2, 3]\n"
      "name: base\n",
      "base.yaml");
  const Node over = parse_yaml(
      "chip:\n"
      "  clock: 2GHz\n"
      "  sizes: [9]\n"
      "  extra: yes\n",
      "over.yaml");
  merge_into(base, over);

  CHECK(base.keys() == std::vector<std::string>{"chip", "name"});
  CHECK(base.find("chip")->keys() == std::vector<std::string>{"clock", "cores", "sizes", "extra"});
  CHECK(text_at(base, "chip.clock") == "2GHz");
  CHECK(get_path(base, "chip.clock")->origin().str() == "over.yaml:2:10");
  CHECK(text_at(base, "chip.cores") == "2");                   // untouched
  REQUIRE(get_path(base, "chip.sizes")->items().size() == 1);  // lists replace, not append
  CHECK(text_at(base, "chip.sizes[0]") == "9");
  CHECK(text_at(base, "chip.extra") == "yes");
  CHECK(text_at(base, "name") == "base");

  // A scalar over a mapping replaces the whole mapping.
  merge_into(base, parse_yaml("chip: none\n", "s.yaml"));
  CHECK(text_at(base, "chip") == "none");
}

TEST_CASE("config: resolve_bases puts the including mapping on top of the base file", "[config]") {
  TempDir tmp;
  tmp.write("chip.yaml",
            "system:\n"
            "  kind: tpu_chip\n"
            "  chip:\n"
            "    clock: 1GHz\n"
            "    cores: 2\n");
  const std::string exp = tmp.write("exp.yaml",
                                    "base: chip.yaml\n"
                                    "system:\n"
                                    "  chip:\n"
                                    "    clock: 2GHz\n"
                                    "workload: w.yaml\n");
  const Node root = resolve_bases(load_yaml_file(exp));

  CHECK(root.find("base") == nullptr);
  CHECK(root.keys() == std::vector<std::string>{"system", "workload"});
  CHECK(text_at(root, "system.kind") == "tpu_chip");
  CHECK(text_at(root, "system.chip.clock") == "2GHz");
  CHECK(get_path(root, "system.chip.clock")->origin().str() == exp + ":4:12");
  CHECK(text_at(root, "system.chip.cores") == "2");
  CHECK(get_path(root, "system.chip.cores")->origin().str() ==
        (tmp.dir / "chip.yaml").string() + ":5:12");
  CHECK(text_at(root, "workload") == "w.yaml");
}

TEST_CASE("config: a base key inside a sub-mapping merges into that mapping", "[config]") {
  TempDir tmp;
  tmp.write("mxu.yaml", "rows: 128\ncols: 128\ndataflow: ws\n");
  const std::string exp = tmp.write("exp.yaml",
                                    "system:\n"
                                    "  chip:\n"
                                    "    mxu:\n"
                                    "      base: mxu.yaml\n"
                                    "      rows: 256\n");
  const Node root = resolve_bases(load_yaml_file(exp));
  const Node* mxu = get_path(root, "system.chip.mxu");
  REQUIRE(mxu);
  CHECK(mxu->keys() == std::vector<std::string>{"rows", "cols", "dataflow"});
  CHECK(text_at(root, "system.chip.mxu.rows") == "256");
  CHECK(text_at(root, "system.chip.mxu.cols") == "128");
  CHECK(text_at(root, "system.chip.mxu.dataflow") == "ws");
}

TEST_CASE("config: base paths resolve relative to the file that names them", "[config]") {
  TempDir tmp;
  // exp.yaml -> presets/a.yaml -> (presets/) b.yaml: each name is relative to its own file.
  tmp.write("presets/b.yaml", "x: from-b\ny: from-b\nz: from-b\n");
  tmp.write("presets/a.yaml", "base: b.yaml\ny: from-a\nz: from-a\n");
  // A b.yaml next to exp.yaml must not be picked up by a.yaml.
  tmp.write("b.yaml", "x: wrong\n");
  const std::string exp = tmp.write("exp.yaml", "base: presets/a.yaml\nz: from-exp\n");

  const Node root = resolve_bases(load_yaml_file(exp));
  CHECK(text_at(root, "x") == "from-b");
  CHECK(text_at(root, "y") == "from-a");
  CHECK(text_at(root, "z") == "from-exp");

  // find_referenced_file gives the normalised path it found.
  const Origin from{exp, 1, 7};
  CHECK(find_referenced_file("presets/a.yaml", from, "base") ==
        (tmp.dir / "presets/a.yaml").string());
}

TEST_CASE("config: split_path, set_path and get_path with keys and indices", "[config]") {
  const auto steps = split_path("a.b[1].c");
  REQUIRE(steps.size() == 4);
  CHECK(steps[0].key == "a");
  CHECK(steps[1].key == "b");
  CHECK(steps[2].key.empty());
  CHECK(steps[2].index == 1);
  CHECK(steps[3].key == "c");

  Node root = parse_yaml("a:\n  b:\n    - {c: 1}\n    - {c: 2, d: 3}\n", "p.yaml");
  CHECK(text_at(root, "a.b[1].c") == "2");
  set_path(root, "a.b[1].c", Node::scalar("42"));
  CHECK(text_at(root, "a.b[1].c") == "42");
  CHECK(text_at(root, "a.b[1].d") == "3");
  CHECK(text_at(root, "a.b[0].c") == "1");

  // Missing steps give nullptr, not a throw.
  CHECK(get_path(root, "a.b[2].c") == nullptr);
  CHECK(get_path(root, "a.x") == nullptr);
  CHECK(get_path(root, "a.b.c") == nullptr);

  // Intermediate maps are created on the way.
  set_path(root, "new.deep.key", Node::scalar("v"));
  CHECK(text_at(root, "new.deep.key") == "v");
  CHECK(root.keys() == std::vector<std::string>{"a", "new"});

  // An index that does not exist is an error naming the path.
  try {
    set_path(root, "a.b[5].c", Node::scalar("1", {"<test>"}));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "<test>: a.b[5].c: index [5] is out of range");
  }
  // So is descending into a scalar.
  try {
    set_path(root, "a.b[0].c.x", Node::scalar("1", {"<test>"}));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "<test>: a.b[0].c.x: cannot set 'x' inside a value");
  }
}

TEST_CASE("config: parse_override reads key=value with a command-line origin", "[config]") {
  auto [key, value] = parse_override("system.chip.mxu.rows=256");
  CHECK(key == "system.chip.mxu.rows");
  REQUIRE(value.is_scalar());
  CHECK(value.text() == "256");
  CHECK(value.origin().str() == "<command line -p system.chip.mxu.rows=256>");

  auto [lkey, list] = parse_override("x=[1,2]");
  CHECK(lkey == "x");
  REQUIRE(list.is_seq());
  REQUIRE(list.items().size() == 2);
  CHECK(list.items()[0].text() == "1");
  CHECK(list.items()[1].text() == "2");
  CHECK(list.items()[1].origin().str() == "<command line -p x=[1,2]>");

  auto [ekey, empty] = parse_override("output.file=");
  CHECK(ekey == "output.file");
  REQUIRE(empty.is_scalar());
  CHECK(empty.text().empty());

  try {
    parse_override("system.chip.mxu.rows");
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "<command line -p system.chip.mxu.rows>: expected key.path=value, e.g. -p "
          "system.chip.mxu.rows=256");
  }
}

// ---------------------------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------------------------

namespace {

enum class Mode { kFast, kSlow };

struct Inner {
  std::int64_t depth = 0;
};

struct Widget {
  std::int64_t count = 0;
  double ratio = 0;
  bool enabled = false;
  std::string label;
  Mode mode = Mode::kSlow;
  Bytes size{0};
  Hz clock{0};
  BytesPerSecond bw{0};
  Picoseconds latency{0};
  Inner inner;
};

const SchemaOf<Inner>& inner_schema() {
  static const SchemaOf<Inner> s = [] {
    SchemaOf<Inner> b("inner", "a nested group");
    b.integer("depth", &Inner::depth, 3, 1, 10, "nesting depth", "levels");
    return b;
  }();
  return s;
}

const SchemaOf<Widget>& widget_schema() {
  static const SchemaOf<Widget> s = [] {
    SchemaOf<Widget> b("widget", "a test widget");
    b.integer("count", &Widget::count, std::nullopt, 1, 100, "widgets in the box")
        .real("ratio", &Widget::ratio, 0.5, 0.0, 1.0, "fill ratio")
        .boolean("enabled", &Widget::enabled, true, "switched on")
        .text("label", &Widget::label, std::string("w"), "display name")
        .choice<Mode>("mode", &Widget::mode, {{"fast", Mode::kFast}, {"slow", Mode::kSlow}},
                      std::string("fast"), "speed")
        .bytes("size", &Widget::size, std::string("4KiB"), Bytes(1), Bytes(1 << 20), "buffer")
        .frequency("clock", &Widget::clock, std::string("1GHz"), Hz(1e6), Hz(1e10), "clock")
        .bandwidth("bw", &Widget::bw, std::string("100GB/s"), BytesPerSecond(1e6),
                   BytesPerSecond(1e13), "link bandwidth")
        .time("latency", &Widget::latency, std::string("30ns"), 0, 1e-3, "access latency")
        .group("inner", &Widget::inner, inner_schema(), "nested settings");
    b.check([](const Widget& w, const Node& n, const std::string& p) {
      if (w.count > 10 && !w.enabled)
        throw ConfigError(n.origin(), p + ".count", "more than 10 widgets need enabled: true");
    });
    return b;
  }();
  return s;
}

std::string load_error(const std::string& yaml) {
  try {
    widget_schema().load(parse_yaml(yaml, "w.yaml"), "widget");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("schema: defaults fill every parameter that is not given", "[config][schema]") {
  const Widget w = widget_schema().load(parse_yaml("count: 3\n", "w.yaml"), "widget");
  CHECK(w.count == 3);
  CHECK(w.ratio == 0.5);
  CHECK(w.enabled);
  CHECK(w.label == "w");
  CHECK(w.mode == Mode::kFast);
  CHECK(w.size == Bytes(4096));
  CHECK(w.clock == Hz(1e9));
  CHECK(w.bw == BytesPerSecond(1e11));
  CHECK(w.latency == Picoseconds(30000));
  CHECK(w.inner.depth == 3);
}

TEST_CASE("schema: given values are converted and stored", "[config][schema]") {
  const Widget w = widget_schema().load(parse_yaml("count: 7\n"
                                                   "ratio: 0.25\n"
                                                   "enabled: false\n"
                                                   "label: big one\n"
                                                   "mode: slow\n"
                                                   "size: 1MiB\n"
                                                   "clock: 1050MHz\n"
                                                   "bw: 1.2TB/s\n"
                                                   "latency: 1.5us\n"
                                                   "inner: {depth: 9}\n",
                                                   "w.yaml"),
                                        "widget");
  CHECK(w.count == 7);
  CHECK(w.ratio == 0.25);
  CHECK_FALSE(w.enabled);
  CHECK(w.label == "big one");
  CHECK(w.mode == Mode::kSlow);
  CHECK(w.size == Bytes(1048576));
  CHECK(w.clock == Hz(1.05e9));
  CHECK(w.bw.value() == Approx(1.2e12));
  CHECK(w.latency == Picoseconds(1500000));
  CHECK(w.inner.depth == 9);

  // Integral floats are accepted for integers.
  CHECK(widget_schema().load(parse_yaml("count: 1e1\n", "w.yaml"), "widget").count == 10);
}

TEST_CASE("schema: errors for required parameters and unknown keys and ranges and checks",
          "[config][schema]") {
  CHECK(load_error("ratio: 0.1\n") ==
        "w.yaml:1:1: widget.count: missing required integer (widgets in the box)");
  CHECK(load_error("count: 1\ninner: {dept: 2}\n") ==
        "w.yaml:2:9: widget.inner.dept: unknown key for inner (did you mean 'depth'?)");
  CHECK(load_error("count: 1\nzzz: 2\n") ==
        "w.yaml:2:1: widget.zzz: unknown key for widget; allowed keys: count, ratio, enabled, "
        "label, mode, size, clock, bw, latency, inner");
  CHECK(load_error("count: 1\nratio: 1.5\n") ==
        "w.yaml:2:8: widget.ratio: expected a number in [0, 1], got 1.5");
  CHECK(load_error("count: 1\nenabled: maybe\n") ==
        "w.yaml:2:10: widget.enabled: expected true or false, got 'maybe'");
  CHECK(load_error("count: 1\nmode: fats\n") ==
        "w.yaml:2:7: widget.mode: expected one of fast, slow, got 'fats' (did you mean 'fast'?)");
  CHECK(load_error("count: 1\nsize: 2MiB\n") ==
        "w.yaml:2:7: widget.size: expected a size in [1 B, 1 MiB], got 2MiB");
  CHECK(load_error("count: 20\nenabled: false\n") ==
        "w.yaml:1:1: widget.count: more than 10 widgets need enabled: true");
  CHECK(load_error("[1, 2]\n") ==
        "w.yaml:1:1: widget: expected a mapping of widget parameters, got a list");
}

TEST_CASE("schema: describe prints one line per parameter with its default", "[config][schema]") {
  std::ostringstream os;
  widget_schema().describe(os, "box");
  std::vector<std::string> lines;
  std::istringstream in(os.str());
  for (std::string l; std::getline(in, l);) lines.push_back(l);

  INFO(os.str());
  REQUIRE(lines.size() == 11);  // 9 parameters, the group's header line and its parameter
  CHECK(lines[0] ==
        "box.count                          integer            default (required) range [1, 100]"
        "               widgets in the box");
  CHECK(lines[1] ==
        "box.ratio                          number             default 0.5        range [0, 1]"
        "                 fill ratio");
  CHECK(lines[4] ==
        "box.mode                           choice             default fast       range fast | slow"
        "            speed");
  CHECK(
      lines[5] ==
      "box.size                           size [B]           default 4KiB       range [1 B, 1 MiB]"
      "           buffer");
  CHECK(lines[9] == "box.inner:                         nested settings");
  CHECK(lines[10] ==
        "box.inner.depth                    integer [levels]   default 3          range [1, 10]"
        "                nesting depth");
}

TEST_CASE("schema: defaults_node holds every default and no required parameter",
          "[config][schema]") {
  const Node d = widget_schema().defaults_node();
  CHECK(d.keys() == std::vector<std::string>{"ratio", "enabled", "label", "mode", "size", "clock",
                                             "bw", "latency", "inner"});
  CHECK(text_at(d, "ratio") == "0.5");
  CHECK(text_at(d, "enabled") == "true");
  CHECK(text_at(d, "size") == "4KiB");
  CHECK(text_at(d, "latency") == "30ns");
  CHECK(text_at(d, "inner.depth") == "3");

  // Loading the defaults (plus the required count) gives the same struct as loading nothing.
  Node with_count = d;
  with_count.set("count", Node::scalar("5"));
  const Widget w = widget_schema().load(with_count, "widget");
  CHECK(w.size == Bytes(4096));
  CHECK(w.inner.depth == 3);
}

// ---------------------------------------------------------------------------------------------
// load_experiment on configs/tpuv4_gemm.yaml
// ---------------------------------------------------------------------------------------------

TEST_CASE("experiment: configs/tpuv4_gemm.yaml loads with its base and sweep",
          "[config][experiment]") {
  const Experiment ex = load_experiment(tpuv4_yaml(), {});
  CHECK(ex.file == tpuv4_yaml());
  CHECK(ex.name == "tpuv4-gemm");
  CHECK(ex.description == "TPU v4 GEMM shapes, MXU size x HBM bandwidth");

  // The preset's system section is there after base resolution.
  CHECK(ex.root.keys() ==
        std::vector<std::string>{"system", "name", "description", "workload", "output"});
  CHECK(text_at(ex.root, "system.kind") == "tpu_chip");
  CHECK(text_at(ex.root, "system.chip.clock") == "1050MHz");
  CHECK(text_at(ex.root, "system.chip.mxu.rows") == "128");
  // `workload: FILE` is kept as `workload: {file: FILE}` (so -p and sweeps reach its params).
  CHECK(text_at(ex.root, "workload.file") == "workloads/gemm_shapes.yaml");
  CHECK(ex.root.find("sweep") == nullptr);  // moved out of the tree

  CHECK(ex.output.file == "results.h5");
  CHECK_FALSE(ex.output.trace);
  CHECK(ex.output.summary);

  REQUIRE(ex.sweep.is_map());
  CHECK(ex.sweep.keys() == std::vector<std::string>{"system.chip.hbm.bandwidth", "zip"});
  const Node* bw = ex.sweep.find("system.chip.hbm.bandwidth");
  REQUIRE(bw->is_seq());
  REQUIRE(bw->items().size() == 2);
  CHECK(bw->items()[0].text() == "1.2TB/s");
  CHECK(bw->items()[1].text() == "2.4TB/s");
  const Node* zip = ex.sweep.find("zip");
  REQUIRE(zip->is_seq());
  REQUIRE(zip->items().size() == 1);
  CHECK(zip->items()[0].keys() ==
        std::vector<std::string>{"system.chip.mxu.rows", "system.chip.mxu.cols"});
}

TEST_CASE("experiment: -p on a swept path fixes the value and drops the axis",
          "[config][experiment]") {
  const Experiment ex = load_experiment(tpuv4_yaml(), {"system.chip.hbm.bandwidth=3TB/s"});
  CHECK(text_at(ex.root, "system.chip.hbm.bandwidth") == "3TB/s");
  CHECK(get_path(ex.root, "system.chip.hbm.bandwidth")->origin().str() ==
        "<command line -p system.chip.hbm.bandwidth=3TB/s>");
  CHECK(ex.sweep.keys() == std::vector<std::string>{"zip"});
}

TEST_CASE("experiment: -p on one zip member is an error, on every member it fixes the group",
          "[config][experiment]") {
  // One member alone would pair the fixed value with every value of the others (issue 14).
  CHECK_THROWS_WITH(load_experiment(tpuv4_yaml(), {"system.chip.mxu.rows=64"}),
                    Catch::Contains("is swept together with system.chip.mxu.cols"));
  const Experiment ex =
      load_experiment(tpuv4_yaml(), {"system.chip.mxu.rows=64", "system.chip.mxu.cols=32"});
  CHECK(text_at(ex.root, "system.chip.mxu.rows") == "64");
  CHECK(text_at(ex.root, "system.chip.mxu.cols") == "32");
  CHECK(ex.sweep.keys() == std::vector<std::string>{"system.chip.hbm.bandwidth"});
}

TEST_CASE("experiment: a -p path must start at an experiment key", "[config][experiment]") {
  CHECK_THROWS_WITH(load_experiment(tpuv4_yaml(), {"chip.mxu.rows=64"}),
                    Catch::Contains("did you mean 'system.chip.mxu.rows'?"));
  CHECK_THROWS_AS(load_experiment(tpuv4_yaml(), {"foo.bar=1"}), ConfigError);
}

TEST_CASE("experiment: -p sweep.<path>=<list> adds a sweep axis", "[config][experiment]") {
  const Experiment ex = load_experiment(tpuv4_yaml(), {"sweep.system.chip.clock=[1GHz,2GHz]"});
  CHECK(ex.sweep.keys() ==
        std::vector<std::string>{"system.chip.hbm.bandwidth", "zip", "system.chip.clock"});
  const Node* clock = ex.sweep.find("system.chip.clock");
  REQUIRE(clock->is_seq());
  REQUIRE(clock->items().size() == 2);
  CHECK(clock->items()[0].text() == "1GHz");
  CHECK(clock->items()[1].text() == "2GHz");
  // The fixed value in the tree is left as the preset has it.
  CHECK(text_at(ex.root, "system.chip.clock") == "1050MHz");
}

TEST_CASE("experiment: plain -p overrides set values in the tree", "[config][experiment]") {
  const Experiment ex =
      load_experiment(tpuv4_yaml(), {"system.chip.mxu.dataflow=os", "output.trace=true"});
  CHECK(text_at(ex.root, "system.chip.mxu.dataflow") == "os");
  CHECK(ex.output.trace);
  // Untouched sweep.
  CHECK(ex.sweep.keys() == std::vector<std::string>{"system.chip.hbm.bandwidth", "zip"});
}

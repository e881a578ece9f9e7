// End to end through simrun and systole-trace: a small TPU experiment and a small GPU
// experiment record traces, the export is parsed as JSON (tests/support/mini_json.h) and
// checked as a trace viewer reads it: every operation of the HDF5 trace is one slice (the same
// unit, kind and cycles), the slices of one track are nested or disjoint (Perfetto drops any
// other), every process and track is named, layer instances are slices of a "layers" track,
// transfers name their source and destination, and the HBM counter integrates to the bytes the
// transfers moved. Bad input is one line on stderr, exit code 2 and no output file.
#include <hdf5.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/stats/results_file.h"
#include "tests/support/mini_json.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::Json;
using systole::test::TempDir;

namespace {

// Repeated GEMMs: at each instance boundary an MXU starts the next instance's first tile while
// the previous one drains (double-buffered weights), so MXU tracks need lanes.
const std::string kTpu = "base: " + test::source_dir() + R"(/configs/presets/tpuv4_chip.yaml
workload:
  layers:
    - {name: up, m: 512, n: 4096, k: 1024, repeat: 2}
    - {name: act, op: gelu, rows: 512, cols: 4096, repeat: 2}
    - {name: down, m: 512, n: 1024, k: 4096, repeat: 2}
)";

const std::string kGpu = "base: " + test::source_dir() + R"(/configs/presets/h100_sxm5.yaml
workload:
  layers:
    - {name: up, op: gemm, m: 512, n: 512, k: 256}
    - {name: act, op: gelu, rows: 512, cols: 512}
    - {name: attn, op: attention, batch: 1, heads: 2, seq_q: 128, head_dim: 64}
)";

/// Perfetto's reading of a JSON time in microseconds: whole nanoseconds.
std::int64_t ns(const Json& v) { return std::llround(v.number * 1000.0); }

stats::PointResult simulate(TempDir& dir, const std::string& yaml, const std::string& h5,
                            bool trace = true) {
  dir.write("x.yaml", yaml);
  const auto r = test::simrun("x.yaml -q -o " + h5 + (trace ? " -p output.trace=true" : ""), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto points = stats::read_points(dir.file(h5));
  REQUIRE(points.size() == 1);
  REQUIRE(points[0].trace.enabled == trace);
  return points[0];
}

Json export_json(TempDir& dir, const std::string& h5) {
  const auto r = test::run(
      test::bin_dir() + "/systole-trace " + dir.file(h5) + " -o " + dir.file(h5 + ".json"), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(!std::filesystem::exists(dir.file(h5 + ".json.partial")));
  return test::parse_json(test::slurp(dir.file(h5 + ".json")));
}

/// The export as a viewer sees it.
struct Exported {
  std::map<std::int64_t, std::string> process;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread;
  std::vector<const Json*> slices, layers, counters;

  explicit Exported(const Json& root) {
    for (const Json& e : root["traceEvents"].items) {
      const std::string ph = e["ph"].str();
      const auto pid = static_cast<std::int64_t>(e["pid"].number);
      if (ph == "M" && e["name"].str() == "process_name") process[pid] = e["args"]["name"].str();
      if (ph == "M" && e["name"].str() == "thread_name")
        thread[{pid, static_cast<std::int64_t>(e["tid"].number)}] = e["args"]["name"].str();
      if (ph == "X") (e["cat"].str() == "layer" ? layers : slices).push_back(&e);
      if (ph == "C") counters.push_back(&e);
    }
  }
  std::set<std::string> track_names() const {
    std::set<std::string> out;
    for (const auto& [id, name] : thread) out.insert(name);
    return out;
  }
  const std::string& track_of(const Json& e) const {
    return thread.at(
        {static_cast<std::int64_t>(e["pid"].number), static_cast<std::int64_t>(e["tid"].number)});
  }
};

using Span = std::pair<std::int64_t, std::int64_t>;

/// Spans that neither nest in nor stay clear of one before them (Perfetto drops them).
std::size_t improper(std::vector<Span> v) {
  std::sort(v.begin(), v.end(), [](const Span& a, const Span& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  std::vector<std::int64_t> open;
  std::size_t bad = 0;
  for (const auto& [b, e] : v) {
    while (!open.empty() && open.back() <= b) open.pop_back();
    if (!open.empty() && e > open.back()) {
      ++bad;
      continue;
    }
    open.push_back(e);
  }
  return bad;
}

/// Improperly nested slices over all tracks of the export, in the viewer's nanoseconds.
std::size_t improper(const Exported& x) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Span>> tracks;
  for (const auto* list : {&x.slices, &x.layers})
    for (const Json* e : *list) {
      const std::int64_t b = ns((*e)["ts"]);
      tracks[{static_cast<std::int64_t>((*e)["pid"].number),
              static_cast<std::int64_t>((*e)["tid"].number)}]
          .emplace_back(b, b + ns((*e)["dur"]));
    }
  std::size_t bad = 0;
  for (auto& [track, v] : tracks) bad += improper(v);
  return bad;
}

/// The units whose operations, all on one track, would overlap without nesting.
std::set<std::string> concurrent_units(const stats::Trace& t) {
  std::map<std::string, std::vector<Span>> by_unit;
  for (const auto& e : t.events)
    by_unit[t.units.at(e.unit)].emplace_back(static_cast<std::int64_t>(e.begin),
                                             static_cast<std::int64_t>(e.end));
  std::set<std::string> out;
  for (auto& [unit, v] : by_unit)
    if (improper(v) > 0) out.insert(unit);
  return out;
}

/// Each unit that ran operations concurrently has a second lane ("core0.mxu0 #1").
void check_lanes(const stats::PointResult& p, const Exported& x, const std::string& device) {
  const auto tracks = x.track_names();
  const auto units = concurrent_units(p.trace);
  CHECK(!units.empty());  // the workloads here are chosen to need lanes
  for (const auto& u : units) {
    INFO(u);
    CHECK(tracks.count(u.substr(device.size() + 1) + " #1") == 1);
  }
}

using Op = std::tuple<std::string, std::string, std::uint64_t, std::uint64_t, std::uint64_t>;

/// Every recorded operation (unit, kind, begin, end, bytes) is one slice, on its unit's track.
void check_operations(const stats::PointResult& p, const Exported& x) {
  const auto& t = p.trace;
  std::vector<Op> want, got;
  for (const auto& e : t.events)
    want.emplace_back(t.units.at(e.unit), t.kinds.at(e.kind), e.begin, e.end, e.bytes);
  for (const Json* e : x.slices) {
    const Json& a = (*e)["args"];
    got.emplace_back(a["unit"].str(), (*e)["cat"].str(),
                     static_cast<std::uint64_t>(a["begin_cycle"].number),
                     static_cast<std::uint64_t>(a["end_cycle"].number),
                     static_cast<std::uint64_t>(a["bytes"].number));
    // The track is the unit's (or one of its lanes): "core0.dma0", "core0.dma0 #2".
    const std::string unit = a["unit"].str();
    const std::string track = x.track_of(*e);
    INFO(unit << " on track " << track);
    const std::string base = track.substr(0, track.find(" #"));  // ("l2 #100": "l2")
    CHECK(unit.size() > base.size());
    CHECK(unit.compare(unit.size() - base.size(), std::string::npos, base) == 0);
  }
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  CHECK(got.size() == t.events.size());
  CHECK(got == want);
}

/// Each layer instance is a slice named after its layer, covering that instance's operations.
void check_layers(const stats::PointResult& p, const Exported& x) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> want;
  for (const auto& e : p.trace.events) want.insert({e.layer, e.instance});
  CHECK(x.layers.size() == want.size());
  for (const Json* e : x.layers) {
    const auto layer = static_cast<std::size_t>((*e)["args"]["layer_index"].number);
    CHECK((*e)["name"].str() == p.layers.get_string(layer, "layer"));
    CHECK(x.track_of(*e).rfind("layers", 0) == 0);
  }
}

/// Transfers carry their source and destination; returns the bytes read out of `hbm`.
double check_transfers(const Exported& x, const std::string& load_dst, const std::string& hbm) {
  double hbm_read = 0;
  std::size_t loads = 0;
  for (const Json* e : x.slices) {
    const Json& a = (*e)["args"];
    if ((*e)["cat"].str() != "load" && (*e)["cat"].str() != "store") continue;
    REQUIRE(a.has("src"));
    REQUIRE(a.has("dst"));
    CHECK((*e)["name"].str().find("->") != std::string::npos);
    if ((*e)["cat"].str() == "load") {
      ++loads;
      CHECK(a["dst"].str().find(load_dst) != std::string::npos);
    }
  }
  for (const Json* e : x.slices)
    if ((*e)["args"].has("src") && (*e)["args"]["src"].str() == hbm)
      hbm_read += (*e)["args"]["bytes"].number;
  CHECK(loads > 0);
  return hbm_read;
}

/// The HBM counter's read GB/s integrated over time: bytes.
double counter_bytes(const Exported& x) {
  std::vector<std::pair<std::int64_t, double>> steps;
  for (const Json* e : x.counters)
    if ((*e)["name"].str() == "HBM bandwidth")
      steps.emplace_back(ns((*e)["ts"]), (*e)["args"]["read GB/s"].number);
  REQUIRE(steps.size() >= 2);
  std::sort(steps.begin(), steps.end());
  double bytes = 0;
  for (size_t i = 0; i + 1 < steps.size(); ++i)
    bytes += steps[i].second * static_cast<double>(steps[i + 1].first - steps[i].first);
  CHECK(steps.back().second == 0);  // the counter ends at zero after the run
  return bytes;                     // GB/s x ns = bytes
}

void check_export(const stats::PointResult& p, const Json& root, const std::string& device) {
  const Exported x(root);
  REQUIRE(x.process.size() == 1);
  CHECK(x.process.begin()->second.rfind(device, 0) == 0);
  for (const auto* list : {&x.slices, &x.layers})
    for (const Json* e : *list) {
      CHECK(x.process.count(static_cast<std::int64_t>((*e)["pid"].number)) == 1);
      CHECK_NOTHROW(x.track_of(*e));
    }
  CHECK(improper(x) == 0);
  check_operations(p, x);
  check_layers(p, x);
}

void check_error(TempDir& dir, const std::string& args, const std::string& out,
                 const std::string& expect) {
  INFO("systole-trace " << args);
  const auto r = test::run(test::bin_dir() + "/systole-trace " + args, dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find(expect) != std::string::npos);
  CHECK(!std::filesystem::exists(out));
  CHECK(!std::filesystem::exists(out + ".partial"));
}

/// A point simulated with its trace and exported, with the checks every export must pass done.
struct Traced {
  stats::PointResult p;
  Json root;
  Exported x;  // points into root
  std::set<std::string> tracks;
  Traced(TempDir& dir, const std::string& yaml, const std::string& h5, const std::string& device)
      : p(simulate(dir, yaml, h5)), root(export_json(dir, h5)), x(root), tracks(x.track_names()) {
    check_export(p, root, device);
    check_lanes(p, x, device);
  }
  Traced(const Traced&) = delete;
  Traced& operator=(const Traced&) = delete;
};

}  // namespace

TEST_CASE("systole-trace: a TPU chip's trace as Perfetto reads it", "[e2e][trace]") {
  TempDir dir;
  const Traced t(dir, kTpu, "tpu.h5", "chip0");
  for (const char* unit : {"core0.mxu0", "core0.dma0", "core0.vpu", "core1.mxu3"})
    CHECK(t.tracks.count(unit) == 1);
  // Each instance of a repeated layer is a slice of its own.
  std::size_t first = 0;
  for (const Json* e : t.x.layers) first += (*e)["args"]["layer_index"].number == 0;
  CHECK(first == 2);
  const double hbm_read = check_transfers(t.x, ".vmem", "chip0.hbm");
  CHECK(hbm_read > 0);
  CHECK(counter_bytes(t.x) == Approx(hbm_read).epsilon(0.01));
}

TEST_CASE("systole-trace: a GPU's trace as Perfetto reads it", "[e2e][trace][gpu]") {
  TempDir dir;
  const Traced t(dir, kGpu, "gpu.h5", "gpu0");
  CHECK(t.tracks.count("stream") == 1);    // the kernels
  CHECK(t.tracks.count("sm0") == 1);       // its CTAs
  CHECK(t.tracks.count("sm0.copy") == 1);  // its copy engine (cp.async / TMA)
  CHECK(t.tracks.count("l2") == 1);        // the L2's fetches and write-backs
  std::set<std::string> kinds;
  for (const Json* e : t.x.slices) kinds.insert((*e)["cat"].str());
  for (const char* k : {"gemm kernel", "attention kernel", "cta", "load", "store", "fetch"})
    CHECK(kinds.count(k) == 1);
  check_transfers(t.x, ".smem", "gpu0.hbm");
  double fetched = 0;  // what the L2 read from HBM
  for (const auto& e : t.p.trace.events)
    if (t.p.trace.places.at(e.src) == "gpu0.hbm") fetched += static_cast<double>(e.bytes);
  CHECK(fetched > 0);
  CHECK(counter_bytes(t.x) == Approx(fetched).epsilon(0.01));
}

TEST_CASE("systole-trace: bad input is one line, exit 2, and no output", "[e2e][trace][errors]") {
  TempDir dir;
  simulate(dir, kTpu, "plain.h5", false);
  simulate(dir, kTpu, "traced.h5");
  const std::string out = dir.file("out.json");
  check_error(dir, dir.file("plain.h5") + " -o " + out, out, "output.trace: true");
  check_error(dir, dir.file("traced.h5") + " --point 7 -o " + out, out,
              "no point 7; the file's points are 0");
  const auto before = test::slurp(dir.file("traced.h5"));
  check_error(dir, dir.file("traced.h5") + " -o " + dir.file("traced.h5"), dir.file("none"),
              "is an input of this run");
  CHECK(test::slurp(dir.file("traced.h5")) == before);
  dir.write("text.h5", "not a results file\n");
  check_error(dir, dir.file("text.h5") + " -o " + out, out, "not an HDF5 file");
  const hid_t f = H5Fcreate(dir.file("other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(f >= 0);
  H5Fclose(f);
  check_error(dir, dir.file("other.h5") + " -o " + out, out, "not a Systole results file");
  check_error(dir, dir.file("missing.h5") + " -o " + out, out, "does not exist");
  check_error(dir, dir.file("traced.h5") + " --point x -o " + out, out, "--point wants");
  check_error(dir, "--bogus " + dir.file("traced.h5"), out, "usage:");
}

// bench_scalesim: wall time of Systole's scalesim mode on the networks SCALE-Sim v2 needs
// minutes for (AlexNet, ResNet-18, YOLO-tiny, GPT-2 and square GEMMs), for os/ws/is and
// CALC/USER, printed beside SCALE-Sim's own times (tests/data/scalesim/runs.csv; compare with
// its user+sys CPU seconds, its wall times were taken on a shared machine). Same inputs and same
// numbers: the layers are simulated with the full stall and DRAM model. Not a timed test.
//
//   bench_scalesim [--data DIR] [--repeat N]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/scalesim/scalesim_timing.h"
#include "sim/core/error.h"
#include "sim/core/text.h"
#include "workloads/frontends/scalesim_cfg.h"
#include "workloads/frontends/scalesim_topology.h"

namespace ss = systole::models::scalesim;
namespace wl = systole::workloads;

namespace {

using Row = std::map<std::string, std::string>;

std::vector<Row> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  std::string line;
  std::vector<std::string> header;
  auto split = [](std::string s) {
    if (!s.empty() && s.back() == '\r') s.pop_back();
    std::vector<std::string> f(1);
    for (char ch : s) {
      if (ch == ',')
        f.emplace_back();
      else
        f.back() += ch;
    }
    return f;
  };
  if (!std::getline(in, line)) return rows;
  header = split(line);
  while (std::getline(in, line)) {
    const auto f = split(line);
    Row r;
    for (size_t i = 0; i < header.size() && i < f.size(); ++i) r[header[i]] = f[i];
    rows.push_back(r);
  }
  return rows;
}

struct Case {
  std::string config;    // file in configs/ and name in runs.csv
  std::string runs_cfg;  // config name in runs.csv
  std::string network;   // topology name in runs.csv
  std::string file;      // topology file, or "" for a square GEMM of size `gemm`
  std::int64_t gemm = 0;
};

struct Timing {
  double wall = 0;
  std::int64_t cycles = 0, stalls = 0;
  size_t layers = 0;
};

Timing run(const wl::ScalesimConfig& cfg, const std::vector<ss::ConvLayer>& layers, int repeat) {
  Timing best;
  for (int i = 0; i < repeat; ++i) {
    Timing t;
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& l : layers) {
      const auto r = ss::simulate_layer(cfg.arch, l);
      t.cycles += r.total_cycles;
      t.stalls += r.stall_cycles;
    }
    t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.layers = layers.size();
    if (i == 0 || t.wall < best.wall) best = t;
  }
  return best;
}

std::string scalesim_cell(const Row* r) {
  if (!r) return "-";
  const std::string status = r->at("status");
  if (status == "not_run") return "not run";
  const double cpu = std::atof(r->at("user_s").c_str()) + std::atof(r->at("sys_s").c_str());
  if (status == "ok") return fmt::format("{:.1f}", cpu);
  return fmt::format(">{:.0f} ({} {}/{} layers)", cpu, status == "aborted" ? "aborted" : "timeout",
                     r->at("layers_with_results"), r->at("n_layers"));
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = SCALESIM_BENCH_DATA;
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--data" && i + 1 < argc)
      data = argv[++i];
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else {
      std::cerr << "usage: bench_scalesim [--data DIR] [--repeat N]\n";
      return 2;
    }
  }
  try {
    const auto runs = read_csv(data + "/runs.csv");
    auto find_run = [&](const Case& c, const std::string& df) -> const Row* {
      for (const auto& r : runs)
        if (r.at("config") == c.runs_cfg && r.at("topology") == c.network && r.at("dataflow") == df)
          return &r;
      return nullptr;
    };
    std::vector<Case> cases;
    for (const auto& [net, file] :
         std::vector<std::pair<std::string, std::string>>{{"alexnet", "alexnet"},
                                                          {"Resnet18", "resnet18"},
                                                          {"yolo_tiny", "yolo_tiny"},
                                                          {"gpt2", "gpt2"}}) {
      cases.push_back({"scale", "scale", net, file, 0});
      cases.push_back({"scale_user_bw10", "scaleUSERbw10", net, file, 0});
      cases.push_back({"google", "google", net, file, 0});
    }
    for (std::int64_t n : {512, 1024, 2048, 4096})
      cases.push_back({"sq128", "sq128", fmt::format("gemm_{}", n), "", n});

    std::vector<std::vector<std::string>> table;
    double worst = 0;
    std::string worst_case;
    for (const auto& c : cases) {
      wl::ScalesimConfig cfg = wl::load_scalesim_cfg(data + "/configs/" + c.config + ".cfg");
      std::vector<ss::ConvLayer> layers;
      if (c.file.empty()) {
        layers.push_back(ss::ConvLayer::gemm(c.network, c.gemm, c.gemm, c.gemm));
      } else {
        for (const auto& l :
             wl::load_scalesim_topology(data + "/topologies/" + c.file + ".csv").layers)
          layers.push_back(l.layer);
      }
      for (const auto df : {ss::Dataflow::kOs, ss::Dataflow::kWs, ss::Dataflow::kIs}) {
        cfg.arch.dataflow = df;
        const Timing t = run(cfg, layers, repeat);
        const Row* ref = find_run(c, ss::to_string(df));
        if (t.wall > worst)
          worst = t.wall, worst_case = c.config + " " + c.network + " " + ss::to_string(df);
        std::string speedup = "-";
        if (ref && (ref->at("status") == "ok" || ref->at("status").rfind("timeout", 0) == 0 ||
                    ref->at("status") == "aborted")) {
          const double cpu =
              std::atof(ref->at("user_s").c_str()) + std::atof(ref->at("sys_s").c_str());
          speedup = fmt::format("{}{:.0f}x", ref->at("status") == "ok" ? "" : ">", cpu / t.wall);
        }
        table.push_back({c.runs_cfg, c.network, ss::to_string(df),
                         cfg.arch.user_bandwidth ? "USER" : "CALC", std::to_string(t.layers),
                         systole::with_commas(static_cast<unsigned long long>(t.cycles)),
                         systole::with_commas(static_cast<unsigned long long>(t.stalls)),
                         fmt::format("{:.4f}", t.wall), scalesim_cell(ref), speedup});
      }
    }
    std::vector<size_t> w(10, 0);
    const std::vector<std::string> header = {"config",         "network", "df",     "mode",
                                             "layers",         "cycles",  "stalls", "systole s",
                                             "scalesim cpu s", "speedup"};
    for (size_t i = 0; i < header.size(); ++i) {
      w[i] = header[i].size();
      for (const auto& r : table) w[i] = std::max(w[i], r[i].size());
    }
    auto line = [&](const std::vector<std::string>& r) {
      std::string s;
      for (size_t i = 0; i < r.size(); ++i)
        s += (i ? "  " : "") +
             (i < 4 ? fmt::format("{:<{}}", r[i], w[i]) : fmt::format("{:>{}}", r[i], w[i]));
      std::cout << s << "\n";
    };
    std::cout << fmt::format(
        "Systole scalesim mode vs SCALE-Sim v2 (best of {} runs; SCALE-Sim: "
        "user+sys CPU seconds from runs.csv, '>' = cut off)\n\n",
        repeat);
    line(header);
    for (const auto& r : table) line(r);
    std::cout << fmt::format("\nslowest: {:.4f} s ({})\n", worst, worst_case);
  } catch (const systole::Error& e) {
    std::cerr << "bench_scalesim: error: " << e.what() << "\n";
    return e.exit_code();
  }
  return 0;
}

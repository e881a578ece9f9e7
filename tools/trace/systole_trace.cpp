// systole-trace: exports the operation trace of a results file to the Chrome trace-event JSON
// format, which https://ui.perfetto.dev and chrome://tracing open directly.
//
//   systole-trace results.h5 [--point ID] [-o trace.json]
//
// One process per design point, one track per unit (MXUs, DMA engines), one slice per op.
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iostream>

#include "sim/config/node.h"
#include "sim/core/output_path.h"
#include "sim/core/units.h"
#include "sim/stats/results_file.h"

using namespace systole;

namespace {

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

double clock_of(const stats::PointResult& p) {
  const auto cfg = config::parse_yaml(p.config_yaml, "config");
  const config::Node* clk = config::get_path(cfg, "system.chip.clock");
  ParsedQuantity q;
  std::string why;
  if (clk && clk->is_scalar() && parse_quantity(clk->text(), q, why) &&
      q.dim == Dimension::kFrequency)
    return q.value;
  return 1e9;  // unknown: show cycles as nanoseconds
}

}  // namespace

int main(int argc, char** argv) {
  std::string in, out = "trace.json";
  int only = -1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!std::strcmp(argv[i], "--point") && i + 1 < argc)
      only = std::atoi(argv[++i]);
    else if (argv[i][0] == '-') {
      std::cerr << "usage: systole-trace results.h5 [--point ID] [-o trace.json]\n";
      return 2;
    } else
      in = argv[i];
  }
  if (in.empty()) {
    std::cerr << "usage: systole-trace results.h5 [--point ID] [-o trace.json]\n";
    return 2;
  }
  try {
    check_output_path(out, {in});
    const auto points = stats::read_points_isolated(in);
    std::ofstream os(out);
    os << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    size_t slices = 0;
    auto emit = [&](const std::string& e) {
      os << (first ? "" : ",\n") << e;
      first = false;
    };
    for (const auto& p : points) {
      if ((only >= 0 && p.id != only) || !p.trace.enabled) continue;
      const double us_per_cycle = 1e6 / clock_of(p);
      emit(fmt::format(
          R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":"point {}: {}"}}}})", p.id,
          p.id, escape(p.label)));
      for (size_t u = 0; u < p.trace.units.size(); ++u)
        emit(fmt::format(
            R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":"{}"}}}})", p.id,
            u, escape(p.trace.units[u])));
      for (const auto& e : p.trace.events) {
        const std::string layer =
            e.layer < p.layers.rows().size() ? p.layers.get_string(e.layer, "layer") : "";
        emit(fmt::format(
            R"({{"ph":"X","pid":{},"tid":{},"name":"{}","ts":{:.4f},"dur":{:.4f},"args":{{"layer":"{}","bytes":{},"begin_cycle":{},"end_cycle":{}}}}})",
            p.id, e.unit, escape(p.trace.kinds.at(e.kind)),
            static_cast<double>(e.begin) * us_per_cycle,
            static_cast<double>(e.end - e.begin) * us_per_cycle, escape(layer), e.bytes, e.begin,
            e.end));
        ++slices;
      }
    }
    os << "\n]}\n";
    if (!os) throw SimError("cannot write " + out);
    std::cout << fmt::format("wrote {} ({} operations); open it in https://ui.perfetto.dev\n", out,
                             slices);
    if (slices == 0) std::cout << "no trace in the file: run simrun with -p output.trace=true\n";
    return 0;
  } catch (const Error& e) {
    std::cerr << "systole-trace: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "systole-trace: internal error: " << e.what() << "\n";
    return 1;
  }
}

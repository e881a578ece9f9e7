// systole-trace: exports the operation traces of a results file to the Chrome trace-event JSON
// format, which https://ui.perfetto.dev and chrome://tracing open directly (tracks and names:
// tools/trace/chrome_trace.h).
//
//   systole-trace RESULTS.h5 [-o trace.json] [--point INDEX|ID]
//
// Bad input (no trace, no such point, the output path naming the input, a file that is not a
// results file) is one line on stderr and exit code 2, and writes nothing: the JSON goes to
// "<out>.partial", renamed to <out> once complete.
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/core/output_path.h"
#include "sim/core/text.h"
#include "sim/stats/results_file.h"
#include "tools/trace/chrome_trace.h"

using namespace systole;

namespace {

constexpr const char* kUsage = "usage: systole-trace RESULTS.h5 [-o trace.json] [--point INDEX|ID]";

struct Args {
  std::string in, out = "trace.json";
  std::string point;  ///< a point's index or its stable id; empty: every traced point
};

/// --point takes a point's index in the sweep (an integer) or its stable id (/sweep point_id).
std::string parse_point(const char* s) {
  const std::string v = s;
  const bool index =
      !v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
  const bool id = v.size() == 12 && v.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!index && !id)
    throw trace::TraceError(fmt::format(
        "--point wants a point's index (an integer >= 0) or its id from /sweep (12 hex digits), "
        "not '{}'",
        v));
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const bool value = i + 1 < argc;
    if (!std::strcmp(argv[i], "-o") && value)
      a.out = argv[++i];
    else if (!std::strcmp(argv[i], "--point") && value)
      a.point = parse_point(argv[++i]);
    else if (argv[i][0] == '-' || !a.in.empty())
      throw trace::TraceError(kUsage);
    else
      a.in = argv[i];
  }
  if (a.in.empty()) throw trace::TraceError(kUsage);
  return a;
}

/// Writes `points` to a.out through "<out>.partial"; the partial file goes if anything fails.
trace::ExportCounts write(const Args& a, const std::vector<const stats::PointResult*>& points) {
  const std::string partial = a.out + ".partial";
  try {
    std::ofstream os(partial);
    if (!os) throw trace::TraceError(fmt::format("cannot write {}", partial));
    const auto n = trace::write_chrome_trace(points, os);
    os.close();
    if (!os) throw SimError(fmt::format("writing {} failed", partial));
    std::filesystem::rename(partial, a.out);
    return n;
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(partial, ec);
    throw;
  }
}

int run(int argc, char** argv) {
  if (argc == 2 && (!std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help"))) {
    std::cout << kUsage << "\n";
    return 0;
  }
  const Args a = parse(argc, argv);
  check_output_path(a.out, {a.in});  // not the input, a regular file or absent, writable
  check_not_input(a.out + ".partial", {a.in});
  const auto all = stats::read_points_isolated(a.in);
  const auto points = trace::traced_points(all, a.point, a.in);
  const auto n = write(a, points);
  std::cout << fmt::format(
      "wrote {}: {} device(s), {} operation slices ({} in flight together, on lanes), {} layer "
      "slices, {} tracks; open it in https://ui.perfetto.dev\n",
      a.out, n.devices, n.slices, n.concurrent, n.layer_slices, n.tracks);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Error& e) {
    std::cerr << "systole-trace: error: " << one_line(e.what()) << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "systole-trace: error: " << one_line(e.what()) << "\n";
    return 1;
  }
}

// The progress line simrun draws while a sweep runs (issue 14 item 5): bar, counts, elapsed
// clock, an ETA from the points finished so far, the running points, and the terminal width.
#include <catch2/catch.hpp>

#include "sim/stats/summary.h"

using systole::stats::Progress;
using systole::stats::progress_line;

TEST_CASE("progress line: counts, clock and ETA", "[unit][stats][progress]") {
  Progress p;
  p.done = 3;
  p.total = 8;
  p.failed = 1;
  p.finished_here = 3;
  p.elapsed_s = 75;
  // 25 s a point so far, 5 points left: 125 s.
  CHECK(progress_line(p) ==
        "[###########-------------------] 3/8 points, 1 failed, 1:15, ETA 2:05");
  p.last_done_s = 75;
  p.elapsed_s = 85;  // 10 s after the last point finished, the ETA has counted down 10 s
  CHECK(progress_line(p).find(", 1:25, ETA 1:55") != std::string::npos);
  p.elapsed_s = 500;  // slower than the mean so far: the ETA stays at 0, never negative
  CHECK(progress_line(p).find("ETA 0:00") != std::string::npos);
  p.finished_here = 0;  // only points kept by --resume: no basis for an ETA yet
  CHECK(progress_line(p).find("ETA") == std::string::npos);
  p.done = p.total = 8;
  p.finished_here = 8;
  p.elapsed_s = 3725;
  CHECK(progress_line(p) == "[##############################] 8/8 points, 1 failed, 1:02:05");
}

TEST_CASE("progress line: running points, cut to the terminal width", "[unit][stats][progress]") {
  Progress p;
  p.total = 4;
  p.running = {"point 0 (system.chip.mxu.rows=64)", "point 1 (system.chip.mxu.rows=128)"};
  const std::string full = progress_line(p);
  CHECK(full.find(" | running: point 0 (system.chip.mxu.rows=64); point 1 (") != std::string::npos);
  const std::string cut = progress_line(p, 60);
  CHECK(cut.size() == 59);  // never the last column: the cursor would wrap
  CHECK(cut.substr(56) == "...");
  CHECK(full.rfind(cut.substr(0, 56), 0) == 0);
}

TEST_CASE("summary tables fit the terminal: short headers, then columns left out",
          "[unit][stats][progress]") {
  using systole::stats::format_table;
  const std::vector<std::string> header = {"point", "system.chip.hbm.bandwidth", "cycles", "time"};
  const std::vector<std::vector<std::string>> rows = {{"0", "1.2TB/s", "123,456,789", "1.2 ms"}};
  const std::string wide = format_table(header, rows);
  CHECK(wide.find("system.chip.hbm.bandwidth") != std::string::npos);
  CHECK(format_table(header, rows, 200) == wide);
  // 5 + 2 + 9 + 2 + 11 + 2 + 6 = 37 columns with the header shortened to its last part.
  const std::string shortened = format_table(header, rows, 40);
  CHECK(shortened.find("bandwidth") != std::string::npos);
  CHECK(shortened.find("system.chip") == std::string::npos);
  CHECK(shortened.find("123,456,789") != std::string::npos);
  const std::string cut = format_table(header, rows, 30);
  CHECK(cut.find("123,456,789") != std::string::npos);  // a cell is whole or left out
  CHECK(cut.find("1.2 ms") == std::string::npos);
  CHECK(cut.find("(1 more column: time)\n") != std::string::npos);
  for (size_t at = 0, next; at < cut.size(); at = next + 1) {
    next = cut.find('\n', at);
    CHECK(next - at <= 30);
  }
}

TEST_CASE("wrap_words breaks between words, a long word on its own line", "[unit][stats]") {
  using systole::stats::wrap_words;
  CHECK(wrap_words("a bb ccc", 0) == std::vector<std::string>{"a bb ccc"});
  CHECK(wrap_words("a bb ccc", 4) == std::vector<std::string>{"a bb", "ccc"});
  CHECK(wrap_words("a bb ccc", 8) == std::vector<std::string>{"a bb ccc"});
  CHECK(wrap_words("a  bb ccc dddddddd e", 5) ==
        std::vector<std::string>{"a bb", "ccc", "dddddddd", "e"});
  CHECK(wrap_words("", 5) == std::vector<std::string>{""});
}

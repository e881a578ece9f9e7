#include "sim/stats/summary.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "sim/core/text.h"
#include "sim/core/units.h"

namespace systole::stats {

namespace {

/// The one unit table a summary reads (pipeline_summary).
constexpr const char* kPipelineStages = "pipeline_stages";

bool numeric(const std::string& s) {
  if (s.empty()) return false;
  const char c = s[0];
  return std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

std::string metric_text(const PointResult& p, const std::string& name, Dimension dim,
                        int digits = 3) {
  const auto& cols = p.metrics.columns();
  for (size_t i = 0; i < cols.size(); ++i) {
    if (cols[i].name != name) continue;
    const Cell& c = p.metrics.cells()[i];
    double v = std::holds_alternative<std::int64_t>(c)
                   ? static_cast<double>(std::get<std::int64_t>(c))
               : std::holds_alternative<double>(c) ? std::get<double>(c)
                                                   : 0;
    if (dim == Dimension::kNone) {
      if (std::holds_alternative<std::int64_t>(c)) return format_cell(c);
      return fmt::format("{:.{}f}", v, digits);
    }
    return format_quantity(v, dim);
  }
  return "-";
}

}  // namespace

namespace {

std::vector<size_t> column_widths(const std::vector<std::string>& header,
                                  const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(header.size());
  for (size_t c = 0; c < header.size(); ++c) w[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  return w;
}

size_t table_width(const std::vector<size_t>& w, size_t columns) {
  size_t total = 0;
  for (size_t c = 0; c < columns && c < w.size(); ++c) total += w[c] + (c ? 2 : 0);
  return total;
}

std::string aligned_table(const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows,
                          const std::vector<size_t>& w) {
  std::vector<bool> right(w.size(), true);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < right.size(); ++c)
      if (!r[c].empty() && r[c] != "-" && !numeric(r[c])) right[c] = false;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < w.size(); ++c) {
      const std::string v = c < cells.size() ? cells[c] : "";
      if (c) s += "  ";
      s += right[c] ? fmt::format("{:>{}}", v, w[c]) : fmt::format("{:<{}}", v, w[c]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(header);
  out += std::string(table_width(w, w.size()), '-') + "\n";
  for (const auto& r : rows) out += line(r);
  return out;
}

}  // namespace

std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows, size_t width) {
  std::vector<size_t> w = column_widths(header, rows);
  if (width == 0 || table_width(w, w.size()) <= width) return aligned_table(header, rows, w);
  std::vector<std::string> h = header;  // system.chip.hbm.bandwidth -> bandwidth
  for (auto& name : h)
    if (name.find('.') != std::string::npos) name = name.substr(name.rfind('.') + 1);
  w = column_widths(h, rows);
  size_t keep = w.size();
  while (keep > 1 && table_width(w, keep) > width) --keep;
  if (keep == w.size()) return aligned_table(h, rows, w);
  std::vector<std::vector<std::string>> cut;
  for (const auto& r : rows) cut.emplace_back(r.begin(), r.begin() + std::min(r.size(), keep));
  const std::vector<std::string> left_out(header.begin() + static_cast<long>(keep), header.end());
  std::string note = fmt::format("({} more column{}: {})", left_out.size(),
                                 left_out.size() == 1 ? "" : "s", join(left_out, ", "));
  if (note.size() > width) note = note.substr(0, width > 4 ? width - 4 : 0) + "...)";
  return aligned_table({h.begin(), h.begin() + static_cast<long>(keep)}, cut,
                       {w.begin(), w.begin() + static_cast<long>(keep)}) +
         note + "\n";
}

namespace {

bool has_metric(const PointResult& p, const std::string& name) {
  for (const auto& c : p.metrics.columns())
    if (c.name == name) return true;
  return false;
}

/// Multi-chip points (tpu_pod): their collectives, beside the table of points.
std::string communication_summary(const std::vector<PointResult>& points) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : points) {
    if (!p.ok() || !has_metric(p, "collective_time")) continue;
    rows.push_back({std::to_string(p.id), metric_text(p, "collective_time", Dimension::kTime),
                    metric_text(p, "exposed_comm_time", Dimension::kTime),
                    format_quantity(p.metrics.number("busbw"), Dimension::kBandwidth),
                    fmt::format("{:.3f}", p.metrics.number("max_link_utilization"))});
  }
  if (rows.empty()) return "";
  return "\n" +
         format_table({"point", "collectives", "exposed comm", "busbw", "max link util"}, rows);
}

/// Pipelined points (tpu_pod, parallel.pipeline > 1): the bubble and the stage hand-offs.
std::string pipeline_summary(const std::vector<PointResult>& points) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : points) {
    if (!p.ok() || !has_metric(p, "pipeline_bubble")) continue;
    std::string busy;
    for (const auto& t : p.units)
      if (t.name() == kPipelineStages)
        for (std::size_t r = 0; r < t.rows().size(); ++r)
          busy += (busy.empty() ? "" : ", ") +
                  format_quantity(t.get_number(r, "busy_time"), Dimension::kTime);
    rows.push_back({std::to_string(p.id),
                    fmt::format("{:.3f}", p.metrics.number("pipeline_bubble")),
                    fmt::format("{:.3f}", p.metrics.number("pipeline_bubble_formula")),
                    format_quantity(p.metrics.number("p2p_bytes"), Dimension::kBytes),
                    metric_text(p, "p2p_time", Dimension::kTime), busy});
  }
  if (rows.empty()) return "";
  return "\n" + format_table({"point", "pipeline bubble", "GPipe (P-1)/(M+P-1)", "p2p bytes/chip",
                              "p2p time", "stage busy"},
                             rows);
}

}  // namespace

void keep_for_summary(PointResult& p) {
  p.trace = Trace();
  std::string().swap(p.config_yaml);
  p.units.erase(std::remove_if(p.units.begin(), p.units.end(),
                               [](const Table& t) { return t.name() != kPipelineStages; }),
                p.units.end());
  p.units.shrink_to_fit();
}

std::string points_summary(const std::vector<PointResult>& points,
                           const std::vector<std::string>& swept_paths, size_t width) {
  std::vector<std::string> header = {"point", "id"};
  for (const auto& p : swept_paths) header.push_back(p);
  for (const char* h : {"status", "cycles", "time", "MAC util", "TFLOP/s", "HBM traffic"})
    header.push_back(h);
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : points) {
    std::vector<std::string> r = {std::to_string(p.id), p.key};
    for (const auto& path : swept_paths) {
      std::string v = "-";
      for (const auto& [k, val] : p.assignments)
        if (k == path) v = val;
      r.push_back(v);
    }
    r.push_back(p.status);
    if (p.ok()) {
      r.push_back(metric_text(p, "total_cycles", Dimension::kNone));
      r.push_back(metric_text(p, "time", Dimension::kTime));
      r.push_back(metric_text(p, "mac_utilization", Dimension::kNone));
      std::string tf = metric_text(p, "achieved_flops", Dimension::kNone);
      if (tf != "-") tf = fmt::format("{:.1f}", std::stod(tf) / 1e12);
      r.push_back(tf);
      r.push_back(metric_text(p, "hbm_bytes", Dimension::kBytes));
    } else {
      for (int i = 0; i < 5; ++i) r.push_back("-");
    }
    rows.push_back(std::move(r));
  }
  std::string out = format_table(header, rows, width);
  out += communication_summary(points);
  out += pipeline_summary(points);
  for (const auto& p : points)
    if (!p.ok()) out += fmt::format("point {} (id {}) failed: {}\n", p.id, p.key, p.error);
  return out;
}

std::string layers_summary(const PointResult& p, size_t width) {
  const Table& t = p.layers;
  if (t.empty()) return "";
  std::vector<std::string> header = {"layer",    "shape", "tile",        "cycles", "MAC util",
                                     "roofline", "bound", "HBM traffic", "FLOP/B"};
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < t.rows().size(); ++i) {
    rows.push_back({t.get_string(i, "layer"), t.get_string(i, "shape"), t.get_string(i, "tile"),
                    format_cell(t.rows()[i][static_cast<size_t>(t.column("cycles"))]),
                    fmt::format("{:.3f}", t.get_number(i, "mac_utilization")),
                    fmt::format("{:.3f}", t.get_number(i, "roofline_fraction")),
                    t.get_string(i, "bound"),
                    format_quantity(t.get_number(i, "hbm_bytes"), Dimension::kBytes),
                    fmt::format("{:.1f}", t.get_number(i, "arithmetic_intensity"))});
  }
  return format_table(header, rows, width);
}

namespace {

std::string clock_text(double seconds) {
  const auto secs = static_cast<long>(seconds);
  return secs >= 3600 ? fmt::format("{}:{:02d}:{:02d}", secs / 3600, secs / 60 % 60, secs % 60)
                      : fmt::format("{}:{:02d}", secs / 60, secs % 60);
}

}  // namespace

std::string progress_line(const Progress& p, size_t width) {
  const size_t bar = 30;
  const size_t filled = p.total ? std::min(bar, bar * p.done / p.total) : bar;
  std::string line = fmt::format(
      "[{}{}] {}/{} points{}, {}", std::string(filled, '#'), std::string(bar - filled, '-'), p.done,
      p.total, p.failed ? fmt::format(", {} failed", p.failed) : "", clock_text(p.elapsed_s));
  if (p.finished_here > 0 && p.done < p.total) {
    const double at = p.last_done_s >= 0 ? p.last_done_s : p.elapsed_s;
    const double left =
        at / static_cast<double>(p.finished_here) * static_cast<double>(p.total - p.done) -
        (p.elapsed_s - at);
    line += ", ETA " + clock_text(std::max(0.0, left));
  }
  if (!p.running.empty()) line += " | running: " + join(p.running, "; ");
  if (width > 1 && line.size() > width - 1) line = line.substr(0, width - 4) + "...";
  return line;
}

size_t terminal_width() {
  if (const char* c = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long v = std::strtol(c, &end, 10);
    if (end != c && *end == '\0' && v > 0 && v < 10000) return static_cast<size_t>(v);
  }
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  if (width == 0) return {text};
  std::vector<std::string> lines;
  std::string line;
  for (size_t at = 0; at < text.size();) {
    const size_t start = text.find_first_not_of(' ', at);
    if (start == std::string::npos) break;
    const size_t end = std::min(text.find(' ', start), text.size());
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace systole::stats

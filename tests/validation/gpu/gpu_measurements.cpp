// Reads the GPU measurement CSVs (see gpu_measurements.h).
#include "tests/validation/gpu/gpu_measurements.h"

#include <fstream>
#include <functional>
#include <stdexcept>

#include "tests/support/paths.h"

namespace systole::test::gpu {

namespace {

/// Splits one CSV line; fields may be double-quoted (with "" for a quote).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

double number(const std::string& s) { return s.empty() ? 0.0 : std::stod(s); }

std::vector<std::vector<std::string>> read_csv(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file);
  std::vector<std::vector<std::string>> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(split_csv(line));
  return lines;
}

/// "key=value" from the membench device line.
std::string field(const std::vector<std::string>& f, const std::string& key) {
  for (const auto& s : f)
    if (s.rfind(key + "=", 0) == 0) return s.substr(key.size() + 1);
  throw std::runtime_error("membench device line has no " + key);
}

/// Mean over `runs` of `f(run)`.
double mean_over(const std::vector<std::string>& runs,
                 const std::function<double(const std::string&)>& f) {
  double sum = 0;
  for (const auto& r : runs) sum += f(r);
  return sum / static_cast<double>(runs.size());
}

/// Mean of the chase cycles (`l1` mode) whose footprint is in [lo, hi]; throws when none is.
double chase_mean(const Membench& m, bool l1, double lo, double hi) {
  double sum = 0;
  int n = 0;
  for (const auto& c : m.chase)
    if (c.l1 == l1 && static_cast<double>(c.footprint) >= lo &&
        static_cast<double>(c.footprint) <= hi) {
      sum += c.cycles;
      ++n;
    }
  if (n == 0) throw std::runtime_error("no chase footprint in range for " + m.device);
  return sum / n;
}

double readbw_mean(const Membench& m, double lo, double hi) {
  double sum = 0;
  int n = 0;
  for (const auto& r : m.readbw)
    if (static_cast<double>(r.footprint) >= lo && static_cast<double>(r.footprint) <= hi) {
      sum += r.gbytes_per_s;
      ++n;
    }
  if (n == 0) throw std::runtime_error("no readbw footprint in range for " + m.device);
  return sum / n * 1e9;
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

std::string data_dir() { return source_dir() + "/tests/validation/gpu/data"; }

std::vector<MeasuredRow> load_rows(const std::string& run) {
  const auto lines = read_csv(data_dir() + "/" + run + ".csv");
  std::vector<MeasuredRow> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {  // line 0: the header
    const auto& f = lines[i];
    if (f.size() < 7) throw std::runtime_error(run + ".csv: short line " + std::to_string(i));
    MeasuredRow r{f[0], f[1], f[2], f[3], number(f[4]), number(f[5]), number(f[6]), ""};
    if (f.size() > 7) r.kernels = f[7];
    rows.push_back(r);
  }
  return rows;
}

std::vector<NetworkRow> load_network_rows(const std::string& run) {
  const auto lines = read_csv(data_dir() + "/" + run + ".csv");
  std::vector<NetworkRow> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {  // line 0: the header
    const auto& f = lines[i];
    if (f.size() < 4) throw std::runtime_error(run + ".csv: short line " + std::to_string(i));
    rows.push_back({f[0], std::stoi(f[1]), f[2], number(f[3])});
  }
  return rows;
}

std::vector<LlmRow> load_llm_rows(const std::string& run) {
  const auto lines = read_csv(data_dir() + "/" + run + ".csv");
  std::vector<LlmRow> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {  // line 0: the header
    const auto& f = lines[i];
    if (f.size() < 8) throw std::runtime_error(run + ".csv: short line " + std::to_string(i));
    rows.push_back({f[0], std::stoi(f[1]), std::stoi(f[2]), f[4], f[6], number(f[7])});
  }
  return rows;
}

std::vector<HeldoutRow> load_heldout_rows(const std::string& run) {
  const auto lines = read_csv(data_dir() + "/" + run + ".csv");
  std::vector<HeldoutRow> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {  // line 0: the header
    const auto& f = lines[i];
    if (f.size() < 7) throw std::runtime_error(run + ".csv: short line " + std::to_string(i));
    rows.push_back(
        {std::stoi(f[0]), f[1], f[2], f[3], number(f[4]), number(f[5]), f.size() > 7 ? f[7] : ""});
  }
  return rows;
}

const MeasuredRow& find_row(const std::vector<MeasuredRow>& rows, const std::string& group,
                            const std::string& name, const std::string& shape) {
  for (const auto& r : rows)
    if (r.group == group && r.name == name && (shape.empty() || r.shape == shape)) return r;
  throw std::runtime_error("no measured row " + group + "," + name + "," + shape);
}

Membench load_membench(const std::string& run) {
  Membench m;
  for (const auto& f : read_csv(data_dir() + "/" + run + "_membench.csv")) {
    if (f[0] == "device" && f.size() >= 5) {
      m.device = f[1];
      m.sms = std::stoi(field(f, "sms"));
      m.l2_bytes = std::stoull(field(f, "l2"));
      m.clock_hz = std::stod(field(f, "clock_khz")) * 1e3;
    } else if (f[0] == "chase" && f.size() >= 4) {
      m.chase.push_back({f[1] == "ca", std::stoull(f[2]), std::stod(f[3])});
    } else if (f[0] == "readbw" && f.size() >= 5) {
      m.readbw.push_back({std::stoull(f[1]), std::stod(f[4])});
    }
  }
  if (m.clock_hz <= 0 || m.chase.empty() || m.readbw.empty())
    throw std::runtime_error(run + "_membench.csv: incomplete");
  return m;
}

std::vector<L2bwRow> load_l2bw(const std::string& run) {
  std::vector<L2bwRow> out;
  for (const auto& f : read_csv(data_dir() + "/" + run + ".csv")) {
    // Skips the header, the device and cluster-count lines, and the block -> %smid lists.
    if (f.size() != 9 || f[0] == "path" || f[0].rfind("per_block", 0) == 0 ||
        f[0].rfind("smid_of_block", 0) == 0)
      continue;
    out.push_back({f[0], std::stoull(f[1]), std::stoull(f[2]), std::stoi(f[3]), std::stoi(f[4]),
                   std::stod(f[6]), std::stod(f[7]), std::stod(f[8])});
  }
  if (out.empty()) throw std::runtime_error(run + ".csv: no rows");
  return out;
}

MemoryMeasurement measure_memory(const std::vector<std::string>& runs) {
  MemoryMeasurement out;
  const auto stream = [&](const char* name) {
    return mean_over(runs, [&](const std::string& r) {
      return find_row(load_rows(r), "stream", name).gbytes_per_s * 1e9;
    });
  };
  out.stream_read = stream("read_sum");
  out.stream_copy = stream("copy");
  out.stream_triad = stream("triad");
  std::vector<Membench> mb;
  for (const auto& r : runs) mb.push_back(load_membench(r));
  const auto over = [&](const std::function<double(const Membench&)>& f) {
    double sum = 0;
    for (const auto& m : mb) sum += f(m);
    return sum / static_cast<double>(mb.size());
  };
  out.l2_read = over([](const Membench& m) {
    return readbw_mean(m, 8 * kMiB, static_cast<double>(m.l2_bytes) / 2);
  });
  out.l1_cycles = over([](const Membench& m) { return chase_mean(m, true, 0, 1e18); });
  out.l2_near_cycles = over([](const Membench& m) { return chase_mean(m, false, kMiB, 8 * kMiB); });
  out.l2_far_cycles = over([](const Membench& m) {
    const auto l2 = static_cast<double>(m.l2_bytes);
    return chase_mean(m, false, 0.6 * l2, 0.8 * l2);
  });
  out.dram_cycles = over([](const Membench& m) {
    return chase_mean(m, false, 2.0 * static_cast<double>(m.l2_bytes), 1e18);
  });
  out.clock_hz = over([](const Membench& m) { return m.clock_hz; });
  const double ns = 1e9 / out.clock_hz;
  out.l1_ns = out.l1_cycles * ns;
  out.l2_near_ns = out.l2_near_cycles * ns;
  out.l2_far_ns = out.l2_far_cycles * ns;
  out.dram_ns = out.dram_cycles * ns;
  return out;
}

}  // namespace systole::test::gpu

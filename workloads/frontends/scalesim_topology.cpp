#include "workloads/frontends/scalesim_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <sstream>

#include "sim/core/error.h"
#include "sim/core/input_file.h"
#include "workloads/frontends/scalesim_text.h"

namespace systole::workloads {
namespace {

using models::scalesim::ConvLayer;

const char* const kConvFields[] = {"Layer name",    "IFMAP Height", "IFMAP Width",
                                   "Filter Height", "Filter Width", "Channels",
                                   "Num Filter",    "Strides",      "Stride Width"};
const char* const kGemmFields[] = {"Layer", "M", "N", "K"};

// Limits of this reader, far above any published topology (GPT-3's largest GEMM is
// 2^11 x 2^14 x 2^15): they keep every product the model forms in 64 bits, its per-element
// tables (24 B per output pixel and per K element, 4 B per IFMAP word: scalesim_geometry.h,
// scalesim_walk.cpp) under about 1 GiB, and a layer's run time finite.
constexpr std::int64_t kMaxField = std::int64_t{1} << 24;
constexpr std::int64_t kMaxOperand = std::int64_t{1} << 26;  // IFMAP words, output pixels, K
constexpr std::int64_t kMaxMacs = std::int64_t{1} << 48;
constexpr std::int64_t kMaxLayers = std::int64_t{1} << 20;  // after the depthwise split

/// a x b x c, or INT64_MAX when that overflows (every factor is positive).
std::int64_t product(std::int64_t a, std::int64_t b, std::int64_t c = 1) {
  std::int64_t ab = 0, abc = 0;
  if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc))
    return std::numeric_limits<std::int64_t>::max();
  return abc;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<std::string> trimmed_fields(const std::string& line) {
  auto f = split_fields(line);
  for (auto& s : f) s = trim(s);
  while (!f.empty() && f.back().empty()) f.pop_back();
  return f;
}

bool looks_like_data(const std::vector<std::string>& f) {
  if (f.size() < 4) return false;
  std::int64_t v = 0;
  return std::all_of(f.begin() + 1, f.end(),
                     [&](const std::string& s) { return parse_int64(s, v); });
}

class RowReader {
 public:
  RowReader(const std::string& path, int line) : path_(path), line_(line) {}
  Origin at() const { return {path_, line_, 0}; }

  std::int64_t positive(const std::string& text, const char* field) const {
    std::int64_t v = 0;
    if (!parse_int64(text, v) || v <= 0)
      throw ConfigError(at(), field, fmt::format("expected a positive integer, got '{}'", text));
    if (v > kMaxField)
      throw ConfigError(at(), field,
                        fmt::format("{} is larger than {} (2^24), the most this reader accepts",
                                    text, kMaxField));
    return v;
  }

  /// The layer's operand sizes and MACs within this reader's limits (kMaxOperand, kMaxMacs).
  void check_size(const ConvLayer& l) const {
    const std::int64_t words = product(l.ifmap_h, l.ifmap_w, l.channels);
    const std::int64_t m = product(l.ofmap_h(), l.ofmap_w());
    const std::int64_t k = product(l.filter_h, l.filter_w, l.channels);
    const std::pair<const char*, std::int64_t> sizes[] = {
        {"IFMAP words (height x width x channels)", words},
        {"output pixels (GEMM M)", m},
        {"filter elements per output (GEMM K)", k}};
    for (const auto& [what, v] : sizes)
      if (v > kMaxOperand)
        throw ConfigError(at(), "",
                          fmt::format("layer '{}': {} {} exceed {} (2^26), the most this reader "
                                      "accepts",
                                      l.name, v, what, kMaxOperand));
    const std::int64_t macs = product(m, k, l.num_filters);
    if (macs > kMaxMacs)
      throw ConfigError(at(), "",
                        fmt::format("layer '{}': {} MACs exceed {} (2^48), the most this reader "
                                    "accepts",
                                    l.name, macs, kMaxMacs));
  }

  // SCALE-Sim drops the text after the last comma; say so when that loses a value.
  std::string dropped_hint(const std::string& dropped) const {
    if (dropped.empty()) return "";
    return fmt::format(
        " (SCALE-Sim ignores the text after the last comma, here '{}': end each "
        "row with ',')",
        dropped);
  }

 private:
  std::string path_;
  int line_;
};

void read_conv_row(const std::vector<std::string>& f, const std::string& dropped,
                   const RowReader& rr, int line, ScalesimTopology& topo) {
  if (f.size() < 8)
    throw ConfigError(rr.at(), kConvFields[f.size()], "missing" + rr.dropped_hint(dropped));
  ConvLayer l;
  l.name = f[0];
  l.ifmap_h = rr.positive(f[1], kConvFields[1]);
  l.ifmap_w = rr.positive(f[2], kConvFields[2]);
  l.filter_h = rr.positive(f[3], kConvFields[3]);
  l.filter_w = rr.positive(f[4], kConvFields[4]);
  l.channels = rr.positive(f[5], kConvFields[5]);
  l.num_filters = rr.positive(f[6], kConvFields[6]);
  l.stride_h = l.stride_w = rr.positive(f[7], kConvFields[7]);
  if (f.size() > 8) l.stride_w = rr.positive(f[8], kConvFields[8]);
  for (size_t i = 9; i < f.size(); ++i) {
    std::int64_t v = 0;  // SCALE-Sim converts every column to int, then ignores the extra ones
    if (!parse_int64(f[i], v))
      throw ConfigError(rr.at(), fmt::format("column {}", i + 1),
                        fmt::format("expected an integer, got '{}'", f[i]));
  }
  if (f.size() > 9)
    topo.warnings.push_back(fmt::format("{}:{}: ignoring {} column(s) after Stride Width",
                                        rr.at().file, line, f.size() - 9));
  if (l.filter_h > l.ifmap_h)
    throw ConfigError(rr.at(), kConvFields[3],
                      fmt::format("{} is larger than IFMAP Height {}", l.filter_h, l.ifmap_h));
  if (l.filter_w > l.ifmap_w)
    throw ConfigError(rr.at(), kConvFields[4],
                      fmt::format("{} is larger than IFMAP Width {}", l.filter_w, l.ifmap_w));
  rr.check_size(l);
  if (l.name.find("DP") != std::string::npos) {
    // SCALE-Sim's depthwise rule: one single-channel layer per channel.
    const std::int64_t channels = l.channels;
    if (static_cast<std::int64_t>(topo.layers.size()) + channels > kMaxLayers)
      throw ConfigError(rr.at(), kConvFields[5],
                        fmt::format("the depthwise split of '{}' into {} layers takes the "
                                    "topology past {} (2^20) layers",
                                    l.name, channels, kMaxLayers));
    for (std::int64_t ch = 0; ch < channels; ++ch) {
      ConvLayer d = l;
      d.name = l.name + "Channel_" + std::to_string(ch);
      d.channels = 1;
      topo.layers.push_back({d, line});
    }
    return;
  }
  topo.layers.push_back({l, line});
}

void read_gemm_row(const std::vector<std::string>& f, const std::string& dropped,
                   const RowReader& rr, int line, ScalesimTopology& topo) {
  if (f.size() < 4)
    throw ConfigError(rr.at(), kGemmFields[f.size()], "missing" + rr.dropped_hint(dropped));
  const std::int64_t m = rr.positive(f[1], "M"), n = rr.positive(f[2], "N"),
                     k = rr.positive(f[3], "K");
  if (f.size() > 4)
    topo.warnings.push_back(
        fmt::format("{}:{}: ignoring {} column(s) after K", rr.at().file, line, f.size() - 4));
  const ConvLayer l = ConvLayer::gemm(f[0], m, n, k);
  rr.check_size(l);
  topo.layers.push_back({l, line});
}

}  // namespace

ScalesimTopology parse_scalesim_topology(const std::string& text, const std::string& path) {
  ScalesimTopology topo;
  topo.path = path;
  topo.name = std::filesystem::path(path).stem().string();
  std::istringstream in(text);
  std::string raw;
  int n = 0;
  while (std::getline(in, raw)) {
    ++n;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string row = trim(raw);
    if (n == 1) {
      // SCALE-Sim always skips line 1; make sure it is a header, and read the format off it.
      const auto h = trimmed_fields(row);
      if (row.empty())
        throw ConfigError({path, 1, 0}, "", "expected the header line (SCALE-Sim skips line 1)");
      if (looks_like_data(h))
        throw ConfigError({path, 1, 0}, "",
                          "expected a header line, got a layer (SCALE-Sim always skips line 1; "
                          "add 'Layer name, IFMAP Height, ...' or 'Layer, M, N, K,')");
      topo.gemm = h.size() >= 4 && lower(h[1]) == "m" && lower(h[2]) == "n" && lower(h[3]) == "k";
      continue;
    }
    if (row.empty()) continue;
    auto fields = split_fields(row);
    const std::string dropped = trim(fields.back());
    fields.pop_back();  // SCALE-Sim: row.split(',')[:-1]
    for (auto& f : fields) f = trim(f);
    const RowReader rr(path, n);
    if (!dropped.empty() && fields.size() >= (topo.gemm ? 4u : 8u))
      topo.warnings.push_back(fmt::format(
          "{}:{}: no trailing comma: SCALE-Sim ignores the last field ('{}')", path, n, dropped));
    if (topo.gemm)
      read_gemm_row(fields, dropped, rr, n, topo);
    else
      read_conv_row(fields, dropped, rr, n, topo);
  }
  if (n == 0) throw ConfigError({path}, "", "empty topology file (expected a header and layers)");
  if (topo.layers.empty()) throw ConfigError({path, n, 0}, "", "no layers after the header");
  return topo;
}

ScalesimTopology load_scalesim_topology(const std::string& path) {
  if (non_regular_kind(path) == "missing")
    throw ConfigError({path}, "", "cannot open topology file");
  const std::string text = read_regular_file(path);
  return parse_scalesim_topology(text, path);
}

}  // namespace systole::workloads

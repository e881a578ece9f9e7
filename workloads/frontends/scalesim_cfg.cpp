#include "workloads/frontends/scalesim_cfg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core/input_file.h"
#include "sim/core/text.h"
#include "workloads/frontends/scalesim_text.h"

namespace systole::workloads {
namespace {

using models::scalesim::Dataflow;

// Keys SCALE-Sim v2/v3 configs carry, by section. Others are ignored with a warning.
const std::map<std::string, std::vector<std::string>>& known_keys() {
  static const std::map<std::string, std::vector<std::string>> k = {
      {"general", {"run_name"}},
      {"architecture_presets",
       {"ArrayHeight",        "ArrayWidth",         "IfmapSramSzkB",
        "FilterSramSzkB",     "OfmapSramSzkB",      "IfmapOffset",
        "FilterOffset",       "OfmapOffset",        "Dataflow",
        "Bandwidth",          "MemoryBanks",        "ReadRequestBuffer",
        "WriteRequestBuffer", "OnChipMemoryBanks",  "OnChipMemoryBankPorts",
        "IfmapCustomLayout",  "FilterCustomLayout", "IfmapSRAMBankBandwidth",
        "IfmapSRAMBankNum",   "IfmapSRAMBankPort",  "FilterSRAMBankBandwidth",
        "FilterSRAMBankNum",  "FilterSRAMBankPort"}},
      {"layout",
       {"IfmapCustomLayout", "IfmapSRAMBankBandwidth", "IfmapSRAMBankNum", "IfmapSRAMBankPort",
        "FilterCustomLayout", "FilterSRAMBankBandwidth", "FilterSRAMBankNum",
        "FilterSRAMBankPort"}},
      {"sparsity",
       {"SparsitySupport", "SparseRep", "OptimizedMapping", "BlockSize",
        "RandomNumberGeneratorSeed"}},
      {"run_presets",
       {"InterfaceBandwidth", "UseRamulatorTrace", "SRAM_row_size", "SRAM_bank_size",
        "DRAM_row_size", "DRAM_bank_size"}},
      {"network_presets", {"TopologyCsvLoc"}},
  };
  return k;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool truthy(const std::string& v) {
  const std::string l = lower(v);
  return l == "true" || l == "yes" || l == "on" || l == "1";
}

/// The parsed INI: sections in order, keys matched case-insensitively (configparser's
/// optionxform), with the line of each.
class Ini {
 public:
  Ini(const std::string& text, const std::string& path) : path_(path) { parse(text); }

  const ScalesimCfgEntry* find(const std::string& section, const std::string& key) const {
    for (const auto& e : entries_)
      if (e.section == section && lower(e.key) == lower(key)) return &e;
    return nullptr;
  }
  bool has_section(const std::string& s) const { return section_line_.count(s) > 0; }
  Origin section_origin(const std::string& s) const {
    const auto it = section_line_.find(s);
    return {path_, it == section_line_.end() ? 0 : it->second, 0};
  }
  const ScalesimCfgEntry& require(const std::string& section, const std::string& key) const {
    if (const auto* e = find(section, key)) return *e;
    if (!has_section(section))
      throw ConfigError({path_}, "[" + section + "]",
                        fmt::format("missing section (SCALE-Sim reads {} from it)", key));
    std::vector<std::string> keys;
    for (const auto& e : entries_)
      if (e.section == section) keys.push_back(e.key);
    throw ConfigError(section_origin(section), key,
                      fmt::format("missing in [{}]{}", section, did_you_mean(key, keys)));
  }
  const std::vector<ScalesimCfgEntry>& entries() const { return entries_; }
  const std::map<std::string, int>& sections() const { return section_line_; }

 private:
  void parse(const std::string& text) {
    std::istringstream in(text);
    std::string raw, section;
    int n = 0;
    ScalesimCfgEntry* last = nullptr;
    while (std::getline(in, raw)) {
      ++n;
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      const std::string line = trim(raw);
      if (line.empty()) {
        last = nullptr;
        continue;
      }
      if (line[0] == '#' || line[0] == ';') continue;
      const Origin at{path_, n, 0};
      if (std::isspace(static_cast<unsigned char>(raw[0])) && last) {
        last->value += "\n" + line;  // configparser continuation line
        continue;
      }
      last = nullptr;
      if (line.front() == '[') {
        if (line.back() != ']' || line.size() < 3)
          throw ConfigError(at, "",
                            fmt::format("expected a section header '[name]', got '{}'", line));
        section = line.substr(1, line.size() - 2);
        if (!section_line_.emplace(section, n).second)
          throw ConfigError(
              at, "[" + section + "]",
              fmt::format("section repeated (first at line {})", section_line_[section]));
        continue;
      }
      const size_t d = line.find_first_of("=:");
      if (d == std::string::npos || d == 0)
        throw ConfigError(at, "",
                          fmt::format("expected 'key = value' or 'key: value', got '{}'", line));
      if (section.empty()) throw ConfigError(at, "", "a key before the first [section] header");
      ScalesimCfgEntry e{section, trim(line.substr(0, d)), trim(line.substr(d + 1)), n};
      if (const auto* prev = find(section, e.key))
        throw ConfigError(at, e.key,
                          fmt::format("repeated in [{}] (first at line {})", section, prev->line));
      entries_.push_back(std::move(e));
      last = &entries_.back();
    }
  }

  std::string path_;
  std::vector<ScalesimCfgEntry> entries_;
  std::map<std::string, int> section_line_;
};

// Limits of this reader, far above any real array (SCALE-Sim's largest sample is 256 x 256):
// sizes up to 2^24 keep products such as rows x cols and KiB x 1024 in 64 bits; address
// offsets (SCALE-Sim's samples use 10^7 and 2 x 10^7) up to 2^48.
constexpr std::int64_t kMaxSize = std::int64_t{1} << 24;
constexpr std::int64_t kMaxOffset = std::int64_t{1} << 48;

std::int64_t int_value(const ScalesimCfgEntry& e, const std::string& path, bool positive) {
  std::int64_t v = 0;
  const Origin at{path, e.line, 0};
  if (!parse_int64(e.value, v) || (positive ? v <= 0 : v < 0))
    throw ConfigError(at, e.key,
                      fmt::format("expected a {} integer, got '{}'",
                                  positive ? "positive" : "non-negative", e.value));
  const std::int64_t max = positive ? kMaxSize : kMaxOffset;
  if (v > max)
    throw ConfigError(at, e.key,
                      fmt::format("{} is larger than {} (2^{}), the most this reader accepts",
                                  e.value, max, positive ? 24 : 48));
  return v;
}

void reject_if_enabled(const Ini& ini, const std::string& section, const std::string& key,
                       const std::string& path, const char* what) {
  const auto* e = ini.find(section, key);
  if (e && truthy(e->value))
    throw ConfigError(
        {path, e->line, 0}, e->key,
        fmt::format("'{}' is not modelled: Systole's scalesim mode reproduces SCALE-Sim "
                    "v2 without {}; set it to False",
                    e->value, what));
}

}  // namespace

Dataflow parse_scalesim_dataflow(const std::string& value, const Origin& origin,
                                 const std::string& key) {
  if (value == "os") return Dataflow::kOs;
  if (value == "ws") return Dataflow::kWs;
  if (value == "is") return Dataflow::kIs;
  throw ConfigError(origin, key,
                    fmt::format("expected os, ws or is, got '{}'{}", value,
                                did_you_mean(lower(value), {"os", "ws", "is"})));
}

ScalesimConfig parse_scalesim_cfg(const std::string& text, const std::string& path) {
  const Ini ini(text, path);
  ScalesimConfig c;
  c.path = path;
  c.entries = ini.entries();
  c.run_name = ini.require("general", "run_name").value;

  const auto& mode = ini.require("run_presets", "InterfaceBandwidth");
  if (mode.value != "USER" && mode.value != "CALC")
    throw ConfigError({path, mode.line, 0}, mode.key,
                      fmt::format("expected USER or CALC, got '{}'", mode.value));
  c.arch.user_bandwidth = mode.value == "USER";

  const std::string arch = "architecture_presets";
  auto req_int = [&](const char* key, bool positive) {
    return int_value(ini.require(arch, key), path, positive);
  };
  c.arch.rows = req_int("ArrayHeight", true);
  c.arch.cols = req_int("ArrayWidth", true);
  c.arch.ifmap_sram_kb = req_int("IfmapSramSzkB", true);
  c.arch.filter_sram_kb = req_int("FilterSramSzkB", true);
  c.arch.ofmap_sram_kb = req_int("OfmapSramSzkB", true);
  c.ifmap_offset = req_int("IfmapOffset", false);
  c.filter_offset = req_int("FilterOffset", false);
  c.ofmap_offset = req_int("OfmapOffset", false);
  const auto& df = ini.require(arch, "Dataflow");
  c.arch.dataflow = parse_scalesim_dataflow(df.value, {path, df.line, 0}, df.key);

  if (c.arch.user_bandwidth) {
    // USER mode: Bandwidth is a comma list (one per memory bank); SCALE-Sim uses the first.
    const auto& bw = ini.require(arch, "Bandwidth");
    for (const auto& part : split_fields(bw.value)) {
      ScalesimCfgEntry one = bw;
      one.value = trim(part);
      c.bandwidths.push_back(int_value(one, path, true));
    }
    if (const auto* banks = ini.find(arch, "MemoryBanks")) {
      const std::int64_t n = int_value(*banks, path, true);
      if (n != static_cast<std::int64_t>(c.bandwidths.size()))
        throw ConfigError({path, bw.line, 0}, bw.key,
                          fmt::format("expected {} value{} (MemoryBanks: {}), got {}", n,
                                      n == 1 ? "" : "s", n, c.bandwidths.size()));
    }
    c.arch.bandwidth = c.bandwidths.front();
  }

  reject_if_enabled(ini, "sparsity", "SparsitySupport", path, "sparsity");
  reject_if_enabled(ini, "run_presets", "UseRamulatorTrace", path, "Ramulator traces");
  for (const char* s : {"architecture_presets", "layout"})
    for (const char* k : {"IfmapCustomLayout", "FilterCustomLayout"})
      reject_if_enabled(ini, s, k, path, "custom SRAM layouts");

  if (const auto* topo = ini.find("network_presets", "TopologyCsvLoc")) {
    std::string v = topo->value;
    v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
    c.topology_path = trim(v);
  }

  const auto& known = known_keys();
  for (const auto& [section, line] : ini.sections()) {
    if (!known.count(section)) {
      std::vector<std::string> names;
      for (const auto& k : known) names.push_back(k.first);
      c.warnings.push_back(fmt::format("{}:{}: ignoring unknown section [{}]{}", path, line,
                                       section, did_you_mean(section, names)));
    }
  }
  for (const auto& e : ini.entries()) {
    const auto it = known.find(e.section);
    if (it == known.end()) continue;
    const bool ok = std::any_of(it->second.begin(), it->second.end(),
                                [&](const std::string& k) { return lower(k) == lower(e.key); });
    if (!ok)
      c.warnings.push_back(fmt::format("{}:{}: ignoring unknown key '{}' in [{}]{}", path, e.line,
                                       e.key, e.section, did_you_mean(e.key, it->second)));
  }
  return c;
}

ScalesimConfig load_scalesim_cfg(const std::string& path) {
  if (non_regular_kind(path) == "missing")
    throw ConfigError({path}, "", "cannot open SCALE-Sim config file");
  const std::string text = read_regular_file(path);
  return parse_scalesim_cfg(text, path);
}

std::string ScalesimConfig::to_yaml() const {
  std::string y =
      fmt::format("scalesim_cfg: {}\nrun_name: {}\n", yaml_quote(path), yaml_quote(run_name));
  std::string section;
  for (const auto& e : entries) {
    if (e.section != section) {
      section = e.section;
      y += yaml_quote(section) + ":\n";
    }
    y += fmt::format("  {}: {}\n", yaml_quote(e.key), yaml_quote(e.value));
  }
  y += "resolved:\n";
  y += fmt::format("  array_rows: {}\n  array_cols: {}\n", arch.rows, arch.cols);
  y += fmt::format("  ifmap_sram_kb: {}\n  filter_sram_kb: {}\n  ofmap_sram_kb: {}\n",
                   arch.ifmap_sram_kb, arch.filter_sram_kb, arch.ofmap_sram_kb);
  y += fmt::format("  dataflow: {}\n  interface_bandwidth: {}\n",
                   models::scalesim::to_string(arch.dataflow),
                   arch.user_bandwidth ? "USER" : "CALC");
  if (arch.user_bandwidth) y += fmt::format("  bandwidth_words_per_cycle: {}\n", arch.bandwidth);
  y += "  word_bytes: 1\n";
  return y;
}

}  // namespace systole::workloads

#pragma once
// Reads the SCALE-Sim reference tables in tests/data/scalesim/ (plain CSV, no quoting) and turns
// a layers.csv row into the model's inputs.
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/scalesim/scalesim_timing.h"
#include "tests/support/paths.h"

namespace systole::test {

struct CsvRow {
  std::map<std::string, std::string> cells;
  const std::string& operator[](const std::string& k) const {
    const auto it = cells.find(k);
    if (it == cells.end()) throw std::runtime_error("no column " + k);
    return it->second;
  }
  std::int64_t num(const std::string& k) const { return std::stoll((*this)[k]); }
};

inline std::vector<std::string> split_csv(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

inline std::vector<CsvRow> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  std::getline(in, line);
  const auto header = split_csv(line);
  std::vector<CsvRow> rows;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    const auto cells = split_csv(line);
    CsvRow r;
    for (size_t i = 0; i < header.size(); ++i)
      r.cells[header[i]] = i < cells.size() ? cells[i] : "";
    rows.push_back(std::move(r));
  }
  return rows;
}

inline std::string scalesim_data(const std::string& file) {
  return source_dir() + "/tests/data/scalesim/" + file;
}

inline models::scalesim::Dataflow parse_dataflow(const std::string& s) {
  using models::scalesim::Dataflow;
  if (s == "os") return Dataflow::kOs;
  if (s == "ws") return Dataflow::kWs;
  if (s == "is") return Dataflow::kIs;
  throw std::runtime_error("dataflow " + s);
}

/// The array of a layers.csv row (CALC rows carry "n/a (CALC)" as bandwidth).
inline models::scalesim::ArrayConfig row_array(const CsvRow& r) {
  models::scalesim::ArrayConfig a;
  a.rows = r.num("array_rows");
  a.cols = r.num("array_cols");
  a.ifmap_sram_kb = r.num("ifmap_sram_kb");
  a.filter_sram_kb = r.num("filter_sram_kb");
  a.ofmap_sram_kb = r.num("ofmap_sram_kb");
  a.dataflow = parse_dataflow(r["dataflow"]);
  a.user_bandwidth = r["bw_mode"] == "USER";
  if (a.user_bandwidth) a.bandwidth = r.num("bandwidth_words_per_cycle");
  return a;
}

/// The layer as SCALE-Sim parsed it (GEMM rows are already in their conv form).
inline models::scalesim::ConvLayer row_layer(const CsvRow& r) {
  models::scalesim::ConvLayer l;
  l.name = r["layer_name"];
  l.ifmap_h = r.num("ifmap_h");
  l.ifmap_w = r.num("ifmap_w");
  l.filter_h = r.num("filter_h");
  l.filter_w = r.num("filter_w");
  l.channels = r.num("channels");
  l.num_filters = r.num("num_filters");
  l.stride_h = r.num("stride_h");
  l.stride_w = r.num("stride_w");
  return l;
}

inline std::string row_key(const CsvRow& r) {
  return r["config"] + "/" + r["dataflow"] + "/" + r["topology"] + "/" + r["layer_id"] + " " +
         r["layer_name"];
}

}  // namespace systole::test

#include "sim/stats/table.h"

#include <fmt/format.h>

#include <cstring>

#include "sim/core/error.h"
#include "sim/core/text.h"
#include "sim/stats/result.h"

namespace systole::stats {

Record& Record::i(const std::string& name, const std::string& unit, const std::string& desc,
                  std::int64_t v) {
  columns_.push_back({name, unit, desc, ColumnType::kInt});
  cells_.emplace_back(v);
  return *this;
}

Record& Record::f(const std::string& name, const std::string& unit, const std::string& desc,
                  double v) {
  columns_.push_back({name, unit, desc, ColumnType::kFloat});
  cells_.emplace_back(v);
  return *this;
}

double Record::number(const std::string& name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i].name != name) continue;
    if (const auto* d = std::get_if<double>(&cells_[i])) return *d;
    if (const auto* n = std::get_if<std::int64_t>(&cells_[i])) return static_cast<double>(*n);
  }
  return 0;
}

Record& Record::s(const std::string& name, const std::string& desc, const std::string& v) {
  columns_.push_back({name, "", desc, ColumnType::kString});
  cells_.emplace_back(v);
  return *this;
}

void Table::append(const Record& r) {
  if (columns_.empty() && rows_.empty()) columns_ = r.columns();
  SYSTOLE_ASSERT(r.columns().size() == columns_.size(), "record does not match table " + name_);
  for (size_t c = 0; c < columns_.size(); ++c)
    SYSTOLE_ASSERT(
        r.columns()[c].name == columns_[c].name && r.columns()[c].type == columns_[c].type,
        "record column " + r.columns()[c].name + " does not match table " + name_);
  rows_.push_back(r.cells());
}

void Table::add_row(std::vector<Cell> row) {
  SYSTOLE_ASSERT(row.size() == columns_.size(), "row width does not match table " + name_);
  rows_.push_back(std::move(row));
}

int Table::column(const std::string& name) const {
  for (size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c].name == name) return static_cast<int>(c);
  return -1;
}

std::int64_t Table::get_int(size_t row, const std::string& col) const {
  const int c = column(col);
  SYSTOLE_ASSERT(c >= 0, "no column " + col + " in " + name_);
  return std::get<std::int64_t>(rows_.at(row)[static_cast<size_t>(c)]);
}

double Table::get_number(size_t row, const std::string& col) const {
  const int c = column(col);
  SYSTOLE_ASSERT(c >= 0, "no column " + col + " in " + name_);
  const Cell& v = rows_.at(row)[static_cast<size_t>(c)];
  if (auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}

std::string Table::get_string(size_t row, const std::string& col) const {
  const int c = column(col);
  SYSTOLE_ASSERT(c >= 0, "no column " + col + " in " + name_);
  return std::get<std::string>(rows_.at(row)[static_cast<size_t>(c)]);
}

std::string format_cell(const Cell& c, int float_digits) {
  if (auto* i = std::get_if<std::int64_t>(&c))
    return *i < 0 ? "-" + with_commas(static_cast<unsigned long long>(-*i))
                  : with_commas(static_cast<unsigned long long>(*i));
  if (auto* d = std::get_if<double>(&c)) return fmt::format("{:.{}f}", *d, float_digits);
  return std::get<std::string>(c);
}

// ---- serialisation --------------------------------------------------------------------------

namespace {

class Writer {
 public:
  template <class T>
  void pod(const T& v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void str(const std::string& s) {
    pod<std::uint64_t>(s.size());
    out_.append(s);
  }
  void cell(const Cell& c) {
    pod<std::uint8_t>(static_cast<std::uint8_t>(c.index()));
    if (auto* i = std::get_if<std::int64_t>(&c))
      pod(*i);
    else if (auto* d = std::get_if<double>(&c))
      pod(*d);
    else
      str(std::get<std::string>(c));
  }
  void columns(const std::vector<Column>& cols) {
    pod<std::uint64_t>(cols.size());
    for (const auto& c : cols) {
      str(c.name);
      str(c.unit);
      str(c.description);
      pod<std::uint8_t>(static_cast<std::uint8_t>(c.type));
    }
  }
  void table(const Table& t) {
    str(t.name());
    str(t.description());
    columns(t.columns());
    pod<std::uint64_t>(t.rows().size());
    for (const auto& r : t.rows())
      for (const auto& c : r) cell(c);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <class T>
  T pod() {
    SYSTOLE_ASSERT(pos_ + sizeof(T) <= in_.size(), "truncated point result");
    T v;
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string str() {
    const auto n = pod<std::uint64_t>();
    SYSTOLE_ASSERT(pos_ + n <= in_.size(), "truncated point result");
    std::string s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  Cell cell() {
    switch (pod<std::uint8_t>()) {
      case 0:
        return pod<std::int64_t>();
      case 1:
        return pod<double>();
      default:
        return str();
    }
  }
  std::vector<Column> columns() {
    std::vector<Column> cols(pod<std::uint64_t>());
    for (auto& c : cols) {
      c.name = str();
      c.unit = str();
      c.description = str();
      c.type = static_cast<ColumnType>(pod<std::uint8_t>());
    }
    return cols;
  }
  Table table() {
    std::string name = str();
    std::string desc = str();
    Table t(name, desc);
    t.set_columns(columns());
    const auto rows = pod<std::uint64_t>();
    for (std::uint64_t r = 0; r < rows; ++r) {
      std::vector<Cell> row;
      for (size_t c = 0; c < t.columns().size(); ++c) row.push_back(cell());
      t.add_row(std::move(row));
    }
    return t;
  }

 private:
  const std::string& in_;
  size_t pos_ = 0;
};

}  // namespace

std::string serialize(const PointResult& r) {
  Writer w;
  w.pod<std::int32_t>(r.id);
  w.str(r.key);
  w.str(r.config_hash);
  w.str(r.code_version);
  w.str(r.status);
  w.str(r.error);
  w.str(r.label);
  w.pod<std::uint64_t>(r.assignments.size());
  for (const auto& [k, v] : r.assignments) {
    w.str(k);
    w.str(v);
  }
  w.pod(r.wall_seconds);
  w.str(r.config_yaml);
  Table metrics("metrics", "");
  if (!r.metrics.columns().empty()) metrics.append(r.metrics);
  w.table(metrics);
  w.table(r.layers);
  w.pod<std::uint64_t>(r.units.size());
  for (const auto& t : r.units) w.table(t);
  w.pod<std::uint8_t>(r.trace.enabled);
  w.pod<std::uint64_t>(r.trace.units.size());
  for (const auto& s : r.trace.units) w.str(s);
  w.pod<std::uint64_t>(r.trace.kinds.size());
  for (const auto& s : r.trace.kinds) w.str(s);
  w.pod<std::uint64_t>(r.trace.places.size());
  for (const auto& s : r.trace.places) w.str(s);
  w.pod(r.trace.clock);
  w.pod<std::uint64_t>(r.trace.events.size());
  for (const auto& e : r.trace.events) w.pod(e);
  return w.take();
}

PointResult deserialize(const std::string& bytes) {
  Reader rd(bytes);
  PointResult r;
  r.id = rd.pod<std::int32_t>();
  r.key = rd.str();
  r.config_hash = rd.str();
  r.code_version = rd.str();
  r.status = rd.str();
  r.error = rd.str();
  r.label = rd.str();
  const auto na = rd.pod<std::uint64_t>();
  for (std::uint64_t i = 0; i < na; ++i) {
    std::string k = rd.str();
    r.assignments.emplace_back(k, rd.str());
  }
  r.wall_seconds = rd.pod<double>();
  r.config_yaml = rd.str();
  Table metrics = rd.table();
  if (!metrics.empty()) {
    for (size_t c = 0; c < metrics.columns().size(); ++c) {
      const auto& col = metrics.columns()[c];
      const Cell& v = metrics.rows()[0][c];
      if (col.type == ColumnType::kInt)
        r.metrics.i(col.name, col.unit, col.description, std::get<std::int64_t>(v));
      else if (col.type == ColumnType::kFloat)
        r.metrics.f(col.name, col.unit, col.description, std::get<double>(v));
      else
        r.metrics.s(col.name, col.description, std::get<std::string>(v));
    }
  }
  r.layers = rd.table();
  const auto nu = rd.pod<std::uint64_t>();
  for (std::uint64_t i = 0; i < nu; ++i) r.units.push_back(rd.table());
  r.trace.enabled = rd.pod<std::uint8_t>() != 0;
  const auto ntu = rd.pod<std::uint64_t>();
  for (std::uint64_t i = 0; i < ntu; ++i) r.trace.units.push_back(rd.str());
  const auto ntk = rd.pod<std::uint64_t>();
  for (std::uint64_t i = 0; i < ntk; ++i) r.trace.kinds.push_back(rd.str());
  const auto ntp = rd.pod<std::uint64_t>();
  for (std::uint64_t i = 0; i < ntp; ++i) r.trace.places.push_back(rd.str());
  r.trace.clock = rd.pod<double>();
  const auto ne = rd.pod<std::uint64_t>();
  r.trace.events.resize(ne);
  for (auto& e : r.trace.events) e = rd.pod<TraceEvent>();
  return r;
}

}  // namespace systole::stats

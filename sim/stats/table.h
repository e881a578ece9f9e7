#pragma once
// Tabular statistics: named columns with units and descriptions, rows of cells. Layers, units
// and sweep rows are tables; the HDF5 writer turns each into a compound dataset.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace systole::stats {

enum class ColumnType { kInt, kFloat, kString };

struct Column {
  std::string name;
  std::string unit;  // "cycles", "B", "B/s", "s", "%", "" ...
  std::string description;
  ColumnType type = ColumnType::kInt;
};

using Cell = std::variant<std::int64_t, double, std::string>;

/// One row under construction: cells declared together with their column metadata.
class Record {
 public:
  Record& i(const std::string& name, const std::string& unit, const std::string& desc,
            std::int64_t v);
  Record& f(const std::string& name, const std::string& unit, const std::string& desc, double v);
  Record& s(const std::string& name, const std::string& desc, const std::string& v);
  /// The numeric cell `name` (int or float) as a double; 0 when absent or a string.
  double number(const std::string& name) const;
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<Cell>& cells() const { return cells_; }

 private:
  std::vector<Column> columns_;
  std::vector<Cell> cells_;
};

/// A table; the first appended record fixes the columns, later ones must match.
class Table {
 public:
  Table() = default;
  Table(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  bool empty() const { return rows_.empty(); }

  void append(const Record& r);
  void set_columns(std::vector<Column> cols) { columns_ = std::move(cols); }
  void add_row(std::vector<Cell> row);

  /// Column index by name, or -1.
  int column(const std::string& name) const;
  std::int64_t get_int(size_t row, const std::string& col) const;
  double get_number(size_t row, const std::string& col) const;  // int or float column
  std::string get_string(size_t row, const std::string& col) const;

 private:
  std::string name_;
  std::string description_;
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

/// "12,345" / "1.23" / text — a cell for people.
std::string format_cell(const Cell& c, int float_digits = 3);

}  // namespace systole::stats

#pragma once
// Reading simrun's text tables (stats::format_table: columns padded with spaces) in tests.
#include <string>
#include <vector>

namespace systole::test {

/// Splits a table line at runs of two or more spaces (the column gaps; a cell holds single
/// spaces, as "368 KiB").
inline std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ' && i + 1 < line.size() && line[i + 1] == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      while (i + 1 < line.size() && line[i + 1] == ' ') ++i;
    } else {
      cur += line[i];
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace systole::test

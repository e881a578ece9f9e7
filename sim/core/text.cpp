#include "sim/core/text.h"

#include <algorithm>
#include <cctype>

namespace systole {

int edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment distance: a swap of two neighbours ("bf61" for "bf16") costs 1.
  auto eq = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  };
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (eq(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && eq(a[i - 1], b[j - 2]) && eq(a[i - 2], b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> close_matches(const std::string& word,
                                       const std::vector<std::string>& candidates, int max) {
  std::vector<std::pair<int, std::string>> scored;
  const int limit = std::max(1, static_cast<int>(word.size() + 1) / 3);
  for (const auto& c : candidates) {
    int d = edit_distance(word, c);
    const bool prefix =
        c.size() > 2 && word.size() > 2 && (c.rfind(word, 0) == 0 || word.rfind(c, 0) == 0);
    if (d <= limit || prefix) scored.emplace_back(prefix ? std::min(d, limit) : d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (static_cast<int>(out.size()) >= max) break;
    out.push_back(s.second);
  }
  return out;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  auto m = close_matches(word, candidates);
  if (m.empty()) return "";
  std::string s = " (did you mean ";
  for (size_t i = 0; i < m.size(); ++i) {
    if (i) s += (i + 1 == m.size()) ? " or " : ", ";
    s += "'" + m[i] + "'";
  }
  return s + "?)";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) s += sep;
    s += items[i];
  }
  return s;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string with_commas(unsigned long long v) {
  std::string d = std::to_string(v), out;
  int n = 0;
  for (auto it = d.rbegin(); it != d.rend(); ++it) {
    if (n && n % 3 == 0) out.push_back(',');
    out.push_back(*it);
    ++n;
  }
  return std::string(out.rbegin(), out.rend());
}

}  // namespace systole

#pragma once
// Small text helpers shared by config, registry and reports.

#include <string>
#include <vector>

namespace systole {

/// Edit distance with adjacent transpositions (optimal string alignment), case-insensitive.
int edit_distance(const std::string& a, const std::string& b);

/// Up to `max` candidates close to `word`, closest first; empty when none is plausibly meant.
std::vector<std::string> close_matches(const std::string& word,
                                       const std::vector<std::string>& candidates, int max = 3);

/// " (did you mean 'a' or 'b'?)" or "" when nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// "a, b, c" — for listing allowed values.
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

/// Human figures: 1234567 -> "1,234,567".
std::string with_commas(unsigned long long v);

/// `s` with its line breaks (\n, \r) as spaces: a message printed as one line.
std::string one_line(std::string s);

}  // namespace systole

#pragma once
// Integer expressions in workload files: `batch * 49`, `(seq + 127) / 128 * 128`. Names refer
// to the workload's params; + - * / % and parentheses; / is integer division.

#include <cstdint>
#include <map>
#include <string>

#include "sim/core/error.h"

namespace systole::workloads {

using Params = std::map<std::string, std::int64_t>;

/// Evaluates `text`; throws ConfigError at `origin`/`path` on syntax errors, unknown names
/// (with a suggestion), division by zero and 64-bit overflow.
std::int64_t eval_int_expr(const std::string& text, const Params& params, const Origin& origin,
                           const std::string& path);

/// True when `text` is a plain integer literal (no evaluation needed).
bool is_int_literal(const std::string& text);

}  // namespace systole::workloads

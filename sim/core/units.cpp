#include "sim/core/units.h"

#include <fmt/format.h>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace systole {

Picoseconds period_of(Hz f) {
  return Picoseconds(static_cast<std::uint64_t>(std::llround(1e12 / f.value())));
}

double seconds_to_move(Bytes b, BytesPerSecond bw) {
  return static_cast<double>(b.value()) / bw.value();
}

const char* dimension_name(Dimension d) {
  switch (d) {
    case Dimension::kNone:
      return "number";
    case Dimension::kBytes:
      return "size";
    case Dimension::kFrequency:
      return "frequency";
    case Dimension::kBandwidth:
      return "bandwidth";
    case Dimension::kTime:
      return "time";
  }
  return "?";
}

const char* base_unit(Dimension d) {
  switch (d) {
    case Dimension::kNone:
      return "";
    case Dimension::kBytes:
      return "B";
    case Dimension::kFrequency:
      return "Hz";
    case Dimension::kBandwidth:
      return "B/s";
    case Dimension::kTime:
      return "s";
  }
  return "";
}

const char* unit_examples(Dimension d) {
  switch (d) {
    case Dimension::kNone:
      return "42, 0.5, 1e6";
    case Dimension::kBytes:
      return "16MiB, 512KB, 4096B";
    case Dimension::kFrequency:
      return "1050MHz, 1.4GHz";
    case Dimension::kBandwidth:
      return "1.2TB/s, 900GB/s, 64GiB/s";
    case Dimension::kTime:
      return "30ns, 1.5us, 250ps";
  }
  return "";
}

namespace {

struct UnitRow {
  const char* sym;
  double scale;
  Dimension dim;
};

// Longest symbols first so "MiB/s" wins over "B/s" and "ms" over "s".
constexpr UnitRow kUnits[] = {
    {"KiB/s", 1024.0, Dimension::kBandwidth},
    {"MiB/s", 1048576.0, Dimension::kBandwidth},
    {"GiB/s", 1073741824.0, Dimension::kBandwidth},
    {"TiB/s", 1099511627776.0, Dimension::kBandwidth},
    {"kB/s", 1e3, Dimension::kBandwidth},
    {"KB/s", 1e3, Dimension::kBandwidth},
    {"MB/s", 1e6, Dimension::kBandwidth},
    {"GB/s", 1e9, Dimension::kBandwidth},
    {"TB/s", 1e12, Dimension::kBandwidth},
    {"B/s", 1.0, Dimension::kBandwidth},
    {"KiB", 1024.0, Dimension::kBytes},
    {"MiB", 1048576.0, Dimension::kBytes},
    {"GiB", 1073741824.0, Dimension::kBytes},
    {"TiB", 1099511627776.0, Dimension::kBytes},
    {"kB", 1e3, Dimension::kBytes},
    {"KB", 1e3, Dimension::kBytes},
    {"MB", 1e6, Dimension::kBytes},
    {"GB", 1e9, Dimension::kBytes},
    {"TB", 1e12, Dimension::kBytes},
    {"B", 1.0, Dimension::kBytes},
    {"kHz", 1e3, Dimension::kFrequency},
    {"KHz", 1e3, Dimension::kFrequency},
    {"MHz", 1e6, Dimension::kFrequency},
    {"GHz", 1e9, Dimension::kFrequency},
    {"Hz", 1.0, Dimension::kFrequency},
    {"ps", 1e-12, Dimension::kTime},
    {"ns", 1e-9, Dimension::kTime},
    {"us", 1e-6, Dimension::kTime},
    {"ms", 1e-3, Dimension::kTime},
    {"s", 1.0, Dimension::kTime},
};

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace

bool parse_quantity(const std::string& raw, ParsedQuantity& out, std::string& why) {
  const std::string text = trim(raw);
  if (text.empty()) {
    why = "empty value";
    return false;
  }
  const char* begin = text.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  if (end == begin) {
    why = "'" + text + "' does not start with a number";
    return false;
  }
  if (!std::isfinite(number)) {
    why = "'" + text + "' is not a finite number";
    return false;
  }
  std::string suffix = trim(std::string(end));
  if (suffix.empty()) {
    out = {number, Dimension::kNone};
    return true;
  }
  for (const auto& u : kUnits) {
    if (suffix == u.sym) {
      out = {number * u.scale, u.dim};
      return true;
    }
  }
  why = "unknown unit '" + suffix + "' in '" + text + "'";
  return false;
}

std::string format_quantity(double v, Dimension d) {
  struct Step {
    double scale;
    const char* sym;
  };
  // Three significant digits; 1000-1023 of a binary unit print whole ("1022 KiB", not 1.02e+03).
  auto num = [](double x) {
    return std::fabs(x) >= 1000 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
  };
  auto pick = [&](std::initializer_list<Step> steps, const char* base) {
    for (const auto& s : steps)
      if (std::fabs(v) >= s.scale) return num(v / s.scale) + " " + s.sym;
    return num(v) + " " + base;
  };
  switch (d) {
    case Dimension::kBytes:
      return pick(
          {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}},
          "B");
    case Dimension::kBandwidth:
      return pick({{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}}, "B/s");
    case Dimension::kFrequency:
      return pick({{1e9, "GHz"}, {1e6, "MHz"}, {1e3, "kHz"}}, "Hz");
    case Dimension::kTime:
      if (v >= 1) return fmt::format("{:.3g} s", v);
      if (v >= 1e-3) return fmt::format("{:.3g} ms", v * 1e3);
      if (v >= 1e-6) return fmt::format("{:.3g} us", v * 1e6);
      if (v >= 1e-9) return fmt::format("{:.3g} ns", v * 1e9);
      return fmt::format("{:.3g} ps", v * 1e12);
    case Dimension::kNone:
      break;
  }
  return fmt::format("{:.6g}", v);
}

}  // namespace systole

// Unit strings ("16MiB", "1.2TB/s", "30ns"), their formatting, and the text helpers behind
// "did you mean" suggestions.
#include "sim/core/units.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/text.h"

using namespace systole;

namespace {

// Parses `text`, failing the test (with the reason) if it is rejected.
ParsedQuantity parsed(const std::string& text) {
  ParsedQuantity q;
  std::string why;
  INFO("parsing '" << text << "'");
  const bool ok = parse_quantity(text, q, why);
  INFO("why: " << why);
  REQUIRE(ok);
  REQUIRE(why.empty());
  return q;
}

// Parses `text`, which must be rejected; returns the reason.
std::string rejection(const std::string& text) {
  ParsedQuantity q;
  q.value = -1;
  std::string why;
  INFO("parsing '" << text << "'");
  REQUIRE_FALSE(parse_quantity(text, q, why));
  CHECK(q.value == -1);  // the output is left alone on failure
  return why;
}

}  // namespace

TEST_CASE("units: sizes use binary prefixes for KiB..TiB and decimal ones for KB..TB", "[units]") {
  auto q = parsed("16MiB");
  CHECK(q.dim == Dimension::kBytes);
  CHECK(q.value == 16777216.0);

  q = parsed("512KB");
  CHECK(q.dim == Dimension::kBytes);
  CHECK(q.value == 512000.0);

  CHECK(parsed("4096B").value == 4096.0);
  CHECK(parsed("32GiB").value == 34359738368.0);
  CHECK(parsed("2kB").value == 2000.0);
}

TEST_CASE("units: bandwidths", "[units]") {
  auto q = parsed("1.2TB/s");
  CHECK(q.dim == Dimension::kBandwidth);
  CHECK(q.value == Approx(1.2e12));

  q = parsed("64GiB/s");
  CHECK(q.dim == Dimension::kBandwidth);
  CHECK(q.value == 68719476736.0);

  CHECK(parsed("900GB/s").value == 9e11);
}

TEST_CASE("units: frequencies", "[units]") {
  auto q = parsed("1050MHz");
  CHECK(q.dim == Dimension::kFrequency);
  CHECK(q.value == 1.05e9);

  q = parsed("1.4GHz");
  CHECK(q.dim == Dimension::kFrequency);
  CHECK(q.value == Approx(1.4e9));
}

TEST_CASE("units: times are stored in seconds", "[units]") {
  auto q = parsed("30ns");
  CHECK(q.dim == Dimension::kTime);
  CHECK(q.value == Approx(30e-9));

  q = parsed("250ps");
  CHECK(q.dim == Dimension::kTime);
  CHECK(q.value == Approx(250e-12));

  q = parsed("1.5us");
  CHECK(q.dim == Dimension::kTime);
  CHECK(q.value == Approx(1.5e-6));

  CHECK(parsed("2ms").value == Approx(2e-3));
  CHECK(parsed("3s").value == 3.0);
}

TEST_CASE("units: bare numbers have no dimension", "[units]") {
  auto q = parsed("42");
  CHECK(q.dim == Dimension::kNone);
  CHECK(q.value == 42.0);

  q = parsed("1e3");
  CHECK(q.dim == Dimension::kNone);
  CHECK(q.value == 1000.0);

  CHECK(parsed("0.5").value == 0.5);
}

TEST_CASE("units: whitespace around and inside the quantity is tolerated", "[units]") {
  auto q = parsed("  16MiB\t");
  CHECK(q.dim == Dimension::kBytes);
  CHECK(q.value == 16777216.0);

  q = parsed("1050 MHz");
  CHECK(q.dim == Dimension::kFrequency);
  CHECK(q.value == 1.05e9);

  CHECK(parsed(" 42 ").value == 42.0);
}

TEST_CASE("units: malformed quantities are rejected with a reason", "[units]") {
  CHECK(rejection("") == "empty value");
  CHECK(rejection("   ") == "empty value");
  CHECK(rejection("MiB") == "'MiB' does not start with a number");
  CHECK(rejection("16Mb") == "unknown unit 'Mb' in '16Mb'");
  CHECK(rejection("12x") == "unknown unit 'x' in '12x'");
  CHECK(rejection("1.2 TB/sec") == "unknown unit 'TB/sec' in '1.2 TB/sec'");
  CHECK(rejection("nan") == "'nan' is not a finite number");
  CHECK(rejection("inf") == "'inf' is not a finite number");
  CHECK(rejection("-infGHz") == "'-infGHz' is not a finite number");
}

TEST_CASE("units: period_of rounds to whole picoseconds", "[units]") {
  CHECK(period_of(Hz(1.05e9)) == Picoseconds(952));
  CHECK(period_of(Hz(1e9)) == Picoseconds(1000));
  CHECK(period_of(Hz(1.4e9)) == Picoseconds(714));
}

TEST_CASE("units: seconds_to_move divides bytes by bandwidth", "[units]") {
  CHECK(seconds_to_move(Bytes(1200), BytesPerSecond(1.2e12)) == Approx(1e-9));
}

TEST_CASE("units: dimension names and base units and examples", "[units]") {
  CHECK(std::string(dimension_name(Dimension::kBandwidth)) == "bandwidth");
  CHECK(std::string(dimension_name(Dimension::kBytes)) == "size");
  CHECK(std::string(base_unit(Dimension::kBandwidth)) == "B/s");
  CHECK(std::string(base_unit(Dimension::kTime)) == "s");
  CHECK(std::string(base_unit(Dimension::kNone)).empty());
  CHECK(std::string(unit_examples(Dimension::kBytes)) == "16MiB, 512KB, 4096B");
}

TEST_CASE("units: format_quantity picks a readable prefix", "[units]") {
  CHECK(format_quantity(1.2e12, Dimension::kBandwidth) == "1.2 TB/s");
  CHECK(format_quantity(900e9, Dimension::kBandwidth) == "900 GB/s");
  CHECK(format_quantity(16777216, Dimension::kBytes) == "16 MiB");
  CHECK(format_quantity(1536, Dimension::kBytes) == "1.5 KiB");
  CHECK(format_quantity(512, Dimension::kBytes) == "512 B");
  CHECK(format_quantity(1.05e9, Dimension::kFrequency) == "1.05 GHz");
  CHECK(format_quantity(30e-9, Dimension::kTime) == "30 ns");
  CHECK(format_quantity(1.5e-6, Dimension::kTime) == "1.5 us");
  CHECK(format_quantity(250e-12, Dimension::kTime) == "250 ps");
  CHECK(format_quantity(2, Dimension::kTime) == "2 s");
  CHECK(format_quantity(42, Dimension::kNone) == "42");
}

TEST_CASE("text: with_commas groups thousands", "[text]") {
  CHECK(with_commas(0) == "0");
  CHECK(with_commas(999) == "999");
  CHECK(with_commas(1000) == "1,000");
  CHECK(with_commas(1234567) == "1,234,567");
  CHECK(with_commas(18446744073709551615ull) == "18,446,744,073,709,551,615");
}

TEST_CASE("text: edit_distance ignores case", "[text]") {
  CHECK(edit_distance("rows", "rows") == 0);
  CHECK(edit_distance("ROWS", "rows") == 0);
  CHECK(edit_distance("rowz", "rows") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("text: close_matches and did_you_mean suggest plausible keys", "[text]") {
  const std::vector<std::string> keys = {"rows", "cols"};
  CHECK(close_matches("rowz", keys) == std::vector<std::string>{"rows"});
  CHECK(did_you_mean("rowz", keys) == " (did you mean 'rows'?)");

  // Nothing close: no suggestion at all.
  CHECK(close_matches("bandwidth", keys).empty());
  CHECK(did_you_mean("bandwidth", keys).empty());

  // Several: closest first, joined with "or".
  CHECK(did_you_mean("colz", {"cols", "cold", "rows"}) == " (did you mean 'cols' or 'cold'?)");
  CHECK(did_you_mean("ab", {"ac", "ad", "ae", "af"}) == " (did you mean 'ac', 'ad' or 'ae'?)");

  // A prefix counts as close even when the edit distance is large.
  CHECK(close_matches("capacity_bytes", {"capacity", "latency"}) ==
        std::vector<std::string>{"capacity"});
}

TEST_CASE("text: join", "[text]") {
  CHECK(join({}).empty());
  CHECK(join({"a"}) == "a");
  CHECK(join({"a", "b", "c"}) == "a, b, c");
  CHECK(join({"ws", "os"}, " | ") == "ws | os");
}

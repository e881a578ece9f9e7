#pragma once
// Strong unit types. Values are stored in base units (cycles, bytes, hertz, picoseconds,
// bytes per second); converting between them is explicit.

#include <cstdint>
#include <string>

namespace systole {

/// A quantity of one dimension; arithmetic only with the same dimension or plain scalars.
template <class Tag, class Rep>
class Quantity {
 public:
  using rep = Rep;
  constexpr Quantity() = default;
  constexpr explicit Quantity(Rep v) : v_(v) {}
  constexpr Rep value() const { return v_; }

  constexpr Quantity& operator+=(Quantity o) {
    v_ += o.v_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    v_ -= o.v_;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.v_ + b.v_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.v_ - b.v_); }
  friend constexpr Quantity operator*(Quantity a, Rep k) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator*(Rep k, Quantity a) { return Quantity(a.v_ * k); }
  friend constexpr bool operator==(Quantity a, Quantity b) { return a.v_ == b.v_; }
  friend constexpr bool operator!=(Quantity a, Quantity b) { return a.v_ != b.v_; }
  friend constexpr bool operator<(Quantity a, Quantity b) { return a.v_ < b.v_; }
  friend constexpr bool operator<=(Quantity a, Quantity b) { return a.v_ <= b.v_; }
  friend constexpr bool operator>(Quantity a, Quantity b) { return a.v_ > b.v_; }
  friend constexpr bool operator>=(Quantity a, Quantity b) { return a.v_ >= b.v_; }

 private:
  Rep v_{};
};

struct CyclesTag {};
struct BytesTag {};
struct HzTag {};
struct PicosTag {};
struct BandwidthTag {};

using Cycles = Quantity<CyclesTag, std::uint64_t>;      ///< clock cycles of one domain
using Bytes = Quantity<BytesTag, std::uint64_t>;        ///< bytes
using Hz = Quantity<HzTag, double>;                     ///< frequency
using Picoseconds = Quantity<PicosTag, std::uint64_t>;  ///< simulated time
using BytesPerSecond = Quantity<BandwidthTag, double>;  ///< bandwidth

/// Period of one cycle at `f`, rounded to whole picoseconds (1050 MHz -> 952 ps).
Picoseconds period_of(Hz f);
/// Time to move `b` at `bw`, in seconds.
double seconds_to_move(Bytes b, BytesPerSecond bw);

/// The dimension a unit string denotes.
enum class Dimension { kNone, kBytes, kFrequency, kBandwidth, kTime };
const char* dimension_name(Dimension d);
/// Base unit symbol stored in HDF5 `unit` attributes: "B", "Hz", "B/s", "s", "".
const char* base_unit(Dimension d);

/// A parsed "<number><unit>" string, value in base units.
struct ParsedQuantity {
  double value = 0;
  Dimension dim = Dimension::kNone;
};

/// Parses "16MiB", "1.2TB/s", "1050MHz", "30ns", "1e3", "42". Returns false with `why` set on a
/// malformed string. SI prefixes are decimal (k=1e3); binary prefixes (KiB, MiB, GiB, TiB) only
/// apply to bytes. A bare number has Dimension::kNone.
bool parse_quantity(const std::string& text, ParsedQuantity& out, std::string& why);

/// Examples of valid spellings for a dimension, for error messages: "16MiB, 512KB, 4096B".
const char* unit_examples(Dimension d);

/// Formats a value for people (3 significant digits): 1.2e12 B/s -> "1.2 TB/s", 16777216 B -> "16
/// MiB".
std::string format_quantity(double value, Dimension d);

}  // namespace systole

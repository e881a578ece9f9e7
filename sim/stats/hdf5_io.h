#pragma once
// HDF5 plumbing shared by the results writer and readers (sim/stats only): RAII ids, attribute
// and string helpers, tables as compound datasets, the trace. Failures throw H5Failure with
// HDF5's own message; the public results functions turn it into SimError or ConfigError.

#include <hdf5.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/stats/result.h"

namespace systole::stats::h5 {

// An HDF5 (or layout) failure: "<operation>: <HDF5's message>". The public functions turn it
// into SimError (writing) or ConfigError (reading) naming the file.
struct H5Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Turns off HDF5's own error printing (errors are reported through exceptions).
void quiet_hdf5();
/// While alive, HDF5's internal free lists may hold up to 64 MiB each instead of 1-16 MiB: with
/// the defaults (HDF5 1.10 src/H5FL.c, H5FL_*_MEM_LIM) a merge of thousands of points overflows
/// them again and again and each overflow frees every list, which cost a large share of H5Ocopy
/// (simrun merge). Restores the defaults and releases the lists when destroyed.
class FreeListLimits {
 public:
  FreeListLimits();
  ~FreeListLimits();
  FreeListLimits(const FreeListLimits&) = delete;
  FreeListLimits& operator=(const FreeListLimits&) = delete;
};

/// The innermost message on HDF5's error stack (clears the stack).
std::string h5_message();
[[noreturn]] void fail(const std::string& what);

/// What a reader reads: the values, or (kStructure) only checks what holds them (classes,
/// shapes, sizes, a table's columns) and returns empty strings and tables without rows. Any
/// bytes are a valid number or fixed-length string; a variable-length string's bytes live in a
/// global heap that H5Ocopy reads as a reader would, failing where the reader fails. So an
/// object that passes kStructure reads once H5Ocopy has copied it (simrun merge).
enum class Depth { kValues, kStructure };

class Hid {
 public:
  Hid() = default;
  explicit Hid(hid_t id) : id_(id) {}
  Hid(Hid&& o) noexcept : id_(std::exchange(o.id_, -1)) {}
  Hid& operator=(Hid&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  ~Hid() { reset(); }

  operator hid_t() const { return id_; }  // NOLINT: used directly in HDF5 calls
  bool valid() const { return id_ >= 0; }
  hid_t release() { return std::exchange(id_, -1); }
  void reset() {
    if (id_ >= 0) H5Idec_ref(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
};

Hid own(hid_t id, const std::string& what);
void check(herr_t rc, const std::string& what);
bool has(hid_t loc, const std::string& name);

Hid str_type(size_t size, H5T_str_t pad = H5T_STR_NULLTERM);
Hid space_1d(hsize_t n, bool extendible = false);
Hid scalar_space();
Hid create_group(hid_t loc, const std::string& name, bool keep_order = false);
Hid open_group(hid_t loc, const std::string& name);
Hid open_dataset(hid_t loc, const std::string& name);

void attr_str(hid_t obj, const char* name, const std::string& value);
void attr_strs(hid_t obj, const char* name, const std::vector<std::string>& values);
void attr_f64(hid_t obj, const char* name, double v);
void attr_u64(hid_t obj, const char* name, std::uint64_t v);
Hid open_attr(hid_t obj, const char* name);
std::vector<std::string> read_attr_strs(hid_t obj, const char* name, Depth depth = Depth::kValues);
std::string read_attr_str(hid_t obj, const char* name, const std::string& fallback = "",
                          Depth depth = Depth::kValues);
/// Throws unless attribute `attr` holds exactly one value (H5Aread writes all of them).
void check_scalar_attr(hid_t attr, const char* name);
/// A numeric attribute holding one value, converted to `mem_type`; T{} when absent.
template <class T>
T read_attr_num(hid_t obj, const char* name, hid_t mem_type) {
  T v{};
  Hid a = open_attr(obj, name);
  if (!a.valid()) return v;
  check_scalar_attr(a, name);
  check(H5Aread(a, mem_type, &v), std::string("reading attribute ") + name);
  return v;
}

/// Scalar (or 1-D) variable-length string dataset with unit "" and a description.
void write_text(hid_t loc, const std::string& name, const std::vector<std::string>& lines,
                bool scalar, const std::string& desc);
std::vector<std::string> read_text(hid_t loc, const std::string& name,
                                   Depth depth = Depth::kValues);
/// Link names in creation order where the group tracks it, else in name order.
std::vector<std::string> list_links(hid_t group);

/// A table as a compound dataset with unit / description / field_descriptions attributes.
void write_table(hid_t loc, const std::string& name, const Table& t);
Table read_table(hid_t loc, const std::string& name, Depth depth = Depth::kValues);
/// The single row of a table as a Record (point metrics).
Record to_record(const Table& t);

void write_trace(hid_t point, const Trace& tr);
Trace read_trace(hid_t point);

}  // namespace systole::stats::h5

#include "sim/stats/hdf5_io.h"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "sim/core/error.h"
#include "sim/core/units.h"

namespace systole::stats::h5 {

void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

namespace {
constexpr int kMiB = 1024 * 1024;
}

FreeListLimits::FreeListLimits() {
  H5set_free_list_limits(64 * kMiB, 64 * kMiB, 64 * kMiB, 64 * kMiB, 64 * kMiB, 64 * kMiB);
}

FreeListLimits::~FreeListLimits() {
  // HDF5 1.10's defaults (src/H5FL.c): regular 1 MiB / 64 KiB per list, array 4 MiB / 256 KiB,
  // block (and factory) 16 MiB / 1 MiB.
  H5set_free_list_limits(kMiB, 64 * 1024, 4 * kMiB, 256 * 1024, 16 * kMiB, kMiB);
  H5garbage_collect();
}

// The innermost message on HDF5's error stack. For system errors that is "unable to open file:
// name = ..., errno = 2, error message = 'No such file or directory', ..."; keep the strerror.
std::string h5_message() {
  std::string msg;
  auto walk = [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
    auto* out = static_cast<std::string*>(data);
    if (out->empty() && e->desc != nullptr && *e->desc != '\0') *out = e->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk, &msg);
  H5Eclear2(H5E_DEFAULT);
  const std::string key = "error message = '";
  const size_t b = msg.find(key);
  const size_t e = b == std::string::npos ? b : msg.find('\'', b + key.size());
  if (e != std::string::npos) return msg.substr(b + key.size(), e - b - key.size());
  return msg.empty() ? "HDF5 error" : msg;
}

[[noreturn]] void fail(const std::string& what) { throw H5Failure(what + ": " + h5_message()); }

Hid own(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return Hid(id);
}

void check(herr_t rc, const std::string& what) {
  if (rc < 0) fail(what);
}

// A look-up that fails (a damaged group: a checksum, a heap) is an error, not an absent entry:
// readers fall back to defaults for absent ones, and would read damage as other values.
bool has(hid_t loc, const std::string& name) {
  const htri_t e = H5Lexists(loc, name.c_str(), H5P_DEFAULT);
  if (e < 0) fail("looking up " + name);
  return e > 0;
}

// ---- types, spaces, attributes ----------------------------------------------------------------

/// size 0 = variable length. Fixed strings are read back NULLPAD so that a full-width value
/// written by another tool is not cut short by one character.
Hid str_type(size_t size, H5T_str_t pad) {
  Hid t = own(H5Tcopy(H5T_C_S1), "string type");
  check(H5Tset_size(t, size == 0 ? H5T_VARIABLE : size), "string type");
  check(H5Tset_strpad(t, pad), "string type");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "string type");
  return t;
}

Hid space_1d(hsize_t n, bool extendible) {
  const hsize_t max = extendible ? H5S_UNLIMITED : n;
  return own(H5Screate_simple(1, &n, &max), "dataspace");
}

Hid scalar_space() { return own(H5Screate(H5S_SCALAR), "dataspace"); }

Hid create_group(hid_t loc, const std::string& name, bool keep_order) {
  Hid gcpl = own(H5Pcreate(H5P_GROUP_CREATE), "group property list");
  if (keep_order)
    check(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
          "group property list");
  return own(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT),
             "creating group " + name);
}

Hid open_group(hid_t loc, const std::string& name) {
  return own(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), "opening group " + name);
}

Hid open_dataset(hid_t loc, const std::string& name) {
  return own(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "opening dataset " + name);
}

namespace {

/// A transfer property list whose type-conversion buffer holds `bytes` (4 KiB to 1 MiB). HDF5's
/// default callocs 1 MiB conversion and background buffers on every converting H5Dwrite/H5Dread:
/// for the many small datasets of a results file (each point's config text and tables) that
/// zero-filling was a third of a small sweep's page faults. The buffer size changes no byte
/// written.
Hid small_xfer(size_t bytes, const std::string& what) {
  Hid dxpl = own(H5Pcreate(H5P_DATASET_XFER), what);
  check(H5Pset_buffer(dxpl, std::clamp<size_t>(bytes, 4096, size_t{1} << 20), nullptr, nullptr),
        what);
  return dxpl;
}

/// Compact layout (the data inside the dataset's object header, HDF5 1.8+ reads it like any
/// other) for datasets of at most this many bytes: a results file's tables and texts are mostly
/// a few hundred bytes, and a contiguous dataset costs a separate block in the file, written
/// and (by H5Ocopy in simrun merge) copied on its own. Compact data must fit in one header
/// message (< 64 KiB); a quarter of that keeps headers small in the metadata cache. Measured
/// (2026-11-26, tools/bench/merge_bench.sh's points, runs in turn): H5Ocopy of 1,000 points
/// 0.89-0.96 CPU-s contiguous, 0.71-0.87 compact; simrun merge of 10,000 9.4 s, 8.8 s (medians).
constexpr size_t kCompactBytes = 16 * 1024;

/// Creation properties of a dataset of `count` elements of `file_type`: compact (checksummed
/// with its object header) up to kCompactBytes, else one chunk of the whole dataset with a
/// Fletcher-32 checksum, so that no value is read from unchecked bytes. A scalar (a text
/// over 16 KiB: a large experiment's YAML) cannot be chunked and stays contiguous, unchecked.
Hid small_layout(hid_t file_type, size_t count, bool scalar, const std::string& what) {
  Hid dcpl = own(H5Pcreate(H5P_DATASET_CREATE), what);
  if (count == 0) return dcpl;
  if (H5Tget_size(file_type) * count <= kCompactBytes) {
    check(H5Pset_layout(dcpl, H5D_COMPACT), what);
  } else if (!scalar) {
    const hsize_t chunk = count;
    check(H5Pset_chunk(dcpl, 1, &chunk), what);
    check(H5Pset_fletcher32(dcpl), what);
  }
  return dcpl;
}

}  // namespace

void write_attr(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, hid_t space,
                const void* data) {
  const std::string what = std::string("writing attribute ") + name;
  Hid a = own(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), what);
  check(H5Awrite(a, mem_type, data), what);
}

namespace {

/// Strings are written fixed-length (NULLPAD, as wide as the longest, at least one byte): a
/// variable-length string lives in a global heap, whose damaged objects libhdf5 1.10 reads
/// without a check (158 of the 179 crashing inputs of a 30-minute run of the `results` fuzz
/// target on files of variable-length strings crashed in H5HG_read). An attribute is kept in its
/// object's header, whose messages hold 64 KiB: one that would be wider than this stays
/// variable-length.
constexpr size_t kFixedAttrBytes = 16 * 1024;

size_t string_width(const std::vector<std::string>& values) {
  size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size());
  return width;
}

/// `values` side by side, `width` bytes each, padded with NULs.
std::vector<char> packed(const std::vector<std::string>& values, size_t width) {
  std::vector<char> buf(width * values.size(), '\0');
  for (size_t i = 0; i < values.size(); ++i)
    std::copy(values[i].begin(), values[i].end(), buf.begin() + static_cast<long>(i * width));
  return buf;
}

void write_str_attr(hid_t obj, const char* name, const std::vector<std::string>& values,
                    Hid space) {
  const size_t width = string_width(values);
  if (width * values.size() <= kFixedAttrBytes) {
    Hid t = str_type(width, H5T_STR_NULLPAD);
    const std::vector<char> buf = packed(values, width);
    write_attr(obj, name, t, t, space, buf.data());
    return;
  }
  Hid t = str_type(0);
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  write_attr(obj, name, t, t, space, ptrs.data());
}

}  // namespace

void attr_str(hid_t obj, const char* name, const std::string& value) {
  write_str_attr(obj, name, {value}, scalar_space());
}

void attr_strs(hid_t obj, const char* name, const std::vector<std::string>& values) {
  write_str_attr(obj, name, values, space_1d(values.size()));
}

void attr_f64(hid_t obj, const char* name, double v) {
  write_attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, scalar_space(), &v);
}

void attr_u64(hid_t obj, const char* name, std::uint64_t v) {
  write_attr(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, scalar_space(), &v);
}

namespace {

/// A buffer for `n` elements of `element` bytes read from dataset (or attribute) `ds`, checked
/// first against the file: deflate expands at most ~1032x, so no dataset of a file holds more
/// than 1100x the file's bytes; a corrupt dataspace claiming more (found by fuzzing: 2^36 to
/// 2^62 bytes) is an error, not an allocation.
void check_size(hid_t ds, hssize_t n, size_t element, const std::string& what) {
  Hid file = own(H5Iget_file_id(ds), what);
  hsize_t bytes = 0;
  check(H5Fget_filesize(file, &bytes), what);
  const long double want = static_cast<long double>(n) * static_cast<long double>(element);
  if (want > 1100.0L * static_cast<long double>(bytes) + 65536.0L)
    throw H5Failure(fmt::format("{}: its size is corrupt ({} elements of {} B in a {} B file)",
                                what, n, element, bytes));
}

/// A string type's character set and padding are among those HDF5 defines: a damaged one (a
/// padding of 9) read here, but libhdf5 found no conversion for its copy (simrun merge wrote a
/// file its readers refused; tools/reliability/merge_corrupt.sh, seed 12).
void check_string_type(hid_t type, const std::string& what) {
  const H5T_cset_t cset = H5Tget_cset(type);
  const H5T_str_t pad = H5Tget_strpad(type);
  if ((cset != H5T_CSET_ASCII && cset != H5T_CSET_UTF8) ||
      (pad != H5T_STR_NULLTERM && pad != H5T_STR_NULLPAD && pad != H5T_STR_SPACEPAD))
    throw H5Failure(fmt::format("{}: its string type is corrupt (character set {}, padding {})",
                                what, static_cast<int>(cset), static_cast<int>(pad)));
}

/// A name read from a type (a table's column, an enum member) or a table's unit or field
/// description (`kind`) is UTF-8 text without control characters: damaged ones (a column name
/// of bytes 0xff; units read from beyond a damaged attribute's data) read back otherwise after
/// simrun merge copied them (merge_corrupt.sh, seeds 11 and 12).
void check_text(const std::string& name, const char* kind, const std::string& what) {
  size_t i = 0;
  while (i < name.size()) {
    const auto c = static_cast<unsigned char>(name[i]);
    const size_t len = c < 0x80           ? 1
                       : (c >> 5) == 0x6  ? 2
                       : (c >> 4) == 0xe  ? 3
                       : (c >> 3) == 0x1e ? 4
                                          : 0;
    bool ok = len != 0 && i + len <= name.size() && (len > 1 || (c >= 0x20 && c != 0x7f));
    for (size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(name[i + k]) & 0xc0) == 0x80;
    if (!ok)
      throw H5Failure(
          fmt::format("{}: a {} is not text (byte {} of {})", what, kind, i, name.size()));
    i += len;
  }
}

}  // namespace

/// All strings of a string attribute or dataset, fixed or variable length, any shape.
std::vector<std::string> read_strings(hid_t id, bool attr, const std::string& what,
                                      Depth depth = Depth::kValues) {
  Hid ftype = own(attr ? H5Aget_type(id) : H5Dget_type(id), what);
  if (H5Tget_class(ftype) != H5T_STRING) throw H5Failure(what + ": not a string");
  check_string_type(ftype, what);
  Hid space = own(attr ? H5Aget_space(id) : H5Dget_space(id), what);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n < 0) fail(what);
  std::vector<std::string> out;
  if (n == 0) return out;
  auto read = [&](hid_t mem, void* buf) {
    check(attr ? H5Aread(id, mem, buf) : H5Dread(id, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf),
          what);
  };
  const bool variable = H5Tis_variable_str(ftype) > 0;
  // A variable-length string is a pointer in memory (and 16 B in the file).
  check_size(id, n, variable ? sizeof(char*) : H5Tget_size(ftype), what);
  const auto count = static_cast<size_t>(n);
  if (depth == Depth::kStructure) return std::vector<std::string>(count);
  // The memory type takes the file's character set: libhdf5 converts between none.
  const H5T_cset_t cset = H5Tget_cset(ftype);
  if (cset < 0) fail(what);
  auto mem_type = [&](size_t size, H5T_str_t pad) {
    Hid t = str_type(size, pad);
    check(H5Tset_cset(t, cset), what);
    return t;
  };
  if (variable) {
    std::vector<char*> ptrs(count, nullptr);
    read(mem_type(0, H5T_STR_NULLTERM), ptrs.data());
    for (char* p : ptrs) {
      out.emplace_back(p != nullptr ? p : "");
      H5free_memory(p);
    }
  } else {
    const size_t size = H5Tget_size(ftype);
    std::vector<char> buf(size * count);
    read(mem_type(size, H5T_STR_NULLPAD), buf.data());
    for (size_t i = 0; i < count; ++i) {
      const char* p = buf.data() + i * size;
      out.emplace_back(p, strnlen(p, size));
    }
  }
  return out;
}

void check_scalar_attr(hid_t attr, const char* name) {
  const std::string what = std::string("reading attribute ") + name;
  Hid space = own(H5Aget_space(attr), what);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n < 0) fail(what);
  if (n != 1) throw H5Failure(fmt::format("{}: {} values where one belongs", what, n));
}

Hid open_attr(hid_t obj, const char* name) {
  const htri_t e = H5Aexists(obj, name);
  if (e < 0) fail(std::string("looking up attribute ") + name);
  if (e == 0) return Hid();
  return own(H5Aopen(obj, name, H5P_DEFAULT), std::string("opening attribute ") + name);
}

std::vector<std::string> read_attr_strs(hid_t obj, const char* name, Depth depth) {
  Hid a = open_attr(obj, name);
  if (!a.valid()) return {};
  return read_strings(a, true, std::string("reading attribute ") + name, depth);
}

std::string read_attr_str(hid_t obj, const char* name, const std::string& fallback, Depth depth) {
  const auto v = read_attr_strs(obj, name, depth);
  return v.empty() ? fallback : v.front();
}

/// Scalar (or 1-D) fixed-length string dataset (as wide as its longest line) with unit "" and a
/// description.
void write_text(hid_t loc, const std::string& name, const std::vector<std::string>& lines,
                bool scalar, const std::string& desc) {
  const size_t width = string_width(lines);
  Hid t = str_type(width, H5T_STR_NULLPAD);
  Hid space = scalar ? scalar_space() : space_1d(lines.size());
  Hid ds = own(
      H5Dcreate2(loc, name.c_str(), t, space, H5P_DEFAULT,
                 small_layout(t, lines.size(), scalar, "creating dataset " + name), H5P_DEFAULT),
      "creating dataset " + name);
  if (!lines.empty()) {
    const std::vector<char> buf = packed(lines, width);
    // No conversion (the memory type is the file's): the transfer buffer is not used.
    check(
        H5Dwrite(ds, t, H5S_ALL, H5S_ALL, small_xfer(4096, "writing dataset " + name), buf.data()),
        "writing dataset " + name);
  }
  attr_str(ds, "unit", "");
  attr_str(ds, "description", desc);
}

std::vector<std::string> read_text(hid_t loc, const std::string& name, Depth depth) {
  Hid ds = open_dataset(loc, name);
  return read_strings(ds, false, "reading dataset " + name, depth);
}

/// Link names in creation order where the group tracks it, else in name order.
std::vector<std::string> list_links(hid_t group) {
  H5G_info_t info;
  check(H5Gget_info(group, &info), "listing group");
  Hid gcpl = own(H5Gget_create_plist(group), "listing group");
  unsigned flags = 0;
  check(H5Pget_link_creation_order(gcpl, &flags), "listing group");
  const H5_index_t index = (flags & H5P_CRT_ORDER_INDEXED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t len =
        H5Lget_name_by_idx(group, ".", index, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (len < 0) fail("listing group");
    std::vector<char> buf(static_cast<size_t>(len) + 1);
    if (H5Lget_name_by_idx(group, ".", index, H5_ITER_INC, i, buf.data(), buf.size(), H5P_DEFAULT) <
        0)
      fail("listing group");
    names.emplace_back(buf.data(), static_cast<size_t>(len));
  }
  return names;
}

// ---- tables ----------------------------------------------------------------------------------

void check_name(const std::string& name, const char* what) {
  if (name.empty() || name == "." || name.find('/') != std::string::npos)
    throw H5Failure(fmt::format("{} name '{}' cannot be an HDF5 dataset name", what, name));
}

std::vector<std::string> column_field(const std::vector<Column>& cols, std::string Column::*f) {
  std::vector<std::string> out;
  for (const auto& c : cols) out.push_back(c.*f);
  return out;
}

/// Packed compound type of a table: 8 bytes per number, `width` bytes per string column.
struct Layout {
  std::vector<size_t> offset;
  size_t size = 0;

  Layout(const std::vector<Column>& cols, const std::vector<size_t>& width) {
    for (size_t c = 0; c < cols.size(); ++c) {
      offset.push_back(size);
      size += width[c];
    }
  }
  Hid type(const std::vector<Column>& cols, const std::vector<size_t>& width, bool file,
           H5T_str_t pad) const {
    Hid t = own(H5Tcreate(H5T_COMPOUND, std::max<size_t>(size, 1)), "table type");
    for (size_t c = 0; c < cols.size(); ++c) {
      Hid str = cols[c].type == ColumnType::kString ? str_type(width[c], pad) : Hid();
      hid_t m = str;
      if (cols[c].type == ColumnType::kInt) m = file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
      if (cols[c].type == ColumnType::kFloat) m = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
      check(H5Tinsert(t, cols[c].name.c_str(), offset[c], m), "table column " + cols[c].name);
    }
    return t;
  }
};

/// Numeric cells are converted between int and float; a string where a number belongs (or the
/// reverse) is the caller's bug and is reported.
void write_table(hid_t loc, const std::string& name, const Table& t) {
  const auto& cols = t.columns();
  if (cols.empty()) return;
  check_name(name, "table");
  const std::string what = "writing table " + name;
  const auto& rows = t.rows();
  std::vector<size_t> width(cols.size(), 8);
  for (size_t c = 0; c < cols.size(); ++c) {
    if (cols[c].type != ColumnType::kString) continue;
    width[c] = 1;
    for (const auto& r : rows)
      if (auto* s = std::get_if<std::string>(&r.at(c)))
        width[c] = std::max(width[c], s->size() + 1);
  }
  const Layout layout(cols, width);

  std::vector<unsigned char> buf(layout.size * rows.size(), 0);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < cols.size(); ++c) {
      unsigned char* dst = buf.data() + r * layout.size + layout.offset[c];
      const auto* i = std::get_if<std::int64_t>(&rows[r][c]);
      const auto* d = std::get_if<double>(&rows[r][c]);
      const auto* s = std::get_if<std::string>(&rows[r][c]);
      if ((cols[c].type == ColumnType::kString) != (s != nullptr))
        throw H5Failure(fmt::format("{}: row {} column '{}' holds a value of the wrong type", what,
                                    r, cols[c].name));
      if (cols[c].type == ColumnType::kInt) {
        const std::int64_t v = i != nullptr ? *i : static_cast<std::int64_t>(*d);
        std::memcpy(dst, &v, sizeof v);
      } else if (cols[c].type == ColumnType::kFloat) {
        const double v = d != nullptr ? *d : static_cast<double>(*i);
        std::memcpy(dst, &v, sizeof v);
      } else {
        std::memcpy(dst, s->data(), s->size());
      }
    }
  }

  Hid ftype = layout.type(cols, width, true, H5T_STR_NULLTERM);
  Hid mtype = layout.type(cols, width, false, H5T_STR_NULLTERM);
  Hid ds = own(H5Dcreate2(loc, name.c_str(), ftype, space_1d(rows.size()), H5P_DEFAULT,
                          small_layout(ftype, rows.size(), false, what), H5P_DEFAULT),
               what);
  if (!rows.empty())
    check(H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL,
                   small_xfer(std::max(layout.size, H5Tget_size(ftype)) * rows.size(), what),
                   buf.data()),
          what);
  attr_str(ds, "description", t.description());
  attr_strs(ds, "unit", column_field(cols, &Column::unit));
  attr_strs(ds, "field_descriptions", column_field(cols, &Column::description));
}

namespace {

/// A member of a file's compound type: it must lie inside the record. HDF5 1.10 decodes a
/// corrupted member offset (found by tools/reliability/merge_corrupt.sh: one byte, offset 2 ->
/// 65282) without complaint and then converts from outside the record, reading and copying
/// memory that is not the record's.
void check_member_bounds(hid_t compound, unsigned m, hid_t member, const std::string& what,
                         const std::string& column) {
  const size_t record = H5Tget_size(compound), size = H5Tget_size(member);
  const size_t offset = H5Tget_member_offset(compound, m);
  if (size == 0 || offset > record || size > record - offset)
    throw H5Failure(fmt::format("{}: column '{}' ({} B at byte {}) lies outside its {} B record",
                                what, column, size, offset, record));
}

}  // namespace

namespace {

/// A table's columns (names and types, no units) and the width of each in bytes.
struct TableColumns {
  std::vector<Column> cols;
  std::vector<size_t> width;
};

/// A chunked dataset of `n` elements: its chunk index (a version-1 B-tree, which has no checksum
/// in HDF5 1.8's format) must list exactly the chunks covering [0, n), in order, each stored
/// with every filter applied. A damaged index otherwise reads a chunk as missing (fill values),
/// at another position, or with its filters skipped (compressed bytes read as records).
void check_chunks(hid_t ds, hsize_t n, const std::string& what) {
  Hid dcpl = own(H5Dget_create_plist(ds), what);
  if (H5Pget_layout(dcpl) != H5D_CHUNKED) return;
  hsize_t chunk = 0;
  if (H5Pget_chunk(dcpl, 1, &chunk) != 1 || chunk == 0)
    throw H5Failure(what + ": a chunked dataset of other than one dimension");
  Hid space = own(H5Dget_space(ds), what);
  hsize_t count = 0;
  check(H5Dget_num_chunks(ds, space, &count), what);
  const hsize_t want = (n + chunk - 1) / chunk;
  if (count != want)
    throw H5Failure(
        fmt::format("{}: {} chunks stored for {} records in chunks of {}", what, count, n, chunk));
  for (hsize_t i = 0; i < count; ++i) {
    hsize_t offset = 0, size = 0;
    haddr_t addr = HADDR_UNDEF;
    unsigned mask = 0;
    check(H5Dget_chunk_info(ds, space, i, &offset, &mask, &addr, &size), what);
    if (offset != i * chunk || mask != 0 || size == 0 || addr == HADDR_UNDEF)
      throw H5Failure(fmt::format("{}: chunk {} of {} is damaged (offset {}, filter mask {})", what,
                                  i, count, offset, mask));
  }
}

/// A table's stored bytes are none (never written) or exactly its records: HDF5 1.10 reads a
/// compact dataset whose record size was corrupted past the end of its stored bytes (found by
/// merge_corrupt.sh), and H5Ocopy copies the stored bytes alone. A table is compact,
/// contiguous (files before 2026-11-27) or one chunk of all its rows under Fletcher-32 alone
/// (h5::small_layout), whose 4-byte checksum is stored after the records.
void check_storage(hid_t ds, hssize_t rows, size_t record, const std::string& what) {
  const hsize_t stored = H5Dget_storage_size(ds);
  auto want = static_cast<hsize_t>(rows) * record;
  Hid dcpl = own(H5Dget_create_plist(ds), what);
  if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
    hsize_t chunk = 0;
    unsigned flags = 0;
    size_t nvalues = 0;
    const bool one_chunk =
        H5Pget_chunk(dcpl, 1, &chunk) == 1 && chunk == static_cast<hsize_t>(rows);
    const bool fletcher = H5Pget_nfilters(dcpl) == 1 &&
                          H5Pget_filter2(dcpl, 0, &flags, &nvalues, nullptr, 0, nullptr, nullptr) ==
                              H5Z_FILTER_FLETCHER32;
    if (!one_chunk || !fletcher)
      throw H5Failure(fmt::format("{}: chunked other than as one checksummed chunk", what));
    want += 4;
    check_chunks(ds, static_cast<hsize_t>(rows), what);
  }
  if (stored != 0 && stored != want)
    throw H5Failure(
        fmt::format("{}: {} B stored for {} records of {} B", what, stored, rows, record));
}

/// The columns of the compound file type `ftype` (`n` members), checked: each an integer, float
/// or fixed-length string lying inside the record. Remembered by the type's encoding (H5Tencode),
/// so the many tables of one kind in a file (a table per point) are checked once: decoding every
/// member's type again was ~15% of checking a merge's inputs (perf, 2,000 points).
TableColumns table_columns(hid_t ftype, int n, const std::string& what) {
  static std::map<std::string, TableColumns> known;  // bounded below
  size_t bytes = 0;
  check(H5Tencode(ftype, nullptr, &bytes), what);
  std::string key(bytes, '\0');
  check(H5Tencode(ftype, key.data(), &bytes), what);
  const auto hit = known.find(key);
  if (hit != known.end()) return hit->second;
  TableColumns t{std::vector<Column>(static_cast<size_t>(n)),
                 std::vector<size_t>(static_cast<size_t>(n), 8)};
  for (size_t c = 0; c < t.cols.size(); ++c) {
    const auto m = static_cast<unsigned>(c);
    char* member = H5Tget_member_name(ftype, m);
    if (member == nullptr) fail(what);
    t.cols[c].name = member;
    H5free_memory(member);
    check_text(t.cols[c].name, "column name", what);
    Hid mt = own(H5Tget_member_type(ftype, m), what);
    check_member_bounds(ftype, m, mt, what, t.cols[c].name);
    const H5T_class_t cls = H5Tget_class(mt);
    if (cls == H5T_INTEGER) {
      t.cols[c].type = ColumnType::kInt;
    } else if (cls == H5T_FLOAT) {
      t.cols[c].type = ColumnType::kFloat;
    } else if (cls == H5T_STRING && H5Tis_variable_str(mt) == 0) {
      check_string_type(mt, what);
      t.cols[c].type = ColumnType::kString;
      t.width[c] = H5Tget_size(mt);
    } else {
      throw H5Failure(fmt::format("{}: column '{}' is not an integer, float or fixed string", what,
                                  t.cols[c].name));
    }
  }
  // A member type HDF5 decodes but cannot convert (found by merge_corrupt.sh: a flipped bit in
  // an integer's properties) fails read_table's H5Dread: find the conversion now.
  const Layout layout(t.cols, t.width);
  Hid mtype = layout.type(t.cols, t.width, false, H5T_STR_NULLPAD);
  H5T_cdata_t* cdata = nullptr;
  if (H5Tfind(ftype, mtype, &cdata) == nullptr) fail(what);
  if (known.size() >= 1024) known.clear();  // files of many table shapes: memory stays bounded
  return known.emplace(std::move(key), std::move(t)).first->second;
}

}  // namespace

Table read_table(hid_t loc, const std::string& name, Depth depth) {
  const std::string what = "reading table " + name;
  Hid ds = open_dataset(loc, name);
  Hid ftype = own(H5Dget_type(ds), what);
  if (H5Tget_class(ftype) != H5T_COMPOUND) throw H5Failure(what + ": not a compound dataset");
  const int n = H5Tget_nmembers(ftype);
  if (n < 0) fail(what);
  // Read at any depth (fixed-length strings: no global heap to read), checked below.
  const auto units = read_attr_strs(ds, "unit");
  const auto descs = read_attr_strs(ds, "field_descriptions");

  auto [cols, width] = table_columns(ftype, n, what);
  for (size_t c = 0; c < cols.size(); ++c) {
    if (c < units.size()) cols[c].unit = units[c];
    if (c < descs.size()) cols[c].description = descs[c];
  }
  const Layout layout(cols, width);

  Hid space = own(H5Dget_space(ds), what);
  const hssize_t rows = H5Sget_simple_extent_npoints(space);
  if (rows < 0) fail(what);
  check_size(ds, rows, std::max(layout.size, H5Tget_size(ftype)), what);
  check_storage(ds, rows, H5Tget_size(ftype), what);
  for (const auto& u : units) check_text(u, "unit", what);
  for (const auto& d : descs) check_text(d, "field description", what);
  if (depth == Depth::kStructure) {
    Table t(name, read_attr_str(ds, "description", "", depth));
    t.set_columns(cols);
    return t;
  }
  Hid mtype = layout.type(cols, width, false, H5T_STR_NULLPAD);
  std::vector<unsigned char> buf(layout.size * static_cast<size_t>(rows));
  // The string padding differs from the file's, so HDF5 converts; by default it callocs a 1 MiB
  // conversion buffer per read, which dominated reading many small tables (simrun merge).
  // A buffer of the table's own size does.
  const size_t record = std::max(layout.size, H5Tget_size(ftype));
  if (rows > 0)
    check(H5Dread(ds, mtype, H5S_ALL, H5S_ALL, small_xfer(record * static_cast<size_t>(rows), what),
                  buf.data()),
          what);

  Table t(name, read_attr_str(ds, "description"));
  t.set_columns(cols);
  for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
    std::vector<Cell> row;
    for (size_t c = 0; c < cols.size(); ++c) {
      const unsigned char* src = buf.data() + r * layout.size + layout.offset[c];
      std::int64_t i;
      double d;
      if (cols[c].type == ColumnType::kInt) {
        std::memcpy(&i, src, sizeof i);
        row.emplace_back(i);
      } else if (cols[c].type == ColumnType::kFloat) {
        std::memcpy(&d, src, sizeof d);
        row.emplace_back(d);
      } else {
        const auto* p = reinterpret_cast<const char*>(src);
        row.emplace_back(std::string(p, strnlen(p, width[c])));
      }
    }
    t.add_row(std::move(row));
  }
  return t;
}

Record to_record(const Table& t) {
  Record rec;
  if (t.empty()) return rec;
  for (size_t c = 0; c < t.columns().size(); ++c) {
    const Column& col = t.columns()[c];
    const Cell& v = t.rows()[0][c];
    if (col.type == ColumnType::kInt)
      rec.i(col.name, col.unit, col.description, std::get<std::int64_t>(v));
    else if (col.type == ColumnType::kFloat)
      rec.f(col.name, col.unit, col.description, std::get<double>(v));
    else
      rec.s(col.name, col.description, std::get<std::string>(v));
  }
  return rec;
}

// ---- trace -----------------------------------------------------------------------------------

/// An enum without members crashes HDF5 1.10 when inserted into a compound, so a trace without
/// unit (or kind) names stores that field as a plain integer; it can have no events anyway.
template <class V>
Hid make_enum(hid_t base, const std::vector<std::string>& names, const std::string& what) {
  if (names.empty()) return own(H5Tcopy(base), what);
  Hid t = own(H5Tenum_create(base), what);
  for (size_t i = 0; i < names.size(); ++i) {
    const auto v = static_cast<V>(i);
    check(H5Tenum_insert(t, names[i].c_str(), &v), what + ", name '" + names[i] + "'");
  }
  return t;
}

/// The packed file type and the in-memory type over TraceEvent. Version 1: {begin, end, unit,
/// kind, bytes, layer} (34 B); version 2 adds {instance, src, dst} (42 B), src and dst an enum
/// over the places.
std::pair<Hid, Hid> trace_types(const Trace& tr, bool v2) {
  const std::string what = "trace type";
  Hid fu = make_enum<std::uint32_t>(H5T_STD_U32LE, tr.units, "trace unit enum");
  Hid fk = make_enum<std::uint16_t>(H5T_STD_U16LE, tr.kinds, "trace kind enum");
  Hid mu = make_enum<std::uint32_t>(H5T_NATIVE_UINT32, tr.units, "trace unit enum");
  Hid mk = make_enum<std::uint16_t>(H5T_NATIVE_UINT16, tr.kinds, "trace kind enum");
  Hid file = own(H5Tcreate(H5T_COMPOUND, v2 ? 42 : 34), what);
  check(H5Tinsert(file, "begin", 0, H5T_STD_U64LE), what);
  check(H5Tinsert(file, "end", 8, H5T_STD_U64LE), what);
  check(H5Tinsert(file, "unit", 16, fu), what);
  check(H5Tinsert(file, "kind", 20, fk), what);
  check(H5Tinsert(file, "bytes", 22, H5T_STD_U64LE), what);
  check(H5Tinsert(file, "layer", 30, H5T_STD_U32LE), what);
  Hid mem = own(H5Tcreate(H5T_COMPOUND, sizeof(TraceEvent)), what);
  check(H5Tinsert(mem, "begin", offsetof(TraceEvent, begin), H5T_NATIVE_UINT64), what);
  check(H5Tinsert(mem, "end", offsetof(TraceEvent, end), H5T_NATIVE_UINT64), what);
  check(H5Tinsert(mem, "unit", offsetof(TraceEvent, unit), mu), what);
  check(H5Tinsert(mem, "kind", offsetof(TraceEvent, kind), mk), what);
  check(H5Tinsert(mem, "bytes", offsetof(TraceEvent, bytes), H5T_NATIVE_UINT64), what);
  check(H5Tinsert(mem, "layer", offsetof(TraceEvent, layer), H5T_NATIVE_UINT32), what);
  if (v2) {
    Hid fp = make_enum<std::uint16_t>(H5T_STD_U16LE, tr.places, "trace place enum");
    Hid mp = make_enum<std::uint16_t>(H5T_NATIVE_UINT16, tr.places, "trace place enum");
    check(H5Tinsert(file, "instance", 34, H5T_STD_U32LE), what);
    check(H5Tinsert(file, "src", 38, fp), what);
    check(H5Tinsert(file, "dst", 40, fp), what);
    check(H5Tinsert(mem, "instance", offsetof(TraceEvent, instance), H5T_NATIVE_UINT32), what);
    check(H5Tinsert(mem, "src", offsetof(TraceEvent, src), mp), what);
    check(H5Tinsert(mem, "dst", offsetof(TraceEvent, dst), mp), what);
  }
  return {std::move(file), std::move(mem)};
}

void check_unique(const std::vector<std::string>& names, const char* what) {
  std::set<std::string> seen;
  for (const auto& n : names)
    if (!seen.insert(n).second)
      throw H5Failure(fmt::format("trace {} name '{}' appears twice", what, n));
}

void check_events(const Trace& tr) {
  const size_t places = std::max<size_t>(tr.places.size(), 1);  // none: src = dst = 0
  for (size_t i = 0; i < tr.events.size(); ++i) {
    const TraceEvent& e = tr.events[i];
    if (e.unit >= tr.units.size() || e.kind >= tr.kinds.size() || e.src >= places ||
        e.dst >= places)
      throw H5Failure(fmt::format(
          "trace event {}: unit {} / kind {} / places {}, {} out of range ({} units, {} kinds, {} "
          "places)",
          i, e.unit, e.kind, e.src, e.dst, tr.units.size(), tr.kinds.size(), tr.places.size()));
  }
}

void write_trace(hid_t point, const Trace& tr) {
  check_unique(tr.units, "unit");
  check_unique(tr.kinds, "kind");
  check_unique(tr.places, "place");
  check_events(tr);
  const std::string what = "writing trace";
  auto [ftype, mtype] = trace_types(tr, true);
  // 16384 records of 42 B stay well inside the default 1 MiB chunk cache.
  const hsize_t n = tr.events.size();
  const hsize_t chunk = std::min<hsize_t>(16384, std::max<hsize_t>(1, n));
  Hid dcpl = own(H5Pcreate(H5P_DATASET_CREATE), what);
  check(H5Pset_chunk(dcpl, 1, &chunk), what);
  check(H5Pset_shuffle(dcpl), what);
  check(H5Pset_deflate(dcpl, 1), what);
  check(H5Pset_fletcher32(dcpl), what);  // over the compressed bytes, checked first on reading
  // Extendible so that a chunked dataset of 0 records is allowed.
  Hid ds = own(H5Dcreate2(point, "trace", ftype, space_1d(n, true), H5P_DEFAULT, dcpl, H5P_DEFAULT),
               what);
  if (n > 0) check(H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, tr.events.data()), what);
  attr_str(ds, "description", "one record per executed operation");
  attr_strs(ds, "unit", {"cycles", "cycles", "", "", "B", "", "", "", ""});
  attr_strs(ds, "field_descriptions",
            {"start cycle", "end cycle", "unit that executed the operation", "operation kind",
             "bytes moved", "layer index", "lowered layer instance (one per repeat)",
             "where a transfer reads (none: not a transfer)",
             "where a transfer writes (none: not a transfer)"});
  attr_u64(ds, "version", Trace::kVersion);
  if (tr.clock > 0) attr_f64(ds, "clock", tr.clock);
}

/// Member names of an enum field, in value order.
std::vector<std::string> enum_names(hid_t compound, const char* field) {
  const std::string what = std::string("reading trace field ") + field;
  const int idx = H5Tget_member_index(compound, field);
  if (idx < 0) fail(what);
  Hid et = own(H5Tget_member_type(compound, static_cast<unsigned>(idx)), what);
  if (H5Tget_class(et) == H5T_INTEGER) return {};  // see make_enum
  if (H5Tget_class(et) != H5T_ENUM) throw H5Failure(what + ": not an enum");
  Hid base = own(H5Tget_super(et), what);
  const size_t size = H5Tget_size(base);
  const int n = H5Tget_nmembers(et);
  if (n < 0 || (size != 2 && size != 4)) throw H5Failure(what + ": unexpected enum type");
  std::vector<std::pair<std::uint32_t, std::string>> members;
  for (unsigned i = 0; i < static_cast<unsigned>(n); ++i) {
    char* name = H5Tget_member_name(et, i);
    if (name == nullptr) fail(what);
    members.emplace_back(0, name);
    H5free_memory(name);
    check_text(members.back().second, "member name", what);
    std::uint16_t v16 = 0;
    std::uint32_t v32 = 0;
    check(H5Tget_member_value(et, i, size == 2 ? static_cast<void*>(&v16) : &v32), what);
    members.back().first = size == 2 ? v16 : v32;
  }
  std::sort(members.begin(), members.end());
  std::vector<std::string> names;
  for (auto& m : members) names.push_back(std::move(m.second));
  return names;
}

Trace read_trace(hid_t point) {
  const std::string what = "reading trace";
  Hid ds = open_dataset(point, "trace");
  const auto version = read_attr_num<std::uint64_t>(ds, "version", H5T_NATIVE_UINT64);
  if (version > Trace::kVersion)
    throw H5Failure(fmt::format("trace version {} is newer than this build reads ({})", version,
                                Trace::kVersion));
  Hid ftype = own(H5Dget_type(ds), what);
  if (H5Tget_class(ftype) != H5T_COMPOUND) throw H5Failure(what + ": not a compound dataset");
  const int members = H5Tget_nmembers(ftype);
  if (members < 0) fail(what);
  for (unsigned m = 0; m < static_cast<unsigned>(members); ++m) {
    Hid mt = own(H5Tget_member_type(ftype, m), what);
    check_member_bounds(ftype, m, mt, what, "#" + std::to_string(m));
  }
  Trace tr;
  tr.enabled = true;
  tr.units = enum_names(ftype, "unit");
  tr.kinds = enum_names(ftype, "kind");
  // Version 1 (no version attribute) has no places, instances or clock.
  const bool v2 = H5Tget_member_index(ftype, "src") >= 0;
  if (v2) {
    tr.places = enum_names(ftype, "src");
    tr.clock = read_attr_num<double>(ds, "clock", H5T_NATIVE_DOUBLE);
  }
  Hid space = own(H5Dget_space(ds), what);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n < 0) fail(what);
  check_size(ds, n, sizeof(TraceEvent), what);
  check_chunks(ds, static_cast<hsize_t>(n), what);
  tr.events.resize(static_cast<size_t>(n));
  if (n > 0) {
    auto types = trace_types(tr, v2);
    check(H5Dread(ds, types.second, H5S_ALL, H5S_ALL, H5P_DEFAULT, tr.events.data()), what);
  }
  if (!v2)  // the fields the file lacks: the read may leave their bytes undefined
    for (auto& e : tr.events) {
      e.src = e.dst = 0;
      e.instance = 0;
    }
  // Readers index the names by these fields; a trace stores a field as a plain integer only
  // when it has no names (make_enum), and then it can have no events.
  check_events(tr);
  return tr;
}

}  // namespace systole::stats::h5

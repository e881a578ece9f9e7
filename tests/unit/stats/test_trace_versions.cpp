// The HDF5 trace table across versions (sim/stats/results_file.h): version 2 round-trips the
// places, each transfer's source and destination, the layer instance and the clock; a
// version 1 file (written by hand here in the old 34-byte layout, without a version
// attribute) still reads, with those fields empty; a version newer than the build is an error.
#include <hdf5.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "sim/core/error.h"
#include "sim/stats/results_file.h"
#include "tests/support/temp_dir.h"

using namespace systole;
using namespace systole::stats;
using systole::test::TempDir;

namespace {

PointResult traced_point() {
  PointResult r;
  r.id = 0;
  r.key = "0";  // a stable id is required since the shard merge (issue 14)
  r.trace.enabled = true;
  r.trace.clock = 1.05e9;
  r.trace.units = {"chip0.core0.mxu0", "chip0.core0.dma0"};
  r.trace.kinds = {"load", "matmul"};
  const std::uint16_t hbm = r.trace.place("chip0.hbm");
  const std::uint16_t vmem = r.trace.place("chip0.core0.vmem");
  for (std::uint32_t i = 0; i < 100; ++i) {
    TraceEvent e;
    e.begin = 10 * i;
    e.end = 10 * i + 25;
    e.unit = i % 2;
    e.kind = static_cast<std::uint16_t>(e.unit == 1 ? 0 : 1);
    e.bytes = e.unit == 1 ? 4096 : 0;
    e.src = e.unit == 1 ? hbm : 0;
    e.dst = e.unit == 1 ? vmem : 0;
    e.layer = i / 50;
    e.instance = i / 25;
    r.trace.events.push_back(e);
  }
  return r;
}

void write(const std::string& path, const PointResult& p) {
  ResultsWriter w(path, RunMeta{});
  w.write_point(p);
  w.commit();
}

hid_t enum_type(hid_t base, const std::vector<std::string>& names, bool u32) {
  const hid_t t = H5Tenum_create(base);
  for (size_t i = 0; i < names.size(); ++i) {
    const std::uint32_t v32 = static_cast<std::uint32_t>(i);
    const std::uint16_t v16 = static_cast<std::uint16_t>(i);
    H5Tenum_insert(t, names[i].c_str(), u32 ? static_cast<const void*>(&v32) : &v16);
  }
  return t;
}

/// A results file as Systole wrote it before trace version 2: /meta, /points/0 and its trace
/// {begin, end, unit, kind, bytes, layer} packed in 34 bytes, no version attribute.
void write_v1(const std::string& path) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(f >= 0);
  H5Gclose(H5Gcreate2(f, "meta", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  const hid_t points = H5Gcreate2(f, "points", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t g = H5Gcreate2(points, "0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t fu = enum_type(H5T_STD_U32LE, {"chip0.core0.mxu0", "chip0.core0.dma0"}, true);
  const hid_t fk = enum_type(H5T_STD_U16LE, {"load", "matmul"}, false);
  const hid_t ft = H5Tcreate(H5T_COMPOUND, 34);
  H5Tinsert(ft, "begin", 0, H5T_STD_U64LE);
  H5Tinsert(ft, "end", 8, H5T_STD_U64LE);
  H5Tinsert(ft, "unit", 16, fu);
  H5Tinsert(ft, "kind", 20, fk);
  H5Tinsert(ft, "bytes", 22, H5T_STD_U64LE);
  H5Tinsert(ft, "layer", 30, H5T_STD_U32LE);
  unsigned char rec[3][34] = {};
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t begin = 7 * static_cast<std::uint64_t>(i), end = begin + 5, bytes = 512;
    const std::uint32_t unit = 1, layer = static_cast<std::uint32_t>(i);
    const std::uint16_t kind = 0;
    std::memcpy(rec[i] + 0, &begin, 8);  // the test host is little-endian, like the file
    std::memcpy(rec[i] + 8, &end, 8);
    std::memcpy(rec[i] + 16, &unit, 4);
    std::memcpy(rec[i] + 20, &kind, 2);
    std::memcpy(rec[i] + 22, &bytes, 8);
    std::memcpy(rec[i] + 30, &layer, 4);
  }
  const hsize_t n = 3;
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t ds = H5Dcreate2(g, "trace", ft, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(H5Dwrite(ds, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, rec) >= 0);
  H5Dclose(ds);
  H5Sclose(space);
  H5Tclose(ft);
  H5Tclose(fu);
  H5Tclose(fk);
  H5Gclose(g);
  H5Gclose(points);
  H5Fclose(f);
}

}  // namespace

TEST_CASE("trace version 2: places, routes, instances and the clock round-trip",
          "[unit][stats][trace]") {
  TempDir dir;
  const PointResult p = traced_point();
  write(dir.file("v2.h5"), p);
  const auto back = read_points(dir.file("v2.h5"));
  REQUIRE(back.size() == 1);
  const Trace& t = back[0].trace;
  CHECK(t.places == std::vector<std::string>{"none", "chip0.hbm", "chip0.core0.vmem"});
  CHECK(t.clock == 1.05e9);
  REQUIRE(t.events.size() == p.trace.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& a = p.trace.events[i];
    const TraceEvent& b = t.events[i];
    INFO("event " << i);
    CHECK(b.begin == a.begin);
    CHECK(b.end == a.end);
    CHECK(b.unit == a.unit);
    CHECK(b.kind == a.kind);
    CHECK(b.bytes == a.bytes);
    CHECK(b.layer == a.layer);
    CHECK(b.instance == a.instance);
    CHECK(b.src == a.src);
    CHECK(b.dst == a.dst);
  }
}

TEST_CASE("trace version 1 files still read, without places", "[unit][stats][trace]") {
  TempDir dir;
  write_v1(dir.file("v1.h5"));
  const auto back = read_points(dir.file("v1.h5"));
  REQUIRE(back.size() == 1);
  const Trace& t = back[0].trace;
  CHECK(t.enabled);
  CHECK(t.units == std::vector<std::string>{"chip0.core0.mxu0", "chip0.core0.dma0"});
  CHECK(t.kinds == std::vector<std::string>{"load", "matmul"});
  CHECK(t.places.empty());
  CHECK(t.clock == 0);
  REQUIRE(t.events.size() == 3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    const TraceEvent& e = t.events[i];
    CHECK(e.begin == 7 * i);
    CHECK(e.end == 7 * i + 5);
    CHECK(e.unit == 1);
    CHECK(e.kind == 0);
    CHECK(e.bytes == 512);
    CHECK(e.layer == i);
    CHECK(e.instance == 0);
    CHECK(e.src == 0);
    CHECK(e.dst == 0);
  }
}

TEST_CASE("a trace version newer than the build is an error naming it", "[unit][stats][trace]") {
  TempDir dir;
  write(dir.file("v3.h5"), traced_point());
  const hid_t f = H5Fopen(dir.file("v3.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t ds = H5Dopen2(f, "points/0/trace", H5P_DEFAULT);
  const hid_t a = H5Aopen(ds, "version", H5P_DEFAULT);
  const std::uint64_t v = 3;
  REQUIRE(H5Awrite(a, H5T_NATIVE_UINT64, &v) >= 0);
  H5Aclose(a);
  H5Dclose(ds);
  H5Fclose(f);
  try {
    read_points(dir.file("v3.h5"));
    FAIL("a version 3 trace was read");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("trace version 3 is newer") != std::string::npos);
  }
}

TEST_CASE("a trace event naming no place is reported", "[unit][stats][trace]") {
  TempDir dir;
  PointResult p = traced_point();
  p.trace.events[3].dst = 7;  // three places
  ResultsWriter w(dir.file("bad.h5"), RunMeta{});
  CHECK_THROWS_WITH(w.write_point(p), Catch::Contains("places 1, 7 out of range"));
}

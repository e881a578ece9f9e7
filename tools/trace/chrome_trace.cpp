#include "tools/trace/chrome_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <utility>

#include "sim/config/node.h"
#include "sim/core/units.h"
#include "tools/trace/trace_lanes.h"

namespace systole::trace {

namespace {

constexpr int kFirstTid = 100000;  // thread ids never equal a process id (a "main thread")

std::string escape(const std::string& s) {
  std::string o;
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      o += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      o += c;
    }
  }
  return o;
}

std::string config_text(const config::Node& cfg, const char* path) {
  const config::Node* n = config::get_path(cfg, path);
  return n && n->is_scalar() ? n->text() : "";
}

/// The clock the trace's cycles count: recorded with the trace, or (traces written before
/// version 2) the chip clock of the point's config; 1 GHz when unknown (cycles shown as ns).
double clock_of(const stats::PointResult& p) {
  if (p.trace.clock > 0) return p.trace.clock;
  const auto cfg = config::parse_yaml(p.config_yaml, "config");
  ParsedQuantity q;
  std::string why;
  if (parse_quantity(config_text(cfg, "system.chip.clock"), q, why) &&
      q.dim == Dimension::kFrequency)
    return q.value;
  return 1e9;
}

std::string system_kind(const stats::PointResult& p) {
  return config_text(config::parse_yaml(p.config_yaml, "config"), "system.kind");
}

std::string bytes_text(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  return v == std::floor(v) ? fmt::format("{} {}", static_cast<std::uint64_t>(v), units[u])
                            : fmt::format("{:.1f} {}", v, units[u]);
}

/// "chip0.core0.vmem" -> "VMEM".
std::string short_place(const std::string& path) {
  std::string s = path.substr(path.rfind('.') + 1);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string device_of(const std::string& unit) { return unit.substr(0, unit.find('.')); }

/// One point's trace as the export walks it: clock, devices, events by unit.
struct PointView {
  const stats::PointResult& p;
  double ns_per_cycle;
  std::vector<std::string> devices;               // in order of first unit
  std::vector<std::vector<std::uint32_t>> units;  // per device: unit indices
  std::vector<std::vector<std::size_t>> by_unit;  // per unit: event indices
  std::vector<std::uint64_t> span;                // per device: last event end

  explicit PointView(const stats::PointResult& point)
      : p(point), ns_per_cycle(1e9 / clock_of(point)) {
    const auto& t = p.trace;
    by_unit.resize(t.units.size());
    for (std::size_t i = 0; i < t.events.size(); ++i) by_unit.at(t.events[i].unit).push_back(i);
    for (std::uint32_t u = 0; u < t.units.size(); ++u) {
      const std::string d = device_of(t.units[u]);
      const auto it = std::find(devices.begin(), devices.end(), d);
      const auto di = static_cast<std::size_t>(it - devices.begin());
      if (it == devices.end()) {
        devices.push_back(d);
        units.emplace_back();
        span.push_back(0);
      }
      units[di].push_back(u);
      for (const std::size_t e : by_unit[u]) span[di] = std::max(span[di], t.events[e].end);
    }
  }
  std::int64_t ns(std::uint64_t cycle) const {
    return std::llround(static_cast<double>(cycle) * ns_per_cycle);
  }
  std::string layer_name(std::uint32_t layer) const {
    if (p.layers.column("layer") >= 0 && layer < p.layers.rows().size())
      return p.layers.get_string(layer, "layer");
    return fmt::format("layer {}", layer);
  }
};

/// Microseconds with whole nanoseconds: "12.345".
std::string us(std::int64_t ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); }

class Emitter {
 public:
  Emitter(std::ostream& os, ExportCounts& n) : os_(os), n_(n) {}
  void raw(const std::string& e) {
    os_ << (first_ ? "" : ",\n") << e;
    first_ = false;
  }
  void process(int pid, const std::string& name) {
    raw(fmt::format(R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":"{}"}}}})", pid,
                    escape(name)));
    raw(fmt::format(
        R"({{"ph":"M","pid":{},"name":"process_sort_index","args":{{"sort_index":{}}}}})", pid,
        pid));
  }
  /// A new named thread track of process `pid`, sorted after the ones before it.
  int track(int pid, const std::string& name) {
    const int tid = kFirstTid + tracks_++;
    raw(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":"{}"}}}})",
                    pid, tid, escape(name)));
    raw(fmt::format(
        R"({{"ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})",
        pid, tid, tid - kFirstTid));
    ++n_.tracks;
    return tid;
  }
  void reset_tracks() { tracks_ = 0; }

 private:
  std::ostream& os_;
  ExportCounts& n_;
  bool first_ = true;
  int tracks_ = 0;
};

std::string lane_name(const std::string& base, std::uint32_t lane) {
  return lane == 0 ? base : fmt::format("{} #{}", base, lane);
}

/// Tracks for `lanes` lanes named after `base`; returns their tids.
std::vector<int> lane_tracks(Emitter& out, int pid, const std::string& base,
                             const std::vector<std::uint32_t>& lane) {
  const std::uint32_t n = lane.empty() ? 1 : *std::max_element(lane.begin(), lane.end()) + 1;
  std::vector<int> tids;
  for (std::uint32_t l = 0; l < n; ++l) tids.push_back(out.track(pid, lane_name(base, l)));
  return tids;
}

void layer_track(Emitter& out, ExportCounts& n, const PointView& v, std::size_t d, int pid) {
  const auto& t = v.p.trace;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Interval> spans;  // (layer, instance)
  for (const std::uint32_t u : v.units[d])
    for (const std::size_t i : v.by_unit[u]) {
      const stats::TraceEvent& e = t.events[i];
      auto [it, fresh] = spans.try_emplace({e.layer, e.instance}, Interval{e.begin, e.end});
      if (!fresh) {
        it->second.begin = std::min(it->second.begin, e.begin);
        it->second.end = std::max(it->second.end, e.end);
      }
    }
  std::vector<Interval> iv;
  for (const auto& s : spans) iv.push_back(s.second);
  const auto lane = assign_lanes(iv);
  const auto tids = lane_tracks(out, pid, "layers", lane);
  std::size_t k = 0;
  for (const auto& [key, s] : spans) {
    const std::int64_t b = v.ns(s.begin), e = v.ns(s.end);
    out.raw(fmt::format(
        R"({{"ph":"X","cat":"layer","pid":{},"tid":{},"name":"{}","ts":{},"dur":{},"args":{{"layer_index":{},"instance":{},"begin_cycle":{},"end_cycle":{}}}}})",
        pid, tids[lane[k++]], escape(v.layer_name(key.first)), us(b), us(e - b), key.first,
        key.second, s.begin, s.end));
    ++n.layer_slices;
  }
}

std::string slice(const PointView& v, const stats::TraceEvent& e, int pid, int tid) {
  const auto& t = v.p.trace;
  const std::string& kind = t.kinds.at(e.kind);
  std::string name = kind, route;
  if (e.src != 0 || e.dst != 0) {
    const std::string& src = t.places.at(e.src);
    const std::string& dst = t.places.at(e.dst);
    name += fmt::format(" {}->{} {}", short_place(src), short_place(dst), bytes_text(e.bytes));
    route = fmt::format(R"(,"src":"{}","dst":"{}")", escape(src), escape(dst));
  }
  const std::int64_t b = v.ns(e.begin), en = v.ns(e.end);
  return fmt::format(
      R"({{"ph":"X","cat":"{}","pid":{},"tid":{},"name":"{}","ts":{},"dur":{},"args":{{"unit":"{}","layer":"{}","layer_index":{},"instance":{},"bytes":{},"begin_cycle":{},"end_cycle":{}{}}}}})",
      escape(kind), pid, tid, escape(name), us(b), us(en - b), escape(t.units.at(e.unit)),
      escape(v.layer_name(e.layer)), e.layer, e.instance, e.bytes, e.begin, e.end, route);
}

void unit_tracks(Emitter& out, ExportCounts& n, const PointView& v, std::size_t d, int pid) {
  const auto& t = v.p.trace;
  const std::string prefix = v.devices[d] + ".";
  for (const std::uint32_t u : v.units[d]) {
    if (v.by_unit[u].empty()) continue;  // an idle unit: no track
    std::vector<Interval> iv;
    for (const std::size_t i : v.by_unit[u]) iv.push_back({t.events[i].begin, t.events[i].end});
    n.concurrent += improper_overlaps(iv);
    const auto lane = assign_lanes(iv);
    const std::string& path = t.units[u];
    const auto tids =
        lane_tracks(out, pid, path.rfind(prefix, 0) == 0 ? path.substr(prefix.size()) : path, lane);
    for (std::size_t k = 0; k < iv.size(); ++k) {
      out.raw(slice(v, t.events[v.by_unit[u][k]], pid, tids[lane[k]]));
      ++n.slices;
    }
  }
}

/// Bytes per bin of `width` cycles (`bins` bins), each transfer's bytes spread evenly over its
/// duration (a transfer of no duration counts in the bin it happens in).
std::vector<double> binned(const std::vector<const stats::TraceEvent*>& xfers, std::uint64_t width,
                           std::size_t bins) {
  std::vector<double> out(bins, 0.0);
  for (const stats::TraceEvent* e : xfers) {
    if (e->end <= e->begin) {
      out[std::min<std::size_t>(e->begin / width, bins - 1)] += static_cast<double>(e->bytes);
      continue;
    }
    const double rate = static_cast<double>(e->bytes) / static_cast<double>(e->end - e->begin);
    for (std::uint64_t b = e->begin / width; b <= (e->end - 1) / width && b < bins; ++b) {
      const std::uint64_t lo = std::max(e->begin, b * width);
      const std::uint64_t hi = std::min(e->end, (b + 1) * width);
      out[b] += rate * static_cast<double>(hi - lo);
    }
  }
  return out;
}

void counters(Emitter& out, ExportCounts& n, const PointView& v, std::size_t d, int pid,
              const ExportOptions& opt) {
  const auto& t = v.p.trace;
  const std::uint64_t span = v.span[d];
  if (span == 0 || opt.bins == 0) return;
  const std::size_t bins = static_cast<std::size_t>(std::min<std::uint64_t>(opt.bins, span));
  const std::uint64_t width = (span + bins - 1) / bins;
  const double seconds_per_bin = static_cast<double>(width) * v.ns_per_cycle * 1e-9;
  for (std::uint16_t q = 1; q < t.places.size(); ++q) {
    const std::string& place = t.places[q];
    // Device-level memories only ("chip0.hbm"): per-core and per-SM ones would be hundreds.
    if (device_of(place) != v.devices[d] || place.find('.') != place.rfind('.')) continue;
    std::vector<const stats::TraceEvent*> reads, writes;
    for (const std::uint32_t u : v.units[d])
      for (const std::size_t i : v.by_unit[u]) {
        if (t.events[i].src == q) reads.push_back(&t.events[i]);
        if (t.events[i].dst == q) writes.push_back(&t.events[i]);
      }
    if (reads.empty() && writes.empty()) continue;
    const auto r = binned(reads, width, bins), w = binned(writes, width, bins);
    const std::string name = escape(short_place(place) + " bandwidth");
    std::string last;
    for (std::size_t b = 0; b <= bins; ++b) {
      const double gr = b < bins ? r[b] / seconds_per_bin * 1e-9 : 0;
      const double gw = b < bins ? w[b] / seconds_per_bin * 1e-9 : 0;
      const std::string args = fmt::format(R"("read GB/s":{:.3f},"write GB/s":{:.3f})", gr, gw);
      if (args == last && b < bins) continue;  // a counter holds its value until the next
      last = args;
      out.raw(fmt::format(R"({{"ph":"C","pid":{},"name":"{}","ts":{},"args":{{{}}}}})", pid, name,
                          us(v.ns(std::min<std::uint64_t>(b * width, span))), args));
      ++n.counter_events;
    }
    n.tracks += 2;  // read and write
  }
}

std::string process_name(const PointView& v, std::size_t d, std::size_t points) {
  const std::string kind = system_kind(v.p);
  std::string s = v.devices[d] + (kind.empty() ? "" : " (" + kind + ")");
  if (points > 1 || !v.p.label.empty()) s += fmt::format(", point {}", v.p.id);
  if (!v.p.label.empty()) s += ": " + v.p.label;
  return s;
}

}  // namespace

std::vector<const stats::PointResult*> traced_points(const std::vector<stats::PointResult>& all,
                                                     const std::string& point,
                                                     const std::string& file) {
  const std::string how =
      "record one with output.trace: true in the experiment (or simrun -p output.trace=true)";
  std::vector<const stats::PointResult*> out;
  if (!point.empty()) {
    const bool index = point.find_first_not_of("0123456789") == std::string::npos;
    for (const auto& p : all)
      if (p.key == point || (index && std::to_string(p.id) == point)) out.push_back(&p);
    if (out.empty()) {
      std::string ids;
      for (const auto& p : all)
        ids += (ids.empty() ? "" : ", ") + std::to_string(p.id) +
               (p.key.empty() ? "" : " (id " + p.key + ")");
      throw TraceError(fmt::format("{}: no point {}; the file's points are {}", file, point,
                                   ids.empty() ? "none" : ids));
    }
    if (!out[0]->trace.enabled)
      throw TraceError(fmt::format("{}: point {} has no trace: {}", file, point, how));
    return out;
  }
  for (const auto& p : all)
    if (p.trace.enabled) out.push_back(&p);
  if (out.empty()) throw TraceError(fmt::format("{} has no trace: {}", file, how));
  return out;
}

ExportCounts write_chrome_trace(const std::vector<const stats::PointResult*>& points,
                                std::ostream& os, const ExportOptions& opt) {
  ExportCounts n;
  Emitter out(os, n);
  os << "{\"traceEvents\":[\n";
  int pid = 0;
  for (const stats::PointResult* p : points) {
    const PointView v(*p);
    for (std::size_t d = 0; d < v.devices.size(); ++d) {
      ++pid;
      ++n.devices;
      out.reset_tracks();
      out.process(pid, process_name(v, d, points.size()));
      layer_track(out, n, v, d, pid);
      unit_tracks(out, n, v, d, pid);
      counters(out, n, v, d, pid, opt);
    }
  }
  os << "\n]}\n";
  return n;
}

}  // namespace systole::trace

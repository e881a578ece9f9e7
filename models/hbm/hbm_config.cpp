#include "models/hbm/hbm_config.h"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <set>
#include <vector>

#include "models/hbm/hbm_address_map.h"
#include "sim/config/preset_table.h"

namespace systole::models {

namespace {

constexpr HbmPreset kPresets[] = {HbmPreset::kHbm2, HbmPreset::kHbm2e, HbmPreset::kHbm3,
                                  HbmPreset::kHbm3e, HbmPreset::kDdr3_2133};

const HbmConfig& preset_values(HbmPreset p) {
  return config::preset_values<HbmConfig>(kPresets, p);
}

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

constexpr std::uint64_t kMinCapacity = 1ull << 20, kMaxCapacity = 1ull << 44;  // 1 MiB, 16 TiB

/// The HBM schema: the usual builder plus keys whose default comes from the preset. Such a key
/// reads `preset` (its default text) as "keep the value the preset filled in"; --describe
/// prints the value of every preset in its doc, so each default is still written once, in
/// hbm_presets.cpp.
class HbmSchema : public config::SchemaOf<HbmConfig> {
 public:
  using SchemaOf::SchemaOf;

  HbmSchema& preset_int(const char* name, std::int64_t HbmConfig::*m, std::int64_t min,
                        std::int64_t max, const char* unit, const char* doc) {
    Entry e = entry(name, doc, config::ParamType::kInt, unit, preset_values_text(m));
    e.range_text = fmt::format("[{}, {}]", min, max);
    e.assign = [m, min, max](void* o, const config::Node& n, const std::string& p) {
      if (n.is_scalar() && n.text() == "preset") return;
      static_cast<HbmConfig*>(o)->*m = config::to_int(n, p, min, max);
    };
    add(std::move(e));
    return *this;
  }

  /// `preset`: the device generation; applying it fills every key whose default is `preset`.
  HbmSchema& preset_choice() {
    std::vector<std::string> names;
    for (auto q : kPresets) names.push_back(hbm_preset_name(q));
    Entry e = entry("preset", "device generation: fills every key whose default is 'preset'",
                    config::ParamType::kEnum, "", "");
    e.default_text = "hbm2";
    e.range_text = "hbm2 | hbm2e | hbm3 | hbm3e | ddr3_2133";
    e.assign = [names](void* o, const config::Node& n, const std::string& p) {
      static_cast<HbmConfig*>(o)->apply_preset(kPresets[config::to_choice(n, p, names)]);
    };
    add(std::move(e));
    return *this;
  }

  HbmSchema& data_rate() {
    Entry e = entry("data_rate", "data rate per pin", config::ParamType::kFloat, "Mb/s",
                    preset_values_text(&HbmConfig::data_rate));
    e.range_text = "[1, 100000]";
    e.assign = [](void* o, const config::Node& n, const std::string& p) {
      auto& c = *static_cast<HbmConfig*>(o);
      c.data_rate_given = !(n.is_scalar() && n.text() == "preset");
      if (c.data_rate_given) c.data_rate = config::to_float(n, p, 1, 1e5);
    };
    add(std::move(e));
    return *this;
  }

  /// Peak bandwidth: derived from the organisation (stacks x channels x width x data rate)
  /// unless given; given to the bank model, it sets the data rate instead. Declared after the
  /// organisation keys, whose values it reads.
  HbmSchema& bandwidth() {
    Entry e = entry("bandwidth",
                    "peak bandwidth; auto: stacks x channels x channel_width x data_rate (hbm2, "
                    "4 stacks: 1.23TB/s); given to the bank model it sets the data rate",
                    config::ParamType::kBandwidth, "B/s", "");
    e.default_text = "auto";
    e.range_text = "[1 MB/s, 1e+03 TB/s]";
    e.assign = [](void* o, const config::Node& n, const std::string& p) {
      auto& c = *static_cast<HbmConfig*>(o);
      c.bandwidth_given = !(n.is_scalar() && n.text() == "auto");
      if (!c.bandwidth_given) {
        c.bandwidth = BytesPerSecond(c.organisation_peak());
        return;
      }
      const double bw = config::to_quantity(n, p, Dimension::kBandwidth, 1e6, 1e15);
      c.bandwidth = BytesPerSecond(bw);
      if (c.model != HbmModel::kBank) return;
      if (c.data_rate_given)
        throw ConfigError(n.origin(), p,
                          "give the bank model either bandwidth or data_rate, not both "
                          "(bandwidth sets the data rate)");
      c.data_rate = bw * 8.0 / static_cast<double>(c.total_channels() * c.channel_width) / 1e6;
    };
    add(std::move(e));
    return *this;
  }

 private:
  static Entry entry(const char* name, const std::string& doc, config::ParamType t,
                     const char* unit, const std::string& per_preset) {
    Entry e;
    e.name = name;
    e.doc = per_preset.empty() ? doc : doc + " (" + per_preset + ")";
    e.type = t;
    e.unit = unit;
    e.default_text = "preset";
    return e;
  }
  template <class V>
  static std::string preset_values_text(V HbmConfig::*m) {
    std::string s;
    for (auto p : kPresets)
      s += fmt::format("{}{} {}", s.empty() ? "" : ", ", hbm_preset_name(p),
                       config::format_schema_double(static_cast<double>(preset_values(p).*m)));
    return s;
  }
};

const config::Node* key_node(const config::Node& n, const char* key) {
  if (!n.is_map()) return nullptr;
  if (const config::Node* v = n.find(key)) return v;
  return n.find("preset");
}

/// Throws a ConfigError at `key` (its own origin if the user wrote it, else the preset's, else
/// the hbm section's).
[[noreturn]] void fail(const config::Node& n, const std::string& p, const char* key,
                       const std::string& msg) {
  const config::Node* k = key_node(n, key);
  throw ConfigError(k ? k->origin() : n.origin(), p.empty() ? key : p + "." + key, msg);
}

bool from_command_line(const Origin& o) { return o.file.rfind("<command line", 0) == 0; }

/// An organisation error involves several keys (`keys`, the reported one first): point at the
/// one the user wrote — a -p override, else a key in the file that holds the user's hbm
/// section (merging base files gives a mapping the origin of its topmost file) — so a changed
/// `stacks` is not reported at the preset's `capacity` line.
[[noreturn]] void fail_org(const config::Node& n, const std::string& p,
                           std::initializer_list<const char*> keys, const std::string& msg) {
  auto first = [&](auto&& users) -> const char* {
    for (const char* k : keys) {
      const config::Node* v = n.is_map() ? n.find(k) : nullptr;
      if (v && users(v->origin())) return k;
    }
    return nullptr;
  };
  const char* at = first(from_command_line);
  if (!at) at = first([&](const Origin& o) { return o.file == n.origin().file; });
  if (at && at != *keys.begin()) fail(n, p, at, std::string(*keys.begin()) + " " + msg);
  fail(n, p, *keys.begin(), msg);
}

std::string bytes_text(double b) { return format_quantity(b, Dimension::kBytes); }

/// Why `c.capacity` gives no power-of-two rows per bank, and the capacities nearest to it that
/// do (stacks x a per-stack capacity).
std::string capacity_error(const HbmConfig& c, double rows) {
  const double per_row = static_cast<double>(c.total_channels() * c.pseudo_channels *
                                             c.banks_per_pc() * c.row_bytes());
  std::string msg = fmt::format(
      "{} gives {:g} rows per bank ({} channels x {} pseudo-channels x {} banks x {} B rows), "
      "not a power of two as the address mapping needs",
      bytes_text(static_cast<double>(c.capacity.value())), rows, c.total_channels(),
      c.pseudo_channels, c.banks_per_pc(), c.row_bytes());
  std::vector<std::string> options;
  const double below = rows >= 1 ? std::exp2(std::floor(std::log2(rows))) : 0;
  for (const double r : {below, below > 0 ? 2 * below : 1.0}) {
    const double cap = r * per_row;
    if (r >= 1 && cap >= static_cast<double>(kMinCapacity) &&
        cap <= static_cast<double>(kMaxCapacity))
      options.push_back(fmt::format("{} ({} stacks x {})", bytes_text(cap), c.stacks,
                                    bytes_text(cap / static_cast<double>(c.stacks))));
  }
  if (!options.empty()) msg += ": try " + options.front();
  if (options.size() > 1) msg += " or " + options.back();
  return msg;
}

void validate(const HbmConfig& c, const config::Node& n, const std::string& p) {
  if (c.t_ras < c.t_rcd_rd || c.t_ras < c.t_rcd_wr)
    fail(n, p, "t_ras",
         fmt::format("tRAS ({} tCK) is shorter than tRCD ({} tCK): a row must stay open at least "
                     "until its first column command",
                     c.t_ras, std::max(c.t_rcd_rd, c.t_rcd_wr)));
  if (c.t_rc < c.t_ras + c.t_rp)
    fail(n, p, "t_rc",
         fmt::format("tRC ({} tCK) is shorter than tRAS + tRP ({} + {} tCK)", c.t_rc, c.t_ras,
                     c.t_rp));
  if (c.t_refi <= c.t_rfc)
    fail(n, p, "t_refi",
         fmt::format("tREFI ({} tCK) must exceed tRFC ({} tCK), or the device only refreshes",
                     c.t_refi, c.t_rfc));
  if (c.channel_width % (8 * c.pseudo_channels) != 0)
    fail(n, p, "channel_width",
         fmt::format("{} bits do not split into {} pseudo-channels of whole bytes", c.channel_width,
                     c.pseudo_channels));
  if (c.burst_length % c.beats_per_clock != 0)
    fail(n, p, "burst_length",
         fmt::format("a burst of {} beats is not a whole number of clocks at {} beats per clock",
                     c.burst_length, c.beats_per_clock));
  if (c.write_drain_low >= c.write_drain_high)
    fail(n, p, "write_drain_low",
         fmt::format("the drain stops at {} of the write queue, which must be below where it "
                     "starts (write_drain_high {})",
                     c.write_drain_low, c.write_drain_high));
  if (c.model != HbmModel::kBank) return;

  // The bank model's address mapping slices every field but the channel from address bits
  // (the channel count may be anything: hbm_address_map.h).
  const std::pair<const char*, std::int64_t> fields[] = {{"pseudo_channels", c.pseudo_channels},
                                                         {"bank_groups", c.bank_groups},
                                                         {"banks_per_group", c.banks_per_group},
                                                         {"columns", c.columns}};
  for (const auto& [key, v] : fields)
    if (!is_pow2(v))
      fail(n, p, key,
           fmt::format("{} is not a power of two: the address mapping slices address bits, so "
                       "it needs one",
                       v));
  const double rows = c.rows_exact();
  if (rows < 1 || rows != std::floor(rows) || !is_pow2(static_cast<std::int64_t>(rows)))
    fail_org(n, p,
             {"capacity", "stacks", "channels", "pseudo_channels", "bank_groups", "banks_per_group",
              "columns", "channel_width", "burst_length", "preset"},
             capacity_error(c, rows));
  const auto il = static_cast<std::int64_t>(c.interleave.value());
  if (!is_pow2(il) || il < c.atom_bytes() || il > c.row_bytes())
    fail_org(
        n, p,
        {"interleave", "columns", "channel_width", "pseudo_channels", "burst_length", "preset"},
        fmt::format("{} B must be a power of two between one burst ({} B) and one row ({} B)", il,
                    c.atom_bytes(), c.row_bytes()));
  std::string why;
  if (!HbmAddressMap::parse_order(c.address_mapping, nullptr, &why))
    fail(n, p, "address_mapping", why);
}

}  // namespace

double HbmConfig::rows_exact() const {
  const double per_row =
      static_cast<double>(total_channels() * pseudo_channels * banks_per_pc() * row_bytes());
  return per_row > 0 ? static_cast<double>(capacity.value()) / per_row : 0;
}

HbmConfig HbmConfig::from_preset(HbmPreset p) {
  config::Node n = config::Node::map();
  n.set("preset", config::Node::scalar(hbm_preset_name(p)));
  return schema().load(n, "hbm");
}

// Defaults describe the TPU v4 memory (FACTS.md §A.3): 32 GiB of HBM2 in 4 stacks; at the HBM2
// preset's 2.4 Gb/s, 4 stacks x 8 channels x 128 bit give 1.2288 TB/s (JAX's table: 1.23e12
// B/s; Google's docs round to 1200 GB/s). The 500 ns fixed latency is a placeholder of the
// order GPUs show for DRAM (FACTS.md §C.2: ~570-650 cycles at ~1.4-1.8 GHz, which includes
// their L2 and network); no TPU figure is published. Queue sizes and drain watermarks follow
// Ramulator 2's generic controller (32-entry queues, drain between 0.2 and 0.8 full).
// ASSUMPTION transfer_queue 16: the descriptors a requester (DMA engine) may have handed to the
// memory and not yet seen complete; no TPU figure is published (a placeholder). Each transfer
// is a whole tile of many requests, so the outstanding-request window (dma.outstanding), not
// this queue, limits a stream's rate; the queue bounds how far an engine runs ahead in tiles.
// Plausible range 4-64; at 16 it refuses nothing in configs/tpuv4.yaml, tpuv4_gemm.yaml and
// tpuv4_llm.yaml (models/hbm/README.md).
const config::SchemaOf<HbmConfig>& HbmConfig::schema() {
  static const HbmSchema s = [] {
    HbmSchema b("hbm", "high-bandwidth main memory (bank-level or bandwidth/latency model)");
    b.choice("model", &HbmConfig::model,
             {{"bank", HbmModel::kBank}, {"bandwidth", HbmModel::kBandwidth}}, std::string("bank"),
             "bank: commands, timings, FR-FCFS, refresh; bandwidth: first come first served "
             "at bandwidth x efficiency");
    b.preset_choice();
    b.integer("stacks", &HbmConfig::stacks, 4, 1, 64, "HBM stacks", "stacks")
        .bytes("capacity", &HbmConfig::capacity, std::string("32GiB"), Bytes(kMinCapacity),
               Bytes(kMaxCapacity),
               "total capacity, stacks x the capacity of a stack (sets the rows per bank)");
    b.preset_int("channels", &HbmConfig::channels, 1, 1024, "channels", "channels per stack")
        .preset_int("pseudo_channels", &HbmConfig::pseudo_channels, 1, 16, "PCs",
                    "pseudo-channels per channel, each with its own data bus and banks")
        .preset_int("channel_width", &HbmConfig::channel_width, 8, 4096, "bits",
                    "data bits per channel")
        .preset_int("bank_groups", &HbmConfig::bank_groups, 1, 64, "groups",
                    "bank groups per pseudo-channel")
        .preset_int("banks_per_group", &HbmConfig::banks_per_group, 1, 64, "banks",
                    "banks per bank group")
        .preset_int("columns", &HbmConfig::columns, 1, 1 << 16, "bursts",
                    "column (burst) addresses per row")
        .preset_int("burst_length", &HbmConfig::burst_length, 1, 64, "beats",
                    "data beats per column access")
        .preset_int("beats_per_clock", &HbmConfig::beats_per_clock, 1, 16, "beats",
                    "data beats per memory clock (tCK = beats_per_clock / data_rate)")
        .preset_int("command_buses", &HbmConfig::command_buses, 1, 2, "buses",
                    "command buses per channel: 2, one for row and one for column commands "
                    "(HBM: both in one clock); 1, one command a clock (DDR3)")
        .data_rate()
        .bandwidth();
    b.time("latency", &HbmConfig::latency, std::string("500ns"), 0, 1e-3,
           "fixed latency outside the DRAM timing (interface, on-chip network); the bandwidth "
           "model's whole unloaded latency")
        .real("efficiency", &HbmConfig::efficiency, 1.0, 0.01, 1.0,
              "bandwidth model: sustained fraction of peak bandwidth");
    const std::int64_t kMaxT = 10'000'000;
    struct T {
      const char* key;
      std::int64_t HbmConfig::*m;
      const char* doc;
    };
    const T timings[] = {
        {"t_cl", &HbmConfig::t_cl, "tCL: read command to first data"},
        {"t_cwl", &HbmConfig::t_cwl, "tCWL: write command to first data"},
        {"t_rcd_rd", &HbmConfig::t_rcd_rd, "tRCD: activate to read"},
        {"t_rcd_wr", &HbmConfig::t_rcd_wr, "tRCD: activate to write"},
        {"t_rp", &HbmConfig::t_rp, "tRP: precharge to activate"},
        {"t_ras", &HbmConfig::t_ras, "tRAS: activate to precharge"},
        {"t_rc", &HbmConfig::t_rc, "tRC: activate to activate, same bank"},
        {"t_wr", &HbmConfig::t_wr, "tWR: write recovery, end of write data to precharge"},
        {"t_rtp", &HbmConfig::t_rtp, "tRTP: read to precharge"},
        {"t_ccd_s", &HbmConfig::t_ccd_s, "tCCD_S: column to column, other bank group"},
        {"t_ccd_l", &HbmConfig::t_ccd_l, "tCCD_L: column to column, same bank group"},
        {"t_rrd_s", &HbmConfig::t_rrd_s, "tRRD_S: activate to activate, other bank group"},
        {"t_rrd_l", &HbmConfig::t_rrd_l, "tRRD_L: activate to activate, same bank group"},
        {"t_faw", &HbmConfig::t_faw, "tFAW: window holding at most four activates"},
        {"t_wtr_s", &HbmConfig::t_wtr_s, "tWTR_S: end of write data to read, other bank group"},
        {"t_wtr_l", &HbmConfig::t_wtr_l, "tWTR_L: end of write data to read, same bank group"},
        {"t_refi", &HbmConfig::t_refi, "tREFI: all-bank refresh interval per pseudo-channel"},
        {"t_rfc", &HbmConfig::t_rfc, "tRFC: all-bank refresh cycle time"},
        {"t_btr", &HbmConfig::t_btr, "read-to-write bus turnaround (RD->WR = tCL+tBL+tBTR-tCWL)"},
    };
    for (const auto& t : timings) b.preset_int(t.key, t.m, 0, kMaxT, "tCK", t.doc);
    b.text("address_mapping", &HbmConfig::address_mapping, std::string("ro_ba_co_bg_pc_ch"),
           "address fields MSB to LSB above the interleave block: ro row, ba bank, bg bank "
           "group, co column, pc pseudo-channel, ch channel")
        .bytes("interleave", &HbmConfig::interleave, std::string("256B"), Bytes(1), Bytes(1 << 20),
               "contiguous bytes on one channel and row before the next channel")
        .choice(
            "address_hash", &HbmConfig::address_hash,
            {{"xor", AddressHash::kXor}, {"mix", AddressHash::kMix}, {"none", AddressHash::kNone}},
            std::string("xor"),
            "xor: the channel and pseudo-channel fields XOR the address bits above them, "
            "so strides spread over channels (a pitch of a multiple of C blocks then uses "
            "one pseudo-channel per channel); mix: the channel as xor, the pseudo-channel "
            "XORs a mixing hash of the bits above it, so every pitch spreads over both; "
            "none: plain bit slicing")
        .choice("page_policy", &HbmConfig::page_policy,
                {{"open", PagePolicy::kOpen}, {"closed", PagePolicy::kClosed}}, std::string("open"),
                "open: rows stay open until a conflict; closed: auto-precharge after the last "
                "queued hit")
        .choice("scheduler", &HbmConfig::scheduler,
                {{"fr_fcfs", SchedulerKind::kFrFcfs}, {"fcfs", SchedulerKind::kFcfs}},
                std::string("fr_fcfs"),
                "fr_fcfs: ready row hits first, then oldest; fcfs: oldest request only")
        .choice("refresh", &HbmConfig::refresh,
                {{"all_bank", RefreshKind::kAllBank}, {"none", RefreshKind::kNone}},
                std::string("all_bank"), "all_bank: REFab every tREFI per pseudo-channel")
        .integer("read_queue", &HbmConfig::read_queue, 32, 1, 1024, "read queue per pseudo-channel",
                 "requests")
        .integer("write_queue", &HbmConfig::write_queue, 32, 1, 1024,
                 "write queue per pseudo-channel", "requests")
        .integer("transfer_queue", &HbmConfig::transfer_queue, 16, 1, 1 << 20,
                 "transfers a requester may have accepted and not yet completed; a full queue "
                 "refuses the next until one completes",
                 "transfers")
        .real("write_drain_high", &HbmConfig::write_drain_high, 0.8, 0.0, 1.0,
              "write-queue fill that starts a write drain")
        .real("write_drain_low", &HbmConfig::write_drain_low, 0.2, 0.0, 1.0,
              "write-queue fill that ends a write drain");
    b.check(validate);
    return b;
  }();
  return s;
}

}  // namespace systole::models

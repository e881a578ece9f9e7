#include "models/ici/ici_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

namespace systole::models {

namespace {

constexpr std::int64_t kMaxDim = 64;

/// Parses "4x4x8" / "4x4" / "8" into three dimensions (missing ones 1); false if malformed.
bool parse_shape(const std::string& s, std::array<std::int64_t, 3>& out) {
  std::vector<std::int64_t> dims;
  std::size_t i = 0;
  while (i <= s.size()) {
    std::size_t j = i;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j == i || j - i > 6) return false;
    dims.push_back(std::stoll(s.substr(i, j - i)));
    if (j == s.size()) break;
    if (s[j] != 'x') return false;
    i = j + 1;
  }
  if (dims.empty() || dims.size() > 3) return false;
  out = {{1, 1, 1}};
  std::copy(dims.begin(), dims.end(), out.begin());
  return true;
}

const config::Node* key_node(const config::Node& n, const char* key) {
  return n.is_map() ? n.find(key) : nullptr;
}

[[noreturn]] void fail(const config::Node& n, const std::string& p, const char* key,
                       const std::string& msg) {
  const config::Node* k = key_node(n, key);
  throw ConfigError(k ? k->origin() : n.origin(), p.empty() ? key : p + "." + key, msg);
}

/// The twisted torus of TPU v4 exists for k x k x 2k and k x 2k x 2k slices (any axis order;
/// also k x 2k in 2-D): every dimension above 1 is k or 2k, both present.
bool twistable(const std::array<std::int64_t, 3>& s) {
  std::int64_t k = 0;
  for (auto d : s)
    if (d > 1) k = k == 0 ? d : std::min(k, d);
  bool has_k = false, has_2k = false;
  for (auto d : s) {
    if (d <= 1) continue;
    if (d == k)
      has_k = true;
    else if (d == 2 * k)
      has_2k = true;
    else
      return false;
  }
  return has_k && has_2k;
}

void validate(const IciConfig& c, const config::Node& n, const std::string& p) {
  for (int d = 0; d < 3; ++d)
    if (c.shape[d] < 1)
      fail(n, p, "shape",
           fmt::format("dimension {} of '{}' is 0: every dimension needs at least one chip", d,
                       c.shape_text()));
  if (c.chips() > c.max_chips)
    fail(n, p, "shape",
         fmt::format("a {} slice has {} chips, more than the pod's {} (max_chips)", c.shape_text(),
                     c.chips(), c.max_chips));
  if (c.topology == IciTopologyKind::kTwistedTorus && !twistable(c.shape))
    fail(n, p, "topology",
         fmt::format("a twisted torus needs a k x k x 2k or k x 2k x 2k slice (e.g. 4x4x8, "
                     "4x8x8), not {}",
                     c.shape_text()));
}

/// The schema: the typed builder plus `shape`, a "4x4x8" string stored as three integers.
class IciSchema : public config::SchemaOf<IciConfig> {
 public:
  using SchemaOf::SchemaOf;
  IciSchema& shape() {
    Entry e;
    e.name = "shape";
    e.doc = "chips along x, y and z: \"4x4x8\" (3-D), \"4x4\" (2-D) or \"8\" (1-D)";
    e.type = config::ParamType::kString;
    e.default_text = "4x4x4";
    e.range_text = fmt::format("each dimension in [1, {}]", kMaxDim);
    e.assign = [](void* o, const config::Node& n, const std::string& p) {
      const std::string text = config::to_string(n, p);
      std::array<std::int64_t, 3> s{};
      if (!parse_shape(text, s))
        throw ConfigError(n.origin(), p,
                          fmt::format("'{}' is not a slice shape: write chips per dimension "
                                      "joined by 'x', e.g. 4x4x8, 4x4 or 8",
                                      text));
      for (auto d : s)
        if (d > kMaxDim)
          throw ConfigError(
              n.origin(), p,
              fmt::format("'{}': a dimension of {} chips is above {}", text, d, kMaxDim));
      static_cast<IciConfig*>(o)->shape = s;
    };
    add(std::move(e));
    return *this;
  }
};

}  // namespace

const char* ici_topology_name(IciTopologyKind k) {
  switch (k) {
    case IciTopologyKind::kTorus:
      return "torus";
    case IciTopologyKind::kMesh:
      return "mesh";
    case IciTopologyKind::kTwistedTorus:
      return "twisted_torus";
  }
  return "?";
}

std::string IciConfig::shape_text() const {
  int last = 2;
  while (last > 0 && shape[last] == 1) --last;
  std::string s = std::to_string(shape[0]);
  for (int d = 1; d <= last; ++d) s += "x" + std::to_string(shape[d]);
  return s;
}

// Sources (models/ici/README.md has the derivations):
// * TPU v4: six ICI links per chip forming a 3-D torus, 50 GB/s per link per direction
//   (Jouppi et al., "TPU v4: An Optically Reconfigurable Supercomputer for Machine Learning with
//   Hardware Support for Embeddings", ISCA 2023, as transcribed in public notes on the paper);
//   consistent with the 24 TB/s pod bisection of Google's Cloud TPU v4 page
//   (16 x 16 chips x 2 wrap-around links x 50 GB/s = 25.6 TB/s). Pod: 4096 chips (paper
//   abstract).
// * link_latency 1 us: the per-hop ICI latency used by the JAX scaling book (jax-ml/scaling-book
//   sharding.md, "~1 us per hop") and ASTRA-sim's TPU example (astra-sim/astra-sim
//   inputs/network/tpu_v3_8.yml: 1000 ns per link).
// * ASSUMPTION router_latency 20 ns (plausible 10-100 ns; about 21 cycles at 1050 MHz): no
//   published figure.
// * ASSUMPTION packet_size 512 B (plausible 64 B-4 KiB): the TPU v4 DMA moves data at 512 B
//   granularity (Cloud TPU docs, via public notes); the ICI packet size is not published.
// * ASSUMPTION credits 256 (plausible 16-1024): a message's packets one router input may hold.
//   Full rate needs credits x packet time >= 2 x link latency + router latency + packet time
//   (the credit loop): 199 packets of 512 B at 50 GB/s and 1 us; 256 covers it with margin.
// * ASSUMPTION dma_queue 16 (plausible 4-64): as hbm.transfer_queue, a chip's ICI DMA runs that
//   many transfers ahead.
const config::SchemaOf<IciConfig>& IciConfig::schema() {
  static const IciSchema s = [] {
    IciSchema b("ici", "inter-chip interconnect: torus links, routers, network model");
    b.choice("model", &IciConfig::model, {{"flow", IciModel::kFlow}, {"packet", IciModel::kPacket}},
             std::string("flow"),
             "flow: messages share links at max-min fair rates (fast); packet: every packet, "
             "every hop, credits and round-robin arbitration (reference)");
    b.choice("topology", &IciConfig::topology,
             {{"torus", IciTopologyKind::kTorus},
              {"mesh", IciTopologyKind::kMesh},
              {"twisted_torus", IciTopologyKind::kTwistedTorus}},
             std::string("torus"),
             "torus: wrap-around links on every dimension of 3 or more chips; mesh: none; "
             "twisted_torus: TPU v4's k x k x 2k / k x 2k x 2k twisted wrap-around");
    b.shape();
    b.bandwidth("link_bandwidth", &IciConfig::link_bandwidth, std::string("50GB/s"),
                BytesPerSecond(1e6), BytesPerSecond(1e13),
                "bandwidth of one link in one direction (TPU v4: 50 GB/s)");
    b.time("link_latency", &IciConfig::link_latency, std::string("1us"), 0, 1e-3,
           "latency of one link: wire, SerDes, FEC (TPU: ~1 us per hop)");
    b.time("router_latency", &IciConfig::router_latency, std::string("20ns"), 0, 1e-3,
           "one router traversal, input to output (ASSUMPTION)");
    b.bytes("packet_size", &IciConfig::packet_size, std::string("512B"), Bytes(16), Bytes(1 << 20),
            "payload bytes per packet (ASSUMPTION)");
    b.integer("credits", &IciConfig::credits, 256, 1, 1 << 20,
              "packets a message may hold in one router input buffer (ASSUMPTION)", "packets");
    b.integer("dma_queue", &IciConfig::dma_queue, 16, 1, 1 << 20,
              "transfers a chip's ICI DMA may have accepted and not completed (ASSUMPTION)",
              "transfers");
    b.integer("max_chips", &IciConfig::max_chips, 4096, 1, 1 << 20,
              "chips of the pod a slice is cut from (TPU v4: 4096)", "chips");
    b.check(validate);
    return b;
  }();
  return s;
}

}  // namespace systole::models

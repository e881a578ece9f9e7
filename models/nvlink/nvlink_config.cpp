#include "models/nvlink/nvlink_config.h"

#include <fmt/format.h>

#include "sim/config/node.h"

namespace systole::models {

namespace {

void validate(const NvlinkConfig& c, const config::Node& n, const std::string& p) {
  if (c.nvls && c.nvls_efficiency <= 0) {
    const config::Node* k = n.is_map() ? n.find("nvls_efficiency") : nullptr;
    throw ConfigError(k ? k->origin() : n.origin(),
                      p.empty() ? "nvls_efficiency" : p + ".nvls_efficiency",
                      "NVLS needs an nvls_efficiency above 0");
  }
}

}  // namespace

// Sources (models/nvlink/README.md has the derivations). Defaults: an HGX H100 8-GPU node.
// * NVLink4 on H100 SXM5: 18 links x 25 GB/s per direction = 450 GB/s (NVIDIA H100 Tensor Core
//   GPU Architecture whitepaper, §"Fourth-Generation NVLink and NVLink Network"); NVLink3 on
//   A100: 12 x 25 = 300 GB/s (NVIDIA A100 Tensor Core GPU Architecture whitepaper,
//   §"Third-Generation NVLink"). HGX H100: 8 GPUs on four third-generation NVSwitches with
//   in-switch reduction (SHARP, "NVLS" in NCCL) (H100 whitepaper, §"NVLink Switch System").
// * ASSUMPTION link_efficiency 0.783 (plausible 0.75-0.94): the payload share of a link that
//   NCCL's copies reach. 0.783 = 235 / 300, NCCL's own cap on ring bus bandwidth on A100
//   (NVIDIA/nccl src/graph/tuning.cc, `if (compCap80) busBw = std::min(busBw, 235.0f)`); the
//   NVLink packet format alone (a 16 B header flit per 256 B payload) would allow 0.94. H100
//   keeps A100's value: the same 25 GB/s per link, no published figure of its own.
// * ASSUMPTION link_latency 250 ns and switch_latency 100 ns (plausible 100 ns-1 us and 50-500 ns):
//   not published; NCCL's per-step latency (1.9-3.4 us, tuning.cc hwLat) dwarfs them.
// * ASSUMPTION packet_size 256 B (plausible 64-256 B): NVLink packets carry up to 256 B of data
//   (D. Foley and J. Danskin, "Ultra-Performance Pascal GPU and NVLink Interconnect", IEEE Micro
//   37(2), 2017); later generations' formats are unpublished.
// * ASSUMPTION credits 4096 packets (plausible 512-8192): covers the credit loop at 450 GB/s.
// * nvls_efficiency 0.85: NCCL's NVLS efficiency for Hopper (NVIDIA/nccl, nvlsEfficiency in its
//   tuning code, NCCL 2.19 on; read in public notes on that code, not in the repository).
// * nccl_channels 24 on A100: NCCL 2.18.5's topology search (src/graph/search.cc: 6 rings at
//   40 GB/s on 12 x 20 GB/s NVLinks, duplicated to 12; src/graph/connect.cc doubles them), as an
//   HGX A100 log shows ("Channel 23/24", NVIDIA/nccl-tests issue #100). 24 on H100 too, by the
//   same code (NCCL v2.18.5-1): 18 NVLinks x SM90_NVLINK_BW 20 GB/s (src/graph/topo.h) = 360
//   GB/s, whose first sm90 ring speed of 60 GB/s (search.cc sm90SpeedArrayIntra) fits 6 rings;
//   at 60 >= 50 GB/s they are duplicated to 12 (maxChannels 16, src/init.cc) and connect.cc
//   doubles them; no H100 log was read. Used by its rings (NVLS does all-reduces). nvls_channels
//   16: NCCL's NVLS_NCHANNELS (NVIDIA/nccl src/transport/nvls.cc). nvls_chunk 128 KiB:
//   NCCL 2.18.5's largest NVLS chunk per channel and head (src/enqueue.cc computeColl,
//   maxChunkSize; the kernel, src/collectives/device/all_reduce.h, gives each (channel, head) one
//   chunk per loop); NCCL halves it for smaller all-reduces (nccl_nvls_chunk). ASSUMPTION
//   nvls_window 4 (plausible 2-8): NVLS chunks in flight per channel and rank, half of NCCL_STEPS
//   as the Simple protocol's slices are.
const config::SchemaOf<NvlinkConfig>& NvlinkConfig::schema() {
  static const config::SchemaOf<NvlinkConfig> s = [] {
    config::SchemaOf<NvlinkConfig> b("nvlink",
                                     "NVLink/NVSwitch node: GPUs, links, switch, network model");
    b.choice("model", &NvlinkConfig::model,
             {{"flow", NvlinkModel::kFlow}, {"packet", NvlinkModel::kPacket}}, std::string("flow"),
             "flow: transfers share links at max-min fair rates (fast); packet: every packet, "
             "both hops, credits and round-robin arbitration (reference)");
    b.integer("gpus", &NvlinkConfig::gpus, 8, 2, 256, "GPUs on the NVSwitch fabric (HGX: 8)",
              "GPUs");
    b.integer("links_per_gpu", &NvlinkConfig::links_per_gpu, 18, 1, 64,
              "NVLinks from each GPU to the switches (A100: 12, H100: 18)", "links");
    b.bandwidth("link_bandwidth", &NvlinkConfig::link_bandwidth, std::string("25GB/s"),
                BytesPerSecond(1e6), BytesPerSecond(1e13),
                "one NVLink, one direction (NVLink3 and NVLink4: 25 GB/s)");
    b.real("link_efficiency", &NvlinkConfig::link_efficiency, 0.783, 0.05, 1.0,
           "share of the link rate that moves payload (ASSUMPTION)");
    b.time("link_latency", &NvlinkConfig::link_latency, std::string("250ns"), 0, 1e-3,
           "GPU port to switch port, one way (ASSUMPTION)");
    b.time("switch_latency", &NvlinkConfig::switch_latency, std::string("100ns"), 0, 1e-3,
           "one NVSwitch traversal, also charged at the sending GPU's port (ASSUMPTION)");
    b.bytes("packet_size", &NvlinkConfig::packet_size, std::string("256B"), Bytes(16),
            Bytes(1 << 20), "payload bytes per NVLink packet (ASSUMPTION)");
    b.integer("credits", &NvlinkConfig::credits, 4096, 1, 1 << 20,
              "packets a message may hold in one switch input (ASSUMPTION)", "packets");
    b.boolean("nvls", &NvlinkConfig::nvls, true,
              "in-switch reduction and multicast (NVSwitch 3 / SHARP; H100 yes, A100 no)");
    b.real("nvls_efficiency", &NvlinkConfig::nvls_efficiency, 0.85, 0.0, 1.0,
           "the switch's reduce/multicast rate as a share of the link rate (NCCL: Hopper 0.85)");
    b.integer("nccl_channels", &NvlinkConfig::nccl_channels, 24, 1, 64,
              "NCCL ring channels per collective (NCCL 2.18.5's search: 24 on HGX A100 and H100)",
              "channels");
    b.integer("nvls_channels", &NvlinkConfig::nvls_channels, 16, 1, 64,
              "NCCL NVLS channels per collective", "channels");
    b.bytes("nvls_chunk", &NvlinkConfig::nvls_chunk, std::string("128KiB"), Bytes(1024),
            Bytes(1 << 26),
            "NCCL's largest NVLS chunk per channel and head (smaller for small sizes)");
    b.integer("nvls_window", &NvlinkConfig::nvls_window, 4, 1, 64,
              "NVLS chunks a channel keeps in flight per rank (ASSUMPTION)", "chunks");
    b.check(validate);
    return b;
  }();
  return s;
}

NvlinkConfig load_nvlink_file(const std::string& path) {
  const config::Node root = config::resolve_bases(config::load_yaml_file(path));
  // A gpu_node system file (system.nvlink), or a file with a top-level nvlink section.
  const config::Node* sys = root.is_map() ? root.find("system") : nullptr;
  const config::Node* n = sys && sys->is_map() ? sys->find("nvlink") : nullptr;
  const std::string where = n ? "system.nvlink" : "nvlink";
  if (n == nullptr) n = root.is_map() ? root.find("nvlink") : nullptr;
  if (n == nullptr)
    throw ConfigError(root.origin(), "nvlink",
                      "the file has no nvlink section (system.nvlink or nvlink)");
  return NvlinkConfig::schema().load(*n, where);
}

}  // namespace systole::models

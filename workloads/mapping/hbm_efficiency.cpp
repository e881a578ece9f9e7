#include "workloads/mapping/hbm_efficiency.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "models/hbm/hbm_timing.h"

namespace systole::workloads {

namespace {

/// Bytes each probe port moves: long enough that the first request's latency is ~1% of the run.
constexpr std::uint64_t kProbeBytes = 512 * 1024;
/// The pitch between a probe's pieces: a bf16 matrix row of 36,864 columns (GPT-3's QKV), not a
/// power of two, so consecutive pieces land in unrelated rows, as a tile's rows do.
constexpr std::uint64_t kProbePitch = 73728;

/// Sustained fraction of peak: the chip's DMA engines (one probe port each, with the chip's
/// request size and outstanding depth, no interface latency: the mapper charges that apart)
/// each move kProbeBytes in pieces of `piece` (0: one linear range) from its own region.
double probe(const models::TpuChipConfig& chip, std::uint64_t piece) {
  models::HbmTiming h(chip.hbm);
  const auto engines =
      static_cast<std::uint64_t>(std::max<std::int64_t>(1, chip.tensor_cores * chip.dma.engines));
  const auto request = static_cast<std::uint32_t>(chip.dma.request.value());
  const auto outstanding = static_cast<std::uint32_t>(chip.dma.outstanding);
  const std::uint64_t region = h.address_map().capacity() / engines;
  for (std::uint64_t e = 0; e < engines; ++e) {
    const auto port = h.add_port(outstanding, request);
    const std::uint64_t base = e * region / 4096 * 4096;
    if (piece == 0)
      h.submit(port, models::DmaDescriptor::linear(base, kProbeBytes), false);
    else
      h.submit(port,
               models::DmaDescriptor::strided(base, kProbeBytes / piece, piece,
                                              std::max(kProbePitch, 2 * piece)),
               false);
  }
  const auto bytes = static_cast<double>(engines * kProbeBytes);
  return bytes / (static_cast<double>(h.run_until_idle()) * h.peak_bytes_per_cycle());
}

/// What decides a probe's result, as a cache key.
std::string key(const models::TpuChipConfig& chip) {
  const auto& m = chip.hbm;
  std::string k = std::to_string(static_cast<int>(m.preset)) + "/" + std::to_string(m.stacks);
  for (const double v : {static_cast<double>(m.channels),
                         static_cast<double>(m.pseudo_channels),
                         static_cast<double>(m.bank_groups),
                         static_cast<double>(m.banks_per_group),
                         static_cast<double>(m.columns),
                         static_cast<double>(m.capacity.value()),
                         static_cast<double>(m.burst_length),
                         static_cast<double>(m.beats_per_clock),
                         static_cast<double>(m.t_rtp),
                         m.data_rate,
                         static_cast<double>(m.t_cl),
                         static_cast<double>(m.t_rcd_rd),
                         static_cast<double>(m.t_rp),
                         static_cast<double>(m.t_ras),
                         static_cast<double>(m.t_rc),
                         static_cast<double>(m.t_faw),
                         static_cast<double>(m.t_rrd_s),
                         static_cast<double>(m.t_rrd_l),
                         static_cast<double>(m.t_ccd_s),
                         static_cast<double>(m.t_ccd_l),
                         static_cast<double>(m.t_refi),
                         static_cast<double>(m.t_rfc),
                         static_cast<double>(m.interleave.value()),
                         static_cast<double>(m.read_queue),
                         static_cast<double>(m.page_policy),
                         static_cast<double>(m.scheduler),
                         static_cast<double>(m.address_hash),
                         static_cast<double>(m.refresh),
                         static_cast<double>(chip.tensor_cores * chip.dma.engines),
                         static_cast<double>(chip.dma.request.value()),
                         static_cast<double>(chip.dma.outstanding)})
    k += "/" + std::to_string(v);
  return k + "/" + m.address_mapping;
}

}  // namespace

const std::vector<double>& HbmEfficiency::probe_pieces() {
  static const std::vector<double> pieces{512, 1024, 2048, 4096, 8192, 16384};
  return pieces;
}

HbmEfficiency::HbmEfficiency(const models::TpuChipConfig& chip) {
  if (chip.hbm.model != models::HbmModel::kBank) {
    strided_.assign(probe_pieces().size(), 1.0);  // the bandwidth model: no locality
    return;
  }
  static std::mutex mu;
  static std::map<std::string, std::pair<std::vector<double>, double>> cache;
  const std::string k = key(chip);
  const std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(k);
  if (it == cache.end()) {
    std::vector<double> s;
    for (const double p : probe_pieces()) s.push_back(probe(chip, static_cast<std::uint64_t>(p)));
    it = cache.emplace(k, std::make_pair(std::move(s), probe(chip, 0))).first;
  }
  strided_ = it->second.first;
  contiguous_ = it->second.second;
}

double HbmEfficiency::of(double piece_bytes, bool contiguous) const {
  if (contiguous) return contiguous_;
  const auto& p = probe_pieces();
  if (piece_bytes <= p.front()) return strided_.front();
  if (piece_bytes >= p.back()) return strided_.back();
  // Linear in log2 of the piece between the probes around it.
  const auto hi =
      static_cast<std::size_t>(std::upper_bound(p.begin(), p.end(), piece_bytes) - p.begin());
  const double x = std::log2(piece_bytes / p[hi - 1]) / std::log2(p[hi] / p[hi - 1]);
  return strided_[hi - 1] + x * (strided_[hi] - strided_[hi - 1]);
}

}  // namespace systole::workloads

#include "sim/app/point.h"

#include "sim/core/hash.h"
#include "sim/core/text.h"
#include "workloads/frontends/yaml_workload.h"

namespace systole::app {

PreparedPoint prepare_point(const Registry& reg, const sweep::Point& p) {
  const config::Node* sys = p.root.find("system");
  if (!sys->is_map())
    throw ConfigError(sys->origin(), "system",
                      std::string("expected a mapping with 'kind:', got ") + sys->kind_name());
  const config::Node* kind = sys->find("kind");
  if (!kind)
    throw ConfigError(sys->origin(), "system.kind",
                      "missing 'kind:' (known system kinds: " + join(reg.kinds("system")) + ")");
  const auto& entry =
      reg.get(config::to_string(*kind, "system.kind"), kind->origin(), "system.kind", "system");
  PreparedPoint out;
  out.system = reg.factory<models::SystemFactory>(entry)(*sys, "system");
  out.workload = workloads::load_workload(*p.root.find("workload"), "workload");
  out.resolved = p.root;
  config::Node full = entry.schema->defaults_node();
  full.set("kind", *kind);
  config::merge_into(full, *sys);
  out.resolved.set("system", full);
  return out;
}

std::string config_hash(const PreparedPoint& pp) {
  return short_hash(pp.resolved.to_yaml() + "\n---\n" + workloads::canonical_text(pp.workload));
}

stats::PointResult simulate_point(const Registry& reg, const sweep::Point& p, bool trace) {
  PreparedPoint pp = prepare_point(reg, p);
  models::RunOptions opt;
  opt.trace = trace;
  stats::PointResult r = pp.system->run(pp.workload, opt);
  const models::Peaks peaks = pp.system->peaks();
  r.metrics.f("peak_flops", "FLOP/s", "the system's dense bf16 peak", peaks.flops)
      .f("peak_hbm_bandwidth", "B/s", "the system's peak HBM bandwidth", peaks.hbm_bandwidth)
      .f("tdp_watts", "W", "the system's power limit (0: unpublished)", peaks.tdp_watts);
  r.config_yaml = pp.resolved.to_yaml();
  return r;
}

}  // namespace systole::app

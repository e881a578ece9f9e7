#pragma once
// The configs a component's presets fill in, built once: for schemas whose defaults come from a
// preset (HBM generations, GPU SMs), so docs and key defaults read each preset's value.
#include <cstddef>
#include <vector>

namespace systole::config {

/// The config C that preset `p` fills in (C::apply_preset); `presets` lists every preset in
/// the enum's order.
template <class C, class P, std::size_t N>
const C& preset_values(const P (&presets)[N], P p) {
  static const std::vector<C> all = [&presets] {
    std::vector<C> v;
    for (const P q : presets) {
      C c;
      c.apply_preset(q);
      v.push_back(c);
    }
    return v;
  }();
  return all[static_cast<std::size_t>(p)];
}

}  // namespace systole::config

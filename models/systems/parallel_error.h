#pragma once
// The error of a multi-device system's `parallel:` section (tpu_pod, gpu_node).

#include <string>

#include "sim/config/node.h"
#include "sim/core/error.h"

namespace systole::models {

/// Throws ConfigError for `<path>.parallel.<key>` of the system node `n`, placed at the key (or
/// at `parallel:`, or at the system when neither is written).
[[noreturn]] inline void throw_parallel_error(const config::Node& n, const std::string& path,
                                              const char* key, const std::string& msg) {
  const config::Node* k = n.is_map() ? n.find("parallel") : nullptr;
  const config::Node* kk = k && k->is_map() ? k->find(key) : nullptr;
  throw ConfigError(kk  ? kk->origin()
                    : k ? k->origin()
                        : n.origin(),
                    (path.empty() ? "" : path + ".") + "parallel." + key, msg);
}

}  // namespace systole::models

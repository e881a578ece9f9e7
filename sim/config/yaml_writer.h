#pragma once
// Node to YAML text. The text is the resolved config stored per point and hashed into its
// config_hash, so it must stay byte-identical to what yaml-cpp 0.7's YAML::Emitter writes; the
// direct writer only skips the emitter's per-character regex checks for scalars that are plain
// for certain, and asks the emitter about every other scalar.

#include <string>

#include "sim/config/node.h"

namespace systole::config {

/// Block maps, flow lists of scalars, block lists otherwise, null as "~" (the layout of
/// Node::to_yaml), written directly; no trailing newline.
std::string write_yaml(const Node& node);

/// The same text through YAML::Emitter: the reference write_yaml is tested against.
std::string write_yaml_reference(const Node& node);

}  // namespace systole::config

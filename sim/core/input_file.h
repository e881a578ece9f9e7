#pragma once
// Input files must be regular files: reading a directory, a FIFO or a device such as /dev/zero
// would fail obscurely, block forever or never end. These checks say what the path is instead.

#include <string>

#include "sim/core/error.h"

namespace systole {

/// What `path` is when it is not a regular file (symbolic links followed): "a directory",
/// "a FIFO", "a character device", "a block device", "a socket", "not a regular file"; ""
/// for a regular file and "missing" when nothing is there.
std::string non_regular_kind(const std::string& path);

/// Throws ConfigError at `origin` (`yaml_path` in the message) unless `path` is a regular
/// file: "'/dev/zero' is a character device, expected a file" ("does not exist" when missing).
void require_regular_file(const std::string& path, const Origin& origin,
                          const std::string& yaml_path = "");

/// Checks `path` with require_regular_file (errors at `origin`, or at the path itself when
/// `origin` is empty) and returns the whole file.
std::string read_regular_file(const std::string& path, const Origin& origin = {},
                              const std::string& yaml_path = "");

}  // namespace systole

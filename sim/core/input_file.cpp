#include "sim/core/input_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace systole {

std::string non_regular_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno == ENOENT || errno == ENOTDIR ? "missing" : "";
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

void require_regular_file(const std::string& path, const Origin& origin,
                          const std::string& yaml_path) {
  const std::string kind = non_regular_kind(path);
  if (kind.empty()) return;
  if (kind == "missing") throw ConfigError(origin, yaml_path, "file '" + path + "' does not exist");
  // At the path itself the name is already in front of the message.
  const std::string name = origin.file == path && origin.line == 0 ? "" : "'" + path + "' ";
  throw ConfigError(origin, yaml_path, name + "is " + kind + ", expected a file");
}

std::string read_regular_file(const std::string& path, const Origin& origin,
                              const std::string& yaml_path) {
  const Origin at = origin.file.empty() ? Origin{path} : origin;
  require_regular_file(path, at, yaml_path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(at, yaml_path, "cannot read '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ConfigError(at, yaml_path, "cannot read '" + path + "'");
  return ss.str();
}

}  // namespace systole

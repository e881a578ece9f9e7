#include "sim/config/search_path.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "sim/core/input_file.h"
#include "sim/core/text.h"

#ifndef SYSTOLE_SOURCE_DIR
#define SYSTOLE_SOURCE_DIR ""
#endif

namespace systole::config {

namespace fs = std::filesystem;

namespace {

std::string& experiment_file() {
  static std::string file;
  return file;
}

std::vector<Resolution>& recorded() {
  static std::vector<Resolution> r;
  return r;
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

/// "" -> ".", else the folder as written.
std::string folder_of(const std::string& file) {
  const std::string dir = fs::path(file).parent_path().string();
  return dir.empty() ? "." : dir;
}

bool synthetic(const Origin& o) { return o.file.empty() || o.file[0] == '<'; }

/// SYSTOLE_PATH's folders, in order (empty entries skipped).
std::vector<std::string> env_folders() {
  std::vector<std::string> out;
  const char* env = std::getenv("SYSTOLE_PATH");
  if (env == nullptr) return out;
  std::string s = env;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t colon = std::min(s.find(':', pos), s.size());
    if (colon > pos) out.push_back(s.substr(pos, colon - pos));
    pos = colon + 1;
  }
  return out;
}

std::string find_root() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path root = exe.parent_path().parent_path().parent_path();
    if (is_dir(root / "configs") && is_dir(root / "workloads")) return root.string();
  }
  const std::string built_in = SYSTOLE_SOURCE_DIR;
  if (!built_in.empty() && is_dir(fs::path(built_in) / "configs")) return built_in;
  return "";
}

/// Files near `name` in the folders searched, as names one could have written.
std::vector<std::string> neighbours(const std::string& name, const std::vector<SearchDir>& dirs) {
  const fs::path p(name);
  const fs::path sub = p.parent_path();
  std::vector<std::string> out;
  for (const auto& d : dirs) {
    if (!d.exists) continue;
    std::error_code ec;
    fs::directory_iterator it(fs::path(d.dir) / sub, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const std::string cand = (sub / it->path().filename()).string();
      if (std::find(out.begin(), out.end(), cand) == out.end()) out.push_back(cand);
    }
  }
  return out;
}

/// The folders searched, short: ". (the naming file's folder), the repository's configs/, ...".
std::string searched_text(const Origin& from, const std::vector<SearchDir>& dirs) {
  std::vector<std::string> parts;
  for (const auto& d : dirs)
    if (d.source != "repository") parts.push_back(d.dir);
  parts.push_back("the repository's configs/, configs/presets/, workloads/ and root");
  if (env_folders().empty()) parts.push_back("SYSTOLE_PATH (unset)");
  (void)from;
  return join(parts, ", ");
}

}  // namespace

void set_experiment_file(const std::string& path) { experiment_file() = path; }

const std::string& repository_root() {
  static const std::string root = find_root();
  return root;
}

std::vector<SearchDir> search_path(const Origin& from) {
  std::vector<SearchDir> out;
  auto add = [&](const std::string& dir, const std::string& source) {
    const std::string norm = fs::path(dir).lexically_normal().string();
    const std::string shown = norm.empty() ? "." : norm;
    for (const auto& d : out)
      if (d.dir == shown) return;
    out.push_back({shown, source, is_dir(shown)});
  };
  if (synthetic(from))
    add(".", "current directory (-p)");
  else
    add(folder_of(from.file), "folder of " + from.file);
  if (!experiment_file().empty()) add(folder_of(experiment_file()), "experiment's folder");
  const std::string& root = repository_root();
  if (!root.empty())
    for (const char* sub : {"configs", "configs/presets", "workloads", "."})
      add(std::string(sub) == "." ? root : (fs::path(root) / sub).string(), "repository");
  for (const auto& d : env_folders()) add(d, "SYSTOLE_PATH");
  return out;
}

std::string describe_search_path(const std::string& experiment) {
  std::error_code ec;
  const std::string cwd = fs::current_path(ec).string();
  std::string out =
      "Relative file names (base:, workload:, and the same keys with -p) are looked up in this\n"
      "order; the first match wins:\n"
      "  1. the folder of the file that names it (for -p: the current directory, " +
      cwd + ")\n";
  if (experiment.empty()) {
    out += "  2. the experiment's folder (simrun --describe paths EXP.yaml shows it)\n";
  } else {
    const std::string dir = folder_of(experiment);
    out += fmt::format("  2. the experiment's folder:\n       {:<48} {}\n", dir,
                       is_dir(dir) ? "exists" : "missing");
  }
  const std::string& root = repository_root();
  out += fmt::format("  3. the repository ({}):\n",
                     root.empty() ? "not found: no configs/ beside the executable" : root);
  if (!root.empty())
    for (const char* sub : {"configs", "configs/presets", "workloads", "."}) {
      const fs::path d = std::string(sub) == "." ? fs::path(root) : fs::path(root) / sub;
      out += fmt::format("       {:<48} {}\n", d.lexically_normal().string(),
                         is_dir(d) ? "exists" : "missing");
    }
  const auto env = env_folders();
  out += fmt::format("  4. SYSTOLE_PATH (colon-separated){}\n", env.empty() ? ": unset" : ":");
  for (const auto& d : env)
    out += fmt::format("       {:<48} {}\n", d, is_dir(d) ? "exists" : "missing");
  return out;
}

std::string find_on_search_path(const std::string& name, const Origin& from,
                                const std::string& yaml_path) {
  if (name.empty()) throw ConfigError(from, yaml_path, "empty file name");
  std::string odd;  // the first candidate that exists but is no regular file, e.g. a folder
  auto found = [&](const fs::path& p) {
    const std::string kind = non_regular_kind(p.string());
    if (!kind.empty() && kind != "missing" && odd.empty())
      odd = "'" + p.string() + "' is " + kind + ", expected a file";
    return kind.empty();
  };
  std::string path;
  const fs::path p(name);
  const auto dirs = search_path(from);
  if (p.is_absolute()) {
    if (found(p)) path = p.string();
  } else {
    for (const auto& d : dirs) {
      const fs::path cand = (fs::path(d.dir) / p).lexically_normal();
      if (d.exists && found(cand)) {
        path = cand.string();
        break;
      }
    }
  }
  if (path.empty() && !odd.empty()) throw ConfigError(from, yaml_path, odd);
  if (path.empty()) {
    const std::string where = p.is_absolute() ? "" : "; searched " + searched_text(from, dirs);
    throw ConfigError(
        from, yaml_path,
        fmt::format("file '{}' not found{}{}", name,
                    p.is_absolute() ? "" : did_you_mean(name, neighbours(name, dirs)), where));
  }
  Resolution r{name, from.str(), path};
  auto& all = recorded();
  const bool seen = std::any_of(all.begin(), all.end(), [&](const Resolution& x) {
    return x.name == r.name && x.path == r.path;
  });
  if (!seen) all.push_back(std::move(r));
  return path;
}

std::string Resolution::text() const { return fmt::format("{} ({}) -> {}", name, named_at, path); }

const std::vector<Resolution>& resolutions() { return recorded(); }

}  // namespace systole::config

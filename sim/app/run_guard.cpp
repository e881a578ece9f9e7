#include "sim/app/run_guard.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <set>

namespace systole::app {

namespace {

void collect_files(const config::Node& n, std::set<std::string>& out) {
  const std::string& f = n.origin().file;
  if (!f.empty() && f[0] != '<') out.insert(f);
  for (const auto& i : n.items()) collect_files(i, out);
  for (const auto& e : n.entries()) {
    if (!e.key_origin.file.empty() && e.key_origin.file[0] != '<') out.insert(e.key_origin.file);
    collect_files(e.value, out);
  }
}

}  // namespace

std::vector<std::string> input_files(const config::Experiment& ex,
                                     const std::vector<std::string>& more) {
  std::set<std::string> files{ex.file};
  collect_files(ex.root, files);
  collect_files(ex.sweep, files);
  files.insert(more.begin(), more.end());
  return {files.begin(), files.end()};
}

OutputArg output_arg(bool from_command_line, const config::Experiment& ex) {
  if (from_command_line) return {};
  const config::Node* n = config::get_path(ex.root, "output.file");
  return {n ? n->origin() : Origin{ex.file}, "output.file"};
}

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

int choose_jobs(int requested, bool force, std::string& note) {
  const int cores = available_cores();
  if (requested <= 0) return cores;
  if (requested <= cores || force) return requested;
  note = fmt::format(
      "--jobs {} is more than the {} core{} this process may use; running {} "
      "(--force-jobs to run {} anyway)",
      requested, cores, cores == 1 ? "" : "s", cores, requested);
  return cores;
}

}  // namespace systole::app

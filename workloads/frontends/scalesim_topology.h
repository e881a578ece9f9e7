#pragma once
// Reads a SCALE-Sim v2 topology CSV. Two formats, told apart by the header line:
//   conv  "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
//          Num Filter, Strides," (+ an optional 9th column: the column stride)
//   GEMM  "Layer, M, N, K," — a row (M, N, K) becomes the conv layer H=M, W=K, R=1, S=K, C=1.
// SCALE-Sim's reading rules are kept (ref NOTES.md): the first line is always a header; blank
// lines are skipped; the text after the last comma of a row is dropped, so rows must end with
// ','; one stride applies to both dimensions unless a 9th column is given; a conv layer whose
// name contains "DP" is split into one single-channel layer per channel. Bad rows are
// ConfigErrors naming file and line ("net.csv:4: Filter Height: expected a positive integer,
// got 'x'").

#include <string>
#include <vector>

#include "models/scalesim/scalesim_timing.h"

namespace systole::workloads {

/// One layer and the line it came from.
struct ScalesimTopologyLayer {
  models::scalesim::ConvLayer layer;
  int line = 0;
};

/// A parsed topology file.
struct ScalesimTopology {
  std::string path;
  std::string name;   ///< file name without directory and extension
  bool gemm = false;  ///< the `Layer, M, N, K` format
  std::vector<ScalesimTopologyLayer> layers;
  std::vector<std::string> warnings;  ///< "file:line: ..." for text SCALE-Sim would drop
};

ScalesimTopology load_scalesim_topology(const std::string& path);
ScalesimTopology parse_scalesim_topology(const std::string& text, const std::string& path);

}  // namespace systole::workloads

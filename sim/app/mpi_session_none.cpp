// Built when CMake found no MPI: --mpi is an error that says how to get it.
#include "sim/app/mpi_session.h"
#include "sim/core/error.h"

namespace systole::app {

MpiSession::MpiSession() {
  throw ConfigError({"<command line>"}, "--mpi",
                    "this simrun was built without MPI: install Open MPI (apt-get install "
                    "openmpi-bin libopenmpi-dev, as tools/setup.sh does) and rebuild, or run the "
                    "shards as separate processes with --shard I/N and join them with simrun "
                    "merge");
}

MpiSession::~MpiSession() = default;

int MpiSession::max_over_ranks(int v) const { return v; }

std::string MpiSession::from_rank0(const std::string& text) const { return text; }

}  // namespace systole::app

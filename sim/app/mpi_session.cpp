#include "sim/app/mpi_session.h"

// The C API only: without these, Open MPI's and MPICH's mpi.h pull in their deprecated C++
// bindings, which need the C++ MPI library at link time (undefined MPI::Comm::Comm()).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "sim/core/error.h"

namespace systole::app {

MpiSession::MpiSession() {
  int ready = 0;
  MPI_Initialized(&ready);
  if (!ready && MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
    throw SimError("--mpi: MPI_Init failed (start simrun with mpirun -n N)");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}

int MpiSession::max_over_ranks(int v) const {
  int out = v;
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

std::string MpiSession::from_rank0(const std::string& text) const {
  int n = rank_ == 0 ? static_cast<int>(text.size()) : 0;
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string out = rank_ == 0 ? text : std::string(static_cast<size_t>(n), '\0');
  if (n > 0) MPI_Bcast(out.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

}  // namespace systole::app

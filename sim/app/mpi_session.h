#pragma once
// The little of MPI that `simrun --mpi` needs: which rank this process is, and two collectives
// to agree on the outcome before rank 0 merges the shard files. mpi_session.cpp uses Open MPI
// (or any MPI); mpi_session_none.cpp is built when CMake finds no MPI and makes --mpi a clear
// error.

#include <string>

namespace systole::app {

/// MPI_Init on construction, MPI_Finalize on destruction. Every rank must call the collectives
/// in the same order.
class MpiSession {
 public:
  MpiSession();  // ConfigError (exit 2) when this simrun was built without MPI
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// The largest `v` of all ranks, on every rank.
  int max_over_ranks(int v) const;
  /// Rank 0's `text`, on every rank.
  std::string from_rank0(const std::string& text) const;

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace systole::app

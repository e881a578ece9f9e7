# Sweeps at scale (issue 14 items 1-3, issue 15's --resume matching): stable design point ids,
# sampling, shards (--shard, Slurm arrays, MPI ranks), `simrun merge`, and their tests.
set(_sh ${PROJECT_SOURCE_DIR})

target_sources(sim_core PRIVATE ${_sh}/sim/core/hash.cpp)
target_sources(sim_sweep PRIVATE ${_sh}/sim/sweep/sample.cpp ${_sh}/sim/sweep/shard.cpp)
target_sources(sim_stats_hdf5 PRIVATE ${_sh}/sim/stats/results_merge.cpp)
target_sources(simrun_lib PRIVATE
  ${_sh}/sim/app/resume.cpp ${_sh}/sim/app/shard_run.cpp ${_sh}/sim/app/merge_run.cpp)

# MPI is optional: without it `simrun --mpi` says how to get it (sim/app/mpi_session_none.cpp).
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND)
  target_sources(simrun_lib PRIVATE ${_sh}/sim/app/mpi_session.cpp)
  target_link_libraries(simrun_lib PRIVATE MPI::MPI_C)
  # Only the C API: without these, <mpi.h> pulls in Open MPI's C++ bindings, whose vtables need
  # libmpi_cxx (undefined MPI::Comm::Comm() at simrun's link without LTO).
  target_compile_definitions(simrun_lib PRIVATE OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)
  message(STATUS "simrun --mpi: with MPI (${MPIEXEC_EXECUTABLE})")
else()
  target_sources(simrun_lib PRIVATE ${_sh}/sim/app/mpi_session_none.cpp)
  message(STATUS "simrun --mpi: no MPI found (apt-get install openmpi-bin libopenmpi-dev)")
endif()

if(SYSTOLE_BUILD_TESTS)
  systole_test(shard_unit_tests
    SOURCES ${_sh}/tests/unit/sweep/test_sample.cpp ${_sh}/tests/unit/sweep/test_shard.cpp
            ${_sh}/tests/unit/stats/test_results_merge.cpp
    LINKS sim_sweep sim_stats_hdf5
    LABELS unit)

  systole_test(shard_e2e_tests
    SOURCES ${_sh}/tests/e2e/test_shard_e2e.cpp ${_sh}/tests/e2e/test_resume_e2e.cpp
            ${_sh}/tests/e2e/test_merge_check_e2e.cpp
    LINKS sim_stats_hdf5
    LABELS e2e)
  add_dependencies(shard_e2e_tests simrun)
  if(MPI_C_FOUND AND MPIEXEC_EXECUTABLE)
    target_compile_definitions(shard_e2e_tests PRIVATE SYSTOLE_MPIEXEC="${MPIEXEC_EXECUTABLE}")
  endif()
endif()

# bench_merge_make: the shard files tools/bench/merge_bench.sh merges (not a test).
add_executable(bench_merge_make ${_sh}/tools/bench/merge_bench_make.cpp)
target_link_libraries(bench_merge_make PRIVATE sim_stats_hdf5)
set_target_properties(bench_merge_make PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

# merge_corrupt: simrun merge of damaged inputs, outcomes counted (tools/reliability/
# merge_corrupt.sh; not a test).
add_executable(merge_corrupt ${_sh}/tools/reliability/merge_corrupt.cpp)
target_link_libraries(merge_corrupt PRIVATE sim_stats_hdf5)
set_target_properties(merge_corrupt PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

# Reliability (issue 15): regular-file inputs, checked and locked outputs, child processes that
# die with their parent, results files read in a sandbox; and their tests.
set(_rel ${PROJECT_SOURCE_DIR})

target_sources(sim_core PRIVATE ${_rel}/sim/core/input_file.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(reliability_unit_tests
    SOURCES ${_rel}/tests/unit/reliability/test_inputs.cpp
    LINKS sim_sweep sim_stats_hdf5 workloads
    LABELS unit)
endif()

# Reliability (issue 15): regular-file inputs, checked and locked outputs, child processes that
# die with their parent, results files read in a sandbox; and their tests.
set(_rel ${PROJECT_SOURCE_DIR})

target_sources(sim_core PRIVATE
  ${_rel}/sim/core/input_file.cpp
  ${_rel}/sim/core/output_path.cpp
  ${_rel}/sim/core/subprocess.cpp)
target_sources(sim_stats_hdf5 PRIVATE ${_rel}/sim/stats/results_sandbox.cpp)
target_sources(simrun_lib PRIVATE ${_rel}/sim/app/run_guard.cpp ${_rel}/sim/app/interrupt_note.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(reliability_unit_tests
    SOURCES ${_rel}/tests/unit/reliability/test_inputs.cpp
            ${_rel}/tests/unit/reliability/test_outputs.cpp
    LINKS sim_sweep sim_stats_hdf5 workloads
    LABELS unit)

  systole_test(reliability_e2e_tests
    SOURCES ${_rel}/tests/e2e/test_reliability.cpp
    LINKS sim_stats_hdf5
    LABELS e2e)
  add_dependencies(reliability_e2e_tests simrun systole-trace)
endif()

# SCALE-Sim v2 compatibility (issue 3, items 5 and 6): the scalesim timing model, the .cfg and
# topology readers, `simrun --scalesim-cfg`, its tests and the speed benchmark.
set(_ss ${PROJECT_SOURCE_DIR})

target_sources(models_timing PRIVATE
  ${_ss}/models/scalesim/scalesim_timing.cpp
  ${_ss}/models/scalesim/scalesim_geometry.cpp
  ${_ss}/models/scalesim/scalesim_memory.cpp
  ${_ss}/models/scalesim/scalesim_walk.cpp
  ${_ss}/models/scalesim/scalesim_walk_user.cpp
  ${_ss}/models/scalesim/scalesim_replay.cpp)

target_sources(workloads PRIVATE
  ${_ss}/workloads/frontends/scalesim_cfg.cpp
  ${_ss}/workloads/frontends/scalesim_topology.cpp)

target_sources(simrun_lib PRIVATE ${_ss}/sim/app/scalesim_run.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(scalesim_tests
    SOURCES ${_ss}/tests/unit/scalesim/test_scalesim_reference.cpp
            ${_ss}/tests/unit/scalesim/test_scalesim_replay.cpp
            ${_ss}/tests/unit/scalesim/test_scalesim_parsers.cpp
    LINKS workloads
    LABELS scalesim)

  systole_test(scalesim_e2e_tests
    SOURCES ${_ss}/tests/e2e/scalesim/test_scalesim_e2e.cpp
    LINKS sim_stats_hdf5 models_timing
    LABELS "e2e;scalesim")
  add_dependencies(scalesim_e2e_tests simrun)
endif()

# bench_scalesim: wall seconds per network beside SCALE-Sim's (not a timed test).
add_executable(bench_scalesim ${_ss}/tools/bench/scalesim_bench.cpp)
target_link_libraries(bench_scalesim PRIVATE workloads)
target_compile_definitions(bench_scalesim PRIVATE
  SCALESIM_BENCH_DATA="${PROJECT_SOURCE_DIR}/tests/data/scalesim")
set_target_properties(bench_scalesim PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

# ICI network (issue 13, items 1-3): torus/mesh/twisted topologies, the flow-level and
# packet-level network models, collectives as message schedules, the SystemC shell. Sources join
# the layer targets; tests and the benchmark are this part's own targets.
set(_ici ${PROJECT_SOURCE_DIR}/models/ici)
target_sources(models_timing PRIVATE
  ${_ici}/ici_config.cpp ${_ici}/ici_topology.cpp ${_ici}/ici_network.cpp
  ${_ici}/ici_flow_model.cpp ${_ici}/ici_packet_model.cpp ${_ici}/ici_schedule.cpp
  ${_ici}/ici_collective_plan.cpp ${_ici}/ici_collective_cost.cpp)

# Benchmark: a 1 GiB all-reduce on 16x16x16 with the flow model, and wall time vs chip count.
add_executable(bench_ici ${PROJECT_SOURCE_DIR}/tools/bench/ici_bench.cpp)
target_link_libraries(bench_ici PRIVATE models_timing)
set_target_properties(bench_ici PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

if(SYSTOLE_BUILD_TESTS)
  set(_t ${PROJECT_SOURCE_DIR}/tests/unit/ici)
  systole_test(ici_unit_tests
    SOURCES ${_t}/test_ici_config.cpp ${_t}/test_ici_topology.cpp ${_t}/test_ici_fidelity.cpp
            ${_t}/test_ici_collectives.cpp
    LINKS models_timing
    LABELS ici)
endif()

# The SystemC shell (IciNetworkModule) and its testbench.
target_sources(models_sc PRIVATE ${_ici}/ici_module.cpp)
target_sources(models_timing PRIVATE ${_ici}/ici_stats.cpp)
if(SYSTOLE_BUILD_TESTS)
  systole_test(ici_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/ici/test_ici_module.cpp
    LINKS models_sc
    LABELS ici)
endif()

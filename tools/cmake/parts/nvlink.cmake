# NVLink/NVSwitch node (issue 13, item 5): the switched fabric on the ICI network models, NCCL's
# collectives (ring, NVLS, direct) as message schedules, stats; the sweep benchmark and tests.
set(_nvl ${PROJECT_SOURCE_DIR}/models/nvlink)
target_sources(models_timing PRIVATE
  ${_nvl}/nvlink_config.cpp ${_nvl}/nvlink_network.cpp ${_nvl}/nccl_cost.cpp
  ${_nvl}/nccl_plan.cpp ${_nvl}/nvlink_stats.cpp)

# nccl-tests-style sweep on a node preset: time, algbw, busbw, alpha-beta, wall time.
add_executable(bench_nvlink ${PROJECT_SOURCE_DIR}/tools/bench/nvlink_bench.cpp)
target_link_libraries(bench_nvlink PRIVATE models_timing)
set_target_properties(bench_nvlink PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

if(SYSTOLE_BUILD_TESTS)
  set(_t ${PROJECT_SOURCE_DIR}/tests/unit/nvlink)
  systole_test(nvlink_unit_tests
    SOURCES ${_t}/test_nvlink_config.cpp ${_t}/test_nvlink_fidelity.cpp
            ${_t}/test_nccl_collectives.cpp
    LINKS models_timing
    LABELS nvlink)
  systole_test(nvlink_validation_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/validation/nvlink/test_nccl_allreduce.cpp
    LINKS models_timing
    LABELS validation nvlink)
endif()

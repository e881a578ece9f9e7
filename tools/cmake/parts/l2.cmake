# GPU L2 cache and SM-to-L2 crossbar (issue 11): tags, timing and stats join the timing layer,
# the SystemC shell joins models_sc; tests and the benchmark are this part's own targets.
set(_l2 ${PROJECT_SOURCE_DIR}/models/l2)
target_sources(models_timing PRIVATE
  ${_l2}/l2_config.cpp ${_l2}/l2_tags.cpp ${_l2}/l2_timing.cpp ${_l2}/l2_stats.cpp)
target_sources(models_sc PRIVATE ${_l2}/l2_module.cpp)

# Benchmark: line lookups per wall-second through the plain timing model (no SystemC).
add_executable(bench_l2 ${PROJECT_SOURCE_DIR}/tools/bench/l2_bench.cpp)
target_link_libraries(bench_l2 PRIVATE models_timing)
set_target_properties(bench_l2 PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

if(SYSTOLE_BUILD_TESTS)
  set(_t ${PROJECT_SOURCE_DIR}/tests/unit/l2)
  systole_test(l2_unit_tests
    SOURCES ${_t}/test_l2_tags.cpp ${_t}/test_l2_timing.cpp ${_t}/test_l2_config.cpp
            ${_t}/test_l2_equivalence.cpp ${_t}/l2_timing_v1.cpp
    LINKS models_timing
    LABELS l2)
  systole_test(l2_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/l2/test_l2_module.cpp
    LINKS models_sc
    LABELS l2)
endif()

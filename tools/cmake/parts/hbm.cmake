# Memory system (issue 4): bank-level HBM, SRAM banks, strided DMA. Sources join the layer
# targets; tests and the benchmark are this part's own targets.
set(_hbm ${PROJECT_SOURCE_DIR}/models/hbm)
target_sources(models_timing PRIVATE
  ${_hbm}/hbm_presets.cpp ${_hbm}/hbm_address_map.cpp ${_hbm}/hbm_device.cpp
  ${_hbm}/hbm_refresh.cpp ${_hbm}/hbm_controller.cpp ${_hbm}/hbm_decide.cpp
  ${_hbm}/hbm_timing.cpp ${_hbm}/hbm_stats.cpp
  ${PROJECT_SOURCE_DIR}/models/sram/sram_timing.cpp ${PROJECT_SOURCE_DIR}/models/sram/sram_layout.cpp
  ${PROJECT_SOURCE_DIR}/models/link/memory_link_config.cpp)
target_sources(models_sc PRIVATE ${_hbm}/hbm_module.cpp ${PROJECT_SOURCE_DIR}/models/sram/sram_module.cpp
  ${PROJECT_SOURCE_DIR}/models/common/timed_memory_module.cpp
  ${PROJECT_SOURCE_DIR}/models/link/memory_link_module.cpp)

# Benchmark: requests per wall-second through the bank-level model (plain C++, no SystemC).
add_executable(bench_hbm ${PROJECT_SOURCE_DIR}/tools/bench/hbm_bench.cpp)
target_link_libraries(bench_hbm PRIVATE models_timing)
set_target_properties(bench_hbm PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
# Benchmark: transfers per wall-second through the SystemC memory boundary (MemoryIf, HbmModule).
add_executable(bench_memory_boundary ${PROJECT_SOURCE_DIR}/tools/bench/memory_boundary_sc_bench.cpp)
target_link_libraries(bench_memory_boundary PRIVATE models_sc)
set_target_properties(bench_memory_boundary PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

if(SYSTOLE_BUILD_TESTS)
  set(_t ${PROJECT_SOURCE_DIR}/tests/unit/hbm)
  systole_test(hbm_unit_tests
    SOURCES ${_t}/test_hbm_legality.cpp ${_t}/test_hbm_system.cpp ${_t}/test_hbm_config.cpp
            ${_t}/test_hbm_address_map.cpp ${_t}/test_hbm_gpu.cpp
    LINKS models_timing
    LABELS hbm)
  # Golden equivalence: hashes of the command logs of many traffic mixes (its own executable, so
  # the model's speed work rebuilds and reruns it alone).
  systole_test(hbm_golden_tests
    SOURCES ${_t}/test_hbm_golden.cpp ${_t}/test_hbm_fast_paths.cpp
            ${_t}/test_hbm_bulk.cpp ${_t}/test_hbm_bound.cpp
    LINKS models_timing
    LABELS hbm)
  # The DMA test reads DmaModule's static transfer builder: it links the SystemC layer.
  systole_test(sram_dma_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/sram/test_sram.cpp
    LINKS models_sc
    LABELS hbm)
endif()

if(SYSTOLE_BUILD_TESTS)
  systole_test(hbm_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/hbm/test_hbm_tpu.cpp
            ${PROJECT_SOURCE_DIR}/tests/sc/hbm/test_hbm_module.cpp
            ${PROJECT_SOURCE_DIR}/tests/sc/hbm/test_latency_window.cpp
    LINKS models_sc
    LABELS hbm)
endif()

# Back-pressure at the memory boundary (issue 10): each memory kind behind a requester, directly
# and through a MemoryLink.
if(SYSTOLE_BUILD_TESTS)
  systole_test(memory_link_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/link/test_backpressure.cpp
    LINKS models_sc
    LABELS hbm)
endif()

if(SYSTOLE_BUILD_TESTS)
  systole_test(hbm_e2e_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/e2e/test_hbm_e2e.cpp
    LINKS sim_stats_hdf5
    LABELS e2e hbm)
  add_dependencies(hbm_e2e_tests simrun)
endif()

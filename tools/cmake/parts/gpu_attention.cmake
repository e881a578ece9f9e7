# FlashAttention forward on the GPU SM model (FA-2 / FA-3 kernels, plain C++) and its mapping
# onto a GPU device; unit tests and the speed benchmark. See models/gpu_sm/README.md.
target_sources(models_timing PRIVATE
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_attention_shape.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_attention.cpp)
target_sources(workloads PRIVATE
  ${PROJECT_SOURCE_DIR}/workloads/mapping/gpu_attention_mapping.cpp)

add_executable(bench_gpu_attention ${PROJECT_SOURCE_DIR}/tools/bench/gpu_attention_bench.cpp)
target_link_libraries(bench_gpu_attention PRIVATE workloads)
set_target_properties(bench_gpu_attention PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

if(SYSTOLE_BUILD_TESTS)
  systole_test(gpu_attention_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/gpu_sm/test_gpu_attention.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_gpu_attention_mapping.cpp
    LINKS workloads
    LABELS gpu_attention)
endif()
target_compile_definitions(bench_gpu_attention PRIVATE
  SYSTOLE_SOURCE_DIR_DEFAULT="${PROJECT_SOURCE_DIR}")

if(SYSTOLE_BUILD_TESTS)
  # FlashAttention on the SystemC GPU device, through simrun (one elaboration per point).
  systole_test(gpu_device_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/gpu_device/test_gpu_attention_device.cpp
    LINKS sim_stats_hdf5
    LABELS sc)
  add_dependencies(gpu_device_sc_tests simrun)
endif()

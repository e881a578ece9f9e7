# GPU SM: config + presets, occupancy, the GEMM CTA description, the warp-level reference and
# the tile-level model of the CTA main loop (plain C++); unit tests. See models/gpu_sm/README.md.
target_sources(models_timing PRIVATE
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_sm_config.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_sm_presets.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_occupancy.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_cta_tile.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_sm_run.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_sm_stats.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gmem_port.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/tensor_math.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/warp_program.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_sm_warp_model.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_sm_tile_model.cpp
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_sm_factory.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(gpu_sm_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/gpu_sm/test_gpu_sm_config.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/gpu_sm/test_occupancy.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/gpu_sm/test_tensor_math.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/gpu_sm/test_warp_model.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/gpu_sm/test_warp_vs_tile.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/gpu_sm/test_gpu_sm_speed.cpp
    LINKS models_timing
    LABELS gpu_sm)
endif()

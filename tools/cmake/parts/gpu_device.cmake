# GPU device config (SMs, L2, HBM, launch costs; presets configs/presets/a100_sxm4_80gb.yaml and
# h100_sxm5.yaml) in the timing layer, and the GPU GEMM mapping (CUTLASS/cuBLAS-like kernel
# choice with its analytical estimate) in the workload compiler; their unit tests.
target_sources(models_timing PRIVATE
  ${PROJECT_SOURCE_DIR}/models/systems/gpu_device/gpu_device_config.cpp
  ${PROJECT_SOURCE_DIR}/models/systems/gpu_device/gpu_power.cpp)
target_sources(workloads PRIVATE
  ${PROJECT_SOURCE_DIR}/workloads/mapping/gpu_gemm_mapping.cpp
  ${PROJECT_SOURCE_DIR}/workloads/lowering/gpu_lowering.cpp)
# The SystemC device: the SMs' shell, the device netlist and the gpu_device system kind.
target_sources(models_sc PRIVATE
  ${PROJECT_SOURCE_DIR}/models/gpu_sm/gpu_sm_module.cpp
  ${PROJECT_SOURCE_DIR}/models/systems/gpu_device/gpu_device_module.cpp
  ${PROJECT_SOURCE_DIR}/models/systems/gpu_device/gpu_device_settle.cpp
  ${PROJECT_SOURCE_DIR}/models/systems/gpu_device/gpu_device_system.cpp
  ${PROJECT_SOURCE_DIR}/models/systems/gpu_device/gpu_device_trace.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(gpu_mapping_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_gpu_device_config.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_gpu_gemm_mapping.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_gpu_conv_lowering.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_gpu_instances.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/gpu_device/test_gpu_power.cpp
    LINKS workloads
    LABELS gpu_mapping)
endif()

# TPU pod system (issue 13, items 3-6): collective layers, the tpu_pod system kind (SPMD: one
# chip role simulated, every ICI link simulated), data and tensor parallel mappings. Sources
# join the layer targets; tests are this part's own targets.
set(_pod ${PROJECT_SOURCE_DIR}/models/systems/tpu_pod)
target_sources(models_system_config PRIVATE ${_pod}/tpu_pod_config.cpp)
target_sources(models_sc PRIVATE ${_pod}/pod_collective_unit.cpp ${_pod}/tpu_pod_stats.cpp
               ${_pod}/tpu_pod_system.cpp ${_pod}/tpu_pod_plan.cpp
               ${_pod}/pod_stage_link.cpp ${_pod}/tpu_pod_pipeline.cpp ${_pod}/tpu_pod_pipeline_run.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(pod_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_parallel_plan.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_collective_layers.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_tpu_pod_config.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_pipeline_plan.cpp
    LINKS models_system_config
    LABELS pod)
  systole_test(pod_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/test_tpu_pod.cpp
            ${PROJECT_SOURCE_DIR}/tests/sc/test_tpu_pod_pipeline.cpp
    LINKS models_sc
    LABELS pod)
endif()

if(SYSTOLE_BUILD_TESTS)
  systole_test(pod_e2e_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/e2e/test_tpu_pod_e2e.cpp
    LINKS sim_stats_hdf5
    LABELS e2e pod)
  add_dependencies(pod_e2e_tests simrun)
endif()

# Validation: TPU v5e ICI all-gather measurements (tests/validation/README.md).
if(SYSTOLE_BUILD_TESTS)
  systole_test(pod_validation_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/validation/tpu_pod/test_tpuv5e_ici.cpp
    LINKS sim_stats_hdf5
    LABELS validation)
  add_dependencies(pod_validation_tests simrun)
endif()

# TPU pod system (issue 13, items 3-6): collective layers, the tpu_pod system kind (SPMD: one
# chip role simulated, every ICI link simulated), data and tensor parallel mappings. Sources
# join the layer targets; tests are this part's own targets.
if(SYSTOLE_BUILD_TESTS)
  systole_test(pod_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/workloads/test_collective_layers.cpp
    LINKS models_system_config
    LABELS pod)
endif()

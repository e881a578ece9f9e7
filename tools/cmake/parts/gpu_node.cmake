# GPU node system (issue 13, item 5): gpu_node — the GPUs of an NVLink/NVSwitch node (HGX A100 /
# H100), SPMD (one GPU's kernels simulated, every NVLink trunk simulated), NCCL collectives as
# layers, data, tensor and pipeline parallel. Sources join the SystemC layer; tests are this part's own.
set(_gn ${PROJECT_SOURCE_DIR}/models/systems/gpu_node)
target_sources(models_sc PRIVATE ${_gn}/gpu_node_config.cpp ${_gn}/node_collectives.cpp
               ${_gn}/gpu_node_system.cpp ${_gn}/gpu_node_stats.cpp ${_gn}/gpu_node_plan.cpp
               ${_gn}/gpu_node_pipeline.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(gpu_node_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/test_gpu_node.cpp
    LINKS models_sc
    LABELS sc gpu_node)
  systole_test(gpu_node_pipeline_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/test_gpu_node_pipeline.cpp
    LINKS models_sc
    LABELS sc gpu_node)
  systole_test(gpu_node_e2e_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/e2e/test_gpu_node_e2e.cpp
    LINKS sim_stats_hdf5
    LABELS e2e gpu_node)
  add_dependencies(gpu_node_e2e_tests simrun)
endif()

# Stats tree (issue 10): each component's stat declarations (plain C++, bound into the tree) and
# the chip's tree; the tree's unit tests.
target_sources(models_timing PRIVATE
  ${PROJECT_SOURCE_DIR}/models/common/unit_stats.cpp
  ${PROJECT_SOURCE_DIR}/models/common/memory_stats.cpp
  ${PROJECT_SOURCE_DIR}/models/dma/dma_stats.cpp
  ${PROJECT_SOURCE_DIR}/models/vector/vector_stats.cpp
  ${PROJECT_SOURCE_DIR}/models/sram/sram_stats.cpp)
target_sources(models_sc PRIVATE ${PROJECT_SOURCE_DIR}/models/systems/tpu_chip/tpu_chip_stats.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(stats_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/stats/test_stats_tree.cpp
    LINKS sim_stats
    LABELS unit)
  systole_test(dma_stats_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/stats/test_dma_stats.cpp
    LINKS models_timing
    LABELS unit)
endif()

if(SYSTOLE_BUILD_TESTS)
  systole_test(stats_e2e_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/e2e/test_stats_e2e.cpp
    LINKS sim_stats_hdf5
    LABELS e2e)
  add_dependencies(stats_e2e_tests simrun)
endif()

# MXU: numeric formats, PE-level reference (plain C++ core + SystemC shell), activity
# classification; unit tests (no SystemC) and SystemC testbenches. See models/mxu/README.md.
target_sources(models_timing PRIVATE
  ${PROJECT_SOURCE_DIR}/models/mxu/numerics.cpp
  ${PROJECT_SOURCE_DIR}/models/mxu/pe_array.cpp
  ${PROJECT_SOURCE_DIR}/models/mxu/mxu_stats.cpp
  ${PROJECT_SOURCE_DIR}/models/mxu/pe_pipeline.cpp
  ${PROJECT_SOURCE_DIR}/models/mxu/pe_operands.cpp)
target_sources(models_sc PRIVATE
  ${PROJECT_SOURCE_DIR}/models/mxu/pe_array_module.cpp
  ${PROJECT_SOURCE_DIR}/models/mxu/pe_mxu_module.cpp
  ${PROJECT_SOURCE_DIR}/models/mxu/mxu_factory.cpp)

if(SYSTOLE_BUILD_TESTS)
  systole_test(mxu_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/mxu/test_numerics.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/mxu/test_mxu_timing.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/mxu/test_pe_array.cpp
            ${PROJECT_SOURCE_DIR}/tests/unit/mxu/test_pe_pipeline.cpp
    LINKS models_timing
    LABELS mxu)
  systole_test(mxu_sc_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/sc/mxu/test_pe_vs_fold.cpp
            ${PROJECT_SOURCE_DIR}/tests/sc/mxu/test_mxu_chip.cpp
            ${PROJECT_SOURCE_DIR}/tests/sc/mxu/test_mxu_model.cpp
    LINKS models_sc sim_sweep
    LABELS mxu)
endif()

if(SYSTOLE_BUILD_TESTS)
  # mxu.model: fold vs pe through simrun.
  systole_test(mxu_e2e_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/e2e/test_mxu_model_e2e.cpp
    LINKS sim_stats_hdf5
    LABELS e2e mxu)
  add_dependencies(mxu_e2e_tests simrun)
endif()

# Where files are looked up (issue 14 item 4): the search path for `base:`, `workload:` and the
# same keys given with -p (sim/config/search_path.h), `simrun --describe paths`, and its tests.
set(_pa ${PROJECT_SOURCE_DIR})

target_sources(sim_config PRIVATE ${_pa}/sim/config/search_path.cpp)
# The repository root when the executable is not in <root>/build/bin (an installed copy).
set_source_files_properties(${_pa}/sim/config/search_path.cpp
  DIRECTORY ${_pa}/sim
  PROPERTIES COMPILE_DEFINITIONS SYSTOLE_SOURCE_DIR="${_pa}")

if(SYSTOLE_BUILD_TESTS)
  systole_test(paths_unit_tests
    SOURCES ${_pa}/tests/unit/config/test_search_path.cpp
    LINKS sim_config
    LABELS unit)

  systole_test(paths_e2e_tests
    SOURCES ${_pa}/tests/e2e/test_paths_e2e.cpp
    LINKS sim_stats_hdf5
    LABELS e2e)
  add_dependencies(paths_e2e_tests simrun)
endif()

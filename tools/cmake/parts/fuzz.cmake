# Fuzzing (issue 15 item 4): libFuzzer targets for the input readers, built only with
# -DSYSTOLE_FUZZ=ON under clang (the `sanitize` preset in CMakePresets.json, tools/fuzz.sh).
# The preset compiles everything with -fsanitize=fuzzer-no-link,address,undefined; the targets
# link libFuzzer's main with -fsanitize=fuzzer.
option(SYSTOLE_FUZZ "Build the libFuzzer targets (clang only; see tools/fuzz.sh)" OFF)

if(SYSTOLE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SYSTOLE_FUZZ needs clang (libFuzzer): cmake --preset sanitize")
  endif()
  set(_fz ${PROJECT_SOURCE_DIR}/tests/fuzz)
  set(_fuzz_targets experiment workload scalesim_cfg scalesim_topology results)
  set(_fuzz_links_experiment sim_sweep)
  set(_fuzz_links_workload workloads)
  set(_fuzz_links_scalesim_cfg workloads)
  set(_fuzz_links_scalesim_topology workloads)
  set(_fuzz_links_results sim_stats_hdf5 systole_trace_export)
  foreach(t ${_fuzz_targets})
    add_executable(fuzz_${t} ${_fz}/fuzz_${t}.cpp)
    target_link_libraries(fuzz_${t} PRIVATE ${_fuzz_links_${t}})
    target_include_directories(fuzz_${t} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(fuzz_${t} PRIVATE SYSTOLE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    set_target_properties(fuzz_${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  endforeach()
  add_custom_target(fuzzers DEPENDS fuzz_experiment fuzz_workload fuzz_scalesim_cfg
                                    fuzz_scalesim_topology fuzz_results)
endif()

# What the fuzzers and the catalogue found (unit), and the catalogue itself (e2e).
if(SYSTOLE_BUILD_TESTS)
  systole_test(fuzz_findings_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/reliability/test_fuzz_findings.cpp
    LINKS sim_config workloads
    LABELS unit)

  # The fuzz targets' scratch folders (tests/fuzz/scratch_dir.h), in the ordinary build.
  systole_test(fuzz_scratch_unit_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/reliability/test_fuzz_scratch.cpp
    LINKS sim_core
    LABELS unit)
  target_compile_definitions(fuzz_scratch_unit_tests PRIVATE
    SYSTOLE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

  systole_test(bad_inputs_e2e_tests
    SOURCES ${PROJECT_SOURCE_DIR}/tests/e2e/test_bad_inputs.cpp
    LINKS sim_core
    LABELS e2e)
  add_dependencies(bad_inputs_e2e_tests simrun systole-trace)
endif()

# systole_library(NAME SOURCES ... LINKS ...): a static layer library with the repo root on the
# include path, so headers are included as "sim/core/units.h", "models/mxu/mxu_timing.h", ...
function(systole_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINKS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(${name} PUBLIC ${ARG_LINKS})
endfunction()

# systole_test(NAME SOURCES ... LINKS ...): a Catch2 test executable (Catch's own main; a dummy
# sc_main satisfies libsystemc). Each TEST_CASE runs in its own process under ctest, so each
# SystemC testbench gets one elaboration. `-w NoTests` fails a ctest test whose name matches no
# TEST_CASE: a name with ';' is cut there by CMake's lists, and ten such tests ran nothing and
# passed until 2026-11-27.
function(systole_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINKS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LINKS} systole_test_main)
  catch_discover_tests(${name}
    EXTRA_ARGS -w NoTests
    PROPERTIES ENVIRONMENT SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 LABELS "${ARG_LABELS}")
  # The executable of every test of one component or unit (not labelled e2e or validation) is
  # built by the target component_tests; the sanitizer build builds and runs them all
  # (tools/setup.sh --sanitize). Only a test's first label reaches ctest (catch_discover_tests
  # passes "LABELS e2e hbm" on unquoted), so e2e and validation come first.
  if(NOT "e2e" IN_LIST ARG_LABELS AND NOT "validation" IN_LIST ARG_LABELS)
    set_property(GLOBAL APPEND PROPERTY SYSTOLE_COMPONENT_TESTS ${name})
  endif()
endfunction()

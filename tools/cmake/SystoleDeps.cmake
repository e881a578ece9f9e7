# Finds the Debian 12 packages (see tools/setup.sh). SystemC ships only a pkg-config file.
find_package(SystemCLanguage CONFIG QUIET)
if(NOT TARGET SystemC::systemc)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(SYSTEMC REQUIRED IMPORTED_TARGET GLOBAL systemc>=2.3.4)
  add_library(SystemC::systemc INTERFACE IMPORTED GLOBAL)
  target_link_libraries(SystemC::systemc INTERFACE PkgConfig::SYSTEMC)
endif()
target_compile_definitions(SystemC::systemc INTERFACE SC_INCLUDE_DYNAMIC_PROCESSES)

find_package(HDF5 REQUIRED COMPONENTS C)
find_package(fmt REQUIRED)
find_package(Boost REQUIRED COMPONENTS program_options)
find_package(yaml-cpp REQUIRED)
if(SYSTOLE_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
  include(Catch)
endif()

# HDF5's imported target carries junk definitions from h5cc; wrap just what we need.
add_library(systole_hdf5 INTERFACE)
target_include_directories(systole_hdf5 SYSTEM INTERFACE ${HDF5_INCLUDE_DIRS})
target_link_libraries(systole_hdf5 INTERFACE ${HDF5_C_LIBRARIES})

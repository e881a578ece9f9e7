# Writes generated/systole/version.h with the git revision of the sources (cmake -P, at every
# build): a results file must name the code that made it, also after commits or edits made
# without a new configure. "-dirty" marks tracked files changed since that commit. The header
# is rewritten only when its text changes, so an unchanged revision rebuilds nothing.
#   cmake -DSRC=<source dir> -DIN=<version.h.in> -DOUT=<version.h> -DVERSION=<x.y.z> -P this
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SRC}
  OUTPUT_VARIABLE SYSTOLE_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT SYSTOLE_GIT_REVISION)
  set(SYSTOLE_GIT_REVISION "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD --
    WORKING_DIRECTORY ${SRC} RESULT_VARIABLE _dirty ERROR_QUIET)
  if(_dirty EQUAL 1)
    string(APPEND SYSTOLE_GIT_REVISION "-dirty")
  endif()
endif()
set(PROJECT_VERSION ${VERSION})
configure_file(${IN} ${OUT} @ONLY)

# Defines `timerwheel_dev`, an INTERFACE target carrying warning and sanitizer
# flags for timerwheel's OWN targets (tests, examples, benchmarks, fuzzers),
# and `timerwheel_warnings`, the warnings alone (which timerwheel_dev links),
# for a target that must build without the sanitizers. Neither is installed
# or exported: consumers of timerwheel::timerwheel never see these flags.
#
# Usage: target_link_libraries(my_test PRIVATE timerwheel::timerwheel timerwheel_dev)
#
# Third-party headers (GoogleTest, Google Benchmark) come in through imported
# targets (GTest::*, benchmark::*), whose include directories CMake already
# treats as SYSTEM, so they do not trip these warnings.

include_guard(GLOBAL)

if(TARGET timerwheel_dev)
  return()
endif()

add_library(timerwheel_warnings INTERFACE)
add_library(timerwheel_dev INTERFACE)
target_link_libraries(timerwheel_dev INTERFACE timerwheel_warnings)

set(_timerwheel_gnu_like "$<OR:$<CXX_COMPILER_ID:GNU>,$<CXX_COMPILER_ID:Clang>,$<CXX_COMPILER_ID:AppleClang>>")
set(_timerwheel_msvc "$<CXX_COMPILER_ID:MSVC>")

# --- Warnings ---------------------------------------------------------------
target_compile_options(timerwheel_warnings INTERFACE
  "$<$<AND:${_timerwheel_gnu_like},$<COMPILE_LANGUAGE:CXX>>:-Wall;-Wextra;-Wpedantic;-Wshadow;-Wnon-virtual-dtor;-Wold-style-cast;-Wcast-align;-Woverloaded-virtual;-Wnull-dereference;-Wdouble-promotion;-Wimplicit-fallthrough>"
  "$<${_timerwheel_msvc}:/W4;/permissive->")
# The C sources (the C library's drop-ins, the C tests): the same warnings
# where C has them, and C's own about prototypes.
target_compile_options(timerwheel_warnings INTERFACE
  "$<$<COMPILE_LANG_AND_ID:C,GNU,Clang,AppleClang>:-Wall;-Wextra;-Wpedantic;-Wshadow;-Wcast-align;-Wnull-dereference;-Wdouble-promotion;-Wimplicit-fallthrough;-Wstrict-prototypes;-Wmissing-prototypes>")

# Implicit conversions that may change a value (-Wconversion) or its sign
# (-Wsign-conversion), in the library's headers and the project's own code.
option(TIMERWHEEL_WCONVERSION "Warn of implicit narrowing and sign conversions (-Wconversion)" OFF)
if(TIMERWHEEL_WCONVERSION)
  target_compile_options(timerwheel_warnings INTERFACE
    "$<${_timerwheel_gnu_like}:-Wconversion;-Wsign-conversion>")
endif()

if(TIMERWHEEL_WERROR)
  target_compile_options(timerwheel_warnings INTERFACE
    "$<${_timerwheel_gnu_like}:-Werror>"
    "$<${_timerwheel_msvc}:/WX>")
endif()

# --- Sanitizers -------------------------------------------------------------
if(NOT "${TIMERWHEEL_SANITIZE}" STREQUAL "")
  # Accept "address,undefined", "address;undefined" or "address undefined".
  string(REGEX REPLACE "[ ;]+" "," _timerwheel_sanitize "${TIMERWHEEL_SANITIZE}")
  string(REGEX REPLACE "^,|,$" "" _timerwheel_sanitize "${_timerwheel_sanitize}")

  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang)$")
    message(FATAL_ERROR
      "TIMERWHEEL_SANITIZE is only supported with GCC/Clang (compiler: ${CMAKE_CXX_COMPILER_ID})")
  endif()

  set(_timerwheel_sanitize_flags
    "-fsanitize=${_timerwheel_sanitize}"
    -fno-omit-frame-pointer
    -fno-sanitize-recover=all)

  # Fail at configure time (not at link time of the first test) if the
  # toolchain cannot build+link with these sanitizers, e.g. missing libasan.
  include(CheckCXXSourceCompiles)
  include(CMakePushCheckState)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_QUIET ON)
  set(CMAKE_REQUIRED_FLAGS "${_timerwheel_sanitize_flags}")
  list(JOIN CMAKE_REQUIRED_FLAGS " " CMAKE_REQUIRED_FLAGS)
  set(CMAKE_REQUIRED_LINK_OPTIONS ${_timerwheel_sanitize_flags})
  string(MAKE_C_IDENTIFIER "TIMERWHEEL_SANITIZE_WORKS_${_timerwheel_sanitize}" _timerwheel_check_var)
  check_cxx_source_compiles("int main() { return 0; }" ${_timerwheel_check_var})
  cmake_pop_check_state()
  if(NOT ${_timerwheel_check_var})
    list(JOIN _timerwheel_sanitize_flags " " _timerwheel_flags_text)
    message(FATAL_ERROR
      "TIMERWHEEL_SANITIZE='${TIMERWHEEL_SANITIZE}': ${CMAKE_CXX_COMPILER} cannot compile and link "
      "with '${_timerwheel_flags_text}'. Is the sanitizer runtime installed?")
  endif()

  message(STATUS "timerwheel: sanitizers enabled for own targets: ${_timerwheel_sanitize}")
  target_compile_options(timerwheel_dev INTERFACE ${_timerwheel_sanitize_flags})
  target_link_options(timerwheel_dev INTERFACE ${_timerwheel_sanitize_flags})
endif()

unset(_timerwheel_gnu_like)
unset(_timerwheel_msvc)

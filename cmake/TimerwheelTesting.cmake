# Test helpers for timerwheel. Included from tests/CMakeLists.txt.
#
#   timerwheel_add_test(NAME <name>
#                       SOURCES <files...>
#                       [LIBS <libs...>]
#                       [LABELS <labels...>]
#                       [SHARDS <n>])
#
# Builds executable <name> from SOURCES, links it to timerwheel::timerwheel,
# timerwheel_dev (warnings/sanitizers), the tests' support code
# (timerwheel_test_support: #include "support/x.hpp"), GTest::gtest_main and
# LIBS, and
# registers every GoogleTest case with ctest as "<name>.<Suite>.<Test>"
# (discovered when ctest runs, so a broken binary shows up as a failing test
# rather than a build error). LABELS become ctest labels (`ctest -L <label>`).
#
# SHARDS <n>: instead of one ctest entry (and one process) per GoogleTest case,
# n entries "<name>.shard<i>of<n>", each running every n-th case in one process
# (GoogleTest's own sharding). For binaries of hundreds of small typed cases,
# where starting a sanitized process per case costs more than the cases do;
# a failure still prints the case's full name.
# A test labelled `threads` (it starts threads) is also a dependency of the
# target `timerwheel_threaded_tests`, which builds only those binaries: the
# tsan preset builds it and runs `ctest -L threads`.

include_guard(GLOBAL)

find_package(GTest REQUIRED)
include(GoogleTest)

function(timerwheel_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;SHARDS" "SOURCES;LIBS;LABELS")

  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "timerwheel_add_test: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAME)
    message(FATAL_ERROR "timerwheel_add_test: NAME is required")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "timerwheel_add_test(${ARG_NAME}): SOURCES is required")
  endif()

  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE
    timerwheel::timerwheel
    timerwheel_dev
    timerwheel_test_support
    GTest::gtest_main
    ${ARG_LIBS})

  if("threads" IN_LIST ARG_LABELS)
    if(NOT TARGET timerwheel_threaded_tests)
      add_custom_target(timerwheel_threaded_tests)
    endif()
    add_dependencies(timerwheel_threaded_tests ${ARG_NAME})
    set_property(GLOBAL APPEND PROPERTY TIMERWHEEL_THREADED_TESTS ${ARG_NAME})
  endif()

  if(ARG_SHARDS)
    math(EXPR last "${ARG_SHARDS} - 1")
    foreach(index RANGE ${last})
      set(test_name "${ARG_NAME}.shard${index}of${ARG_SHARDS}")
      add_test(NAME ${test_name} COMMAND ${ARG_NAME} --gtest_brief=1)
      set_tests_properties(${test_name} PROPERTIES
        ENVIRONMENT "GTEST_TOTAL_SHARDS=${ARG_SHARDS};GTEST_SHARD_INDEX=${index}"
        LABELS "${ARG_LABELS}")
    endforeach()
    return()
  endif()

  gtest_discover_tests(${ARG_NAME}
    TEST_PREFIX "${ARG_NAME}."
    TEST_LIST ${ARG_NAME}_TESTS
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60)

  # Labels are applied by a ctest-time script run after discovery: in CMake
  # 3.25, gtest_discover_tests(PROPERTIES LABELS "a;b") splits the list apart.
  if(ARG_LABELS)
    set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}_labels.cmake")
    file(CONFIGURE OUTPUT "${labels_file}" @ONLY CONTENT [=[
if(NOT "${@ARG_NAME@_TESTS}" STREQUAL "")
  set_tests_properties(${@ARG_NAME@_TESTS} PROPERTIES LABELS "@ARG_LABELS@")
endif()
]=])
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
  endif()
endfunction()

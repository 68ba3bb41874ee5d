# Package test driver, run as a ctest test via `cmake -D... -P run_package_test.cmake`.
#
#   MODE                  find_package | add_subdirectory
#   CONSUMER_SOURCE_DIR   consumer project (tests/package/<mode>)
#   WORK_DIR              scratch directory, wiped first
#   GENERATOR, CXX_COMPILER, CONFIG   from the outer build
#   GENERATOR_PLATFORM, GENERATOR_TOOLSET, MAKE_PROGRAM   optional
#   TIMERWHEEL_SOURCE_DIR timerwheel source root (add_subdirectory mode)
#   TIMERWHEEL_BINARY_DIR outer build tree to `cmake --install` (find_package mode)
#   TIMERWHEEL_VERSION    version the consumer must find (find_package mode)
#
# find_package:     install the outer build into WORK_DIR/prefix, then
#                   configure+build the consumer with CMAKE_PREFIX_PATH=prefix.
# add_subdirectory: configure+build the consumer with TIMERWHEEL_SOURCE_DIR.
# Then run the consumer binary; any failing step fails the test.

cmake_minimum_required(VERSION 3.25)

foreach(var IN ITEMS MODE CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER TIMERWHEEL_SOURCE_DIR)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_package_test.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_step description)
  message(STATUS "[package:${MODE}] ${description}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "[package:${MODE}] FAILED (${rc}): ${description}")
  endif()
endfunction()

set(consumer_build_dir "${WORK_DIR}/build")
set(prefix_dir "${WORK_DIR}/prefix")

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(config_args)
if(NOT "${CONFIG}" STREQUAL "")
  set(config_args --config "${CONFIG}")
endif()

set(configure_args
  -S "${CONSUMER_SOURCE_DIR}"
  -B "${consumer_build_dir}"
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
if(NOT "${GENERATOR_PLATFORM}" STREQUAL "")
  list(APPEND configure_args -A "${GENERATOR_PLATFORM}")
endif()
if(NOT "${GENERATOR_TOOLSET}" STREQUAL "")
  list(APPEND configure_args -T "${GENERATOR_TOOLSET}")
endif()
if(NOT "${MAKE_PROGRAM}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(NOT "${CONFIG}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
endif()

if(MODE STREQUAL "find_package")
  if("${TIMERWHEEL_BINARY_DIR}" STREQUAL "")
    message(FATAL_ERROR "run_package_test.cmake: -DTIMERWHEEL_BINARY_DIR=... is required")
  endif()
  run_step("install ${TIMERWHEEL_BINARY_DIR} -> ${prefix_dir}"
    "${CMAKE_COMMAND}" --install "${TIMERWHEEL_BINARY_DIR}"
      --prefix "${prefix_dir}"
      --component timerwheel_Development
      ${config_args})
  list(APPEND configure_args
    "-DCMAKE_PREFIX_PATH=${prefix_dir}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    "-DTIMERWHEEL_EXPECTED_PREFIX=${prefix_dir}"
    "-DTIMERWHEEL_EXPECTED_VERSION=${TIMERWHEEL_VERSION}")
elseif(MODE STREQUAL "add_subdirectory")
  list(APPEND configure_args "-DTIMERWHEEL_SOURCE_DIR=${TIMERWHEEL_SOURCE_DIR}")
else()
  message(FATAL_ERROR "run_package_test.cmake: unknown MODE '${MODE}'")
endif()

run_step("configure consumer" "${CMAKE_COMMAND}" ${configure_args})
run_step("build consumer" "${CMAKE_COMMAND}" --build "${consumer_build_dir}" ${config_args})

set(consumer_exe "")
foreach(candidate IN ITEMS
    "${consumer_build_dir}/consumer"
    "${consumer_build_dir}/consumer.exe"
    "${consumer_build_dir}/${CONFIG}/consumer"
    "${consumer_build_dir}/${CONFIG}/consumer.exe")
  if(EXISTS "${candidate}" AND NOT IS_DIRECTORY "${candidate}")
    set(consumer_exe "${candidate}")
    break()
  endif()
endforeach()
if(consumer_exe STREQUAL "")
  message(FATAL_ERROR "[package:${MODE}] consumer executable not found under ${consumer_build_dir}")
endif()

run_step("run ${consumer_exe}" "${consumer_exe}")
message(STATUS "[package:${MODE}] OK")

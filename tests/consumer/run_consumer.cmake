# Installs Foehn from the build tree into a scratch prefix, then configures, builds and runs
# the consumer project against it. Run by ctest with -DFOEHN_BUILD_DIR, -DCONSUMER_SOURCE_DIR,
# -DWORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${FOEHN_BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE result OUTPUT_QUIET)
if(result)
  message(FATAL_ERROR "installing Foehn failed: ${result}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build"
                        "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE result)
if(result)
  message(FATAL_ERROR "configuring the consumer with find_package(Foehn) failed")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" RESULT_VARIABLE result)
if(result)
  message(FATAL_ERROR "building the consumer failed")
endif()
execute_process(COMMAND "${WORK_DIR}/build/foehn_consumer" RESULT_VARIABLE result
                OUTPUT_VARIABLE output)
message(STATUS "${output}")
if(result)
  message(FATAL_ERROR "the consumer failed: ${result}")
endif()

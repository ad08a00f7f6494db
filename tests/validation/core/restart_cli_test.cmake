# foehn-mountainwave restarted from a checkpoint continues bitwise: 6 steps in one run and
# 3 + 3 steps with -restart write byte-identical checkpoints (the checkpoint of a state is
# byte-identical whatever run wrote it). Also: a missing restart file exits 2.
# Run as: cmake -DAPP=<foehn-mountainwave> -DWORK=<dir> -P restart_cli_test.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(common -mesh_cells 8,8,6 -dt 30 -vtk 0 -sections 0 -foehn_backend cpu)
function(run_app dir)
  execute_process(COMMAND "${APP}" ${common} -output_dir "${WORK}/${dir}" ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "foehn-mountainwave ${ARGN} failed (${status}):\n${out}\n${err}")
  endif()
endfunction()
run_app(whole -max_steps 6)
run_app(first -max_steps 3)
run_app(second -max_steps 3 -restart "${WORK}/first/checkpoint_000003.h5")
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/whole/checkpoint_000006.h5"
                        "${WORK}/second/checkpoint_000006.h5" RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "the restarted run's checkpoint differs from the uninterrupted run's")
endif()
execute_process(COMMAND "${APP}" ${common} -output_dir "${WORK}/bad" -restart "${WORK}/missing.h5"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 2)
  message(FATAL_ERROR "a missing restart file should exit 2, got ${status}:\n${err}")
endif()
message(STATUS "restart is bitwise; missing checkpoint rejected: ${err}")

# Downstream use of an installed Foehn, run by ctest (tests/consumer/CMakeLists.txt) as
#   cmake -DSTEP=install|find_package|pkg_config -DFOEHN_BUILD_DIR=... -DCONSUMER_SOURCE_DIR=...
#         -DWORK_DIR=... -DPREFIX=... -DLIBDIR=... -DFOEHN_VERSION=... -DFOEHN_SOVERSION=...
#         -DCXX_COMPILER=... -DPKG_CONFIG_EXECUTABLE=... [-DFortran_COMPILER=...]
#         -P run_consumer.cmake
# install: installs the build tree into PREFIX and checks what landed there. find_package and
# pkg_config build project/main.cpp against PREFIX, with CMake and with a plain compiler
# command fed by `pkg-config --cflags --libs foehn`, and run it; pkg_config also builds and runs
# project/consumer.F90 through foehn-fortran.pc when given a Fortran compiler.
cmake_minimum_required(VERSION 3.25)
foreach(var IN ITEMS STEP FOEHN_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR PREFIX LIBDIR FOEHN_VERSION
                     FOEHN_SOVERSION)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is missing")
  endif()
endforeach()

# Runs a command; on failure stops with the step's name, the command and its output.
function(consumer_run step)
  cmake_parse_arguments(ARG "" "OUTPUT_VARIABLE;WORKING_DIRECTORY" "COMMAND" ${ARGN})
  if(NOT ARG_WORKING_DIRECTORY)
    set(ARG_WORKING_DIRECTORY "${WORK_DIR}")
  endif()
  execute_process(COMMAND ${ARG_COMMAND} WORKING_DIRECTORY "${ARG_WORKING_DIRECTORY}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT result EQUAL 0)
    string(JOIN " " command ${ARG_COMMAND})
    message(FATAL_ERROR "consumer ${STEP}: ${step} failed (${result})\n"
                        "command: ${command}\n--- output ---\n${output}\n--- errors ---\n${errors}")
  endif()
  if(ARG_OUTPUT_VARIABLE)
    set(${ARG_OUTPUT_VARIABLE} "${output}" PARENT_SCOPE)
  endif()
  message(STATUS "${step}: ok")
endfunction()

function(consumer_require_file step path)
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "consumer ${STEP}: ${step}: ${path} does not exist")
  endif()
endfunction()

# ---- install: the tree the consumers build against ------------------------------------------
if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
  consumer_run("installing Foehn from ${FOEHN_BUILD_DIR} (build every target first)"
               COMMAND "${CMAKE_COMMAND}" --install "${FOEHN_BUILD_DIR}" --prefix "${PREFIX}")
  set(lib "${PREFIX}/${LIBDIR}")
  # The versioned library and its soname/dev links: libfoehn.so -> .so.0.1 -> .so.0.1.0.
  consumer_require_file("versioned library" "${lib}/libfoehn.so.${FOEHN_VERSION}")
  foreach(link IN ITEMS "libfoehn.so.${FOEHN_SOVERSION}" "libfoehn.so")
    if(NOT IS_SYMLINK "${lib}/${link}")
      message(FATAL_ERROR "consumer install: ${lib}/${link} is not a link to the library")
    endif()
  endforeach()
  find_program(READELF readelf)
  if(READELF)
    consumer_run("reading libfoehn's dynamic section" COMMAND "${READELF}" -d
                 "${lib}/libfoehn.so.${FOEHN_VERSION}" OUTPUT_VARIABLE dynamic)
    if(NOT dynamic MATCHES "Library soname: \\[libfoehn\\.so\\.${FOEHN_SOVERSION}\\]")
      message(FATAL_ERROR "consumer install: libfoehn's soname is not "
                          "libfoehn.so.${FOEHN_SOVERSION}:\n${dynamic}")
    endif()
  endif()
  consumer_require_file("CMake package" "${lib}/cmake/Foehn/FoehnConfig.cmake")
  consumer_require_file("pkg-config file" "${lib}/pkgconfig/foehn.pc")
  consumer_require_file("PETSc hand-off header" "${PREFIX}/include/foehn/petsc/matrix_handoff.hpp")
  consumer_require_file("generated config header" "${PREFIX}/include/foehn/config.hpp")
  consumer_require_file("shipped data" "${PREFIX}/share/foehn/mechanisms/robertson.json")
  # An installed program finds the versioned libfoehn through its install rpath
  # ($ORIGIN/../lib), with no LD_LIBRARY_PATH.
  set(ENV{LD_LIBRARY_PATH} "")
  consumer_run("running the installed foehn-mesh -help (install rpath)"
               COMMAND "${PREFIX}/bin/foehn-mesh" -help)
  return()
endif()

if(NOT EXISTS "${PREFIX}/${LIBDIR}/pkgconfig/foehn.pc")
  message(FATAL_ERROR "consumer ${STEP}: no installed Foehn in ${PREFIX} (consumer.install "
                      "sets it up: ctest -R consumer runs it first)")
endif()
set(build "${WORK_DIR}/${STEP}")
file(REMOVE_RECURSE "${build}")
file(MAKE_DIRECTORY "${build}")

# ---- find_package(Foehn) from Fortran, CMake's default generator ---------------------------
# fortran_project/ (next to project/): a source with PETSc's Fortran headers and Foehn's
# module. The generator is CMake's default (Unix Makefiles), whose own Fortran dependency scan
# never finished on PETSc's headers until FoehnConfig.cmake limited it: the build gets
# 600 s (it takes seconds) and a timeout fails the test instead of hanging ctest.
if(STEP STREQUAL "find_package_fortran")
  consumer_run("configuring the Fortran consumer with find_package(Foehn), default generator"
               COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}/../fortran_project"
                       -B "${build}" "-DCMAKE_PREFIX_PATH=${PREFIX}" -DCMAKE_BUILD_TYPE=Release
                       "-DCMAKE_Fortran_COMPILER=${Fortran_COMPILER}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
               OUTPUT_VARIABLE configure_output)
  if(NOT configure_output MATCHES "CMAKE_DEPENDS_IN_PROJECT_ONLY ON")
    message(FATAL_ERROR "consumer ${STEP}: FoehnConfig.cmake did not limit the Makefile "
                        "generators' Fortran dependency scan:\n${configure_output}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}" WORKING_DIRECTORY "${WORK_DIR}"
                  TIMEOUT 600 RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "consumer ${STEP}: building with the default generator failed or ran "
                        "past 600 s (${result})\n${output}\n${errors}")
  endif()
  consumer_run("running the Fortran PETSc consumer" COMMAND "${build}/foehn_fortran_petsc_consumer"
               OUTPUT_VARIABLE output)
  message(STATUS "${output}")
  return()
endif()

# ---- find_package(Foehn): the CMake consumer --------------------------------------------------
if(STEP STREQUAL "find_package")
  consumer_run("configuring the consumer with find_package(Foehn)"
               COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${build}"
                       "-DCMAKE_PREFIX_PATH=${PREFIX}" -DCMAKE_BUILD_TYPE=Release
               OUTPUT_VARIABLE configure_output)
  string(REGEX MATCH "Foehn [^\n]*data in [^\n]*" summary "${configure_output}")
  message(STATUS "${summary}")
  consumer_run("building the consumer (Foehn::foehn alone brings PETSc and MPI)"
               COMMAND "${CMAKE_COMMAND}" --build "${build}")
  consumer_run("running the consumer" COMMAND "${build}/foehn_consumer" OUTPUT_VARIABLE output)
  message(STATUS "${output}")
  return()
endif()

# ---- pkg-config foehn: a plain compiler command, as a Makefile would write it ----------------
if(STEP STREQUAL "pkg_config")
  if(NOT PKG_CONFIG_EXECUTABLE OR NOT CXX_COMPILER)
    message(FATAL_ERROR "consumer pkg_config: -DPKG_CONFIG_EXECUTABLE and -DCXX_COMPILER needed")
  endif()
  # As foehn.pc tells its users: PETSc's pkg-config folder from the file, put first. (Not
  # `pkg-config --variable`: it resolves Requires first, and the PETSc on pkg-config's default
  # path, if any, may be of another release.)
  file(STRINGS "${PREFIX}/${LIBDIR}/pkgconfig/foehn.pc" petsc_pc_dir
       REGEX "^petsc_pkgconfig_dir=")
  string(REGEX REPLACE "^petsc_pkgconfig_dir=" "" petsc_pc_dir "${petsc_pc_dir}")
  consumer_require_file("PETSc.pc named by foehn.pc" "${petsc_pc_dir}/PETSc.pc")
  set(ENV{PKG_CONFIG_PATH} "${petsc_pc_dir}:${PREFIX}/${LIBDIR}/pkgconfig")
  consumer_run("pkg-config --modversion foehn"
               COMMAND "${PKG_CONFIG_EXECUTABLE}" --modversion foehn OUTPUT_VARIABLE version)
  if(NOT version STREQUAL FOEHN_VERSION)
    message(FATAL_ERROR "consumer pkg_config: foehn.pc says version '${version}', "
                        "the build is ${FOEHN_VERSION}")
  endif()
  consumer_run("pkg-config --variable=pkgdatadir foehn"
               COMMAND "${PKG_CONFIG_EXECUTABLE}" --variable=pkgdatadir foehn
               OUTPUT_VARIABLE datadir)
  consumer_require_file("data from foehn.pc's pkgdatadir" "${datadir}/mechanisms/robertson.json")
  consumer_run("pkg-config --cflags foehn (requires PETSc)"
               COMMAND "${PKG_CONFIG_EXECUTABLE}" --cflags foehn OUTPUT_VARIABLE cflags)
  consumer_run("pkg-config --libs foehn"
               COMMAND "${PKG_CONFIG_EXECUTABLE}" --libs foehn OUTPUT_VARIABLE libs)
  foreach(module IN ITEMS foehn PETSc)
    consumer_run("pkg-config --variable=libdir ${module}"
                 COMMAND "${PKG_CONFIG_EXECUTABLE}" --variable=libdir ${module}
                 OUTPUT_VARIABLE libdir_${module})
  endforeach()
  message(STATUS "Cflags: ${cflags}\nLibs: ${libs}")
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  separate_arguments(libs UNIX_COMMAND "${libs}")
  # Neither libdir is on the loader's default path: rpaths, as foehn.pc's comment says.
  consumer_run("compiling and linking with pkg-config's flags (no CMake, no MPI wrapper)"
               COMMAND "${CXX_COMPILER}" -std=c++20 -O1 ${cflags}
                       "${CONSUMER_SOURCE_DIR}/main.cpp" -o "${build}/foehn_consumer_pc" ${libs}
                       "-Wl,-rpath,${libdir_foehn}" "-Wl,-rpath,${libdir_PETSc}"
               WORKING_DIRECTORY "${build}")
  set(ENV{LD_LIBRARY_PATH} "")
  consumer_run("running the pkg-config consumer" COMMAND "${build}/foehn_consumer_pc"
               OUTPUT_VARIABLE output)
  message(STATUS "${output}")

  # The C ABI from C: the in-tree C test program (tests/c_api/c_api_test.c), now compiled by the C
  # compiler against the installed foehn.h with foehn.pc's flags.
  consumer_run("compiling and linking the C program with pkg-config's flags"
               COMMAND "${C_COMPILER}" -std=c11 -O1 -Wall -Werror ${cflags} "${C_API_TEST_SOURCE}"
                       -o "${build}/foehn_consumer_c" ${libs} -lm
                       "-Wl,-rpath,${libdir_foehn}" "-Wl,-rpath,${libdir_PETSc}"
               WORKING_DIRECTORY "${build}")
  consumer_run("running the C consumer" COMMAND "${build}/foehn_consumer_c"
               OUTPUT_VARIABLE output)
  message(STATUS "${output}")

  # The Fortran module: foehn-fortran.pc (on top of foehn.pc), a plain gfortran command.
  if(NOT Fortran_COMPILER)
    message(STATUS "Foehn built without Fortran: no Fortran consumer")
    return()
  endif()
  consumer_require_file("installed Fortran module" "${PREFIX}/include/foehn/fortran/foehn.mod")
  consumer_require_file("installed Fortran module (the part foehn.mod re-exports)"
                        "${PREFIX}/include/foehn/fortran/foehn_base.mod")
  consumer_run("pkg-config --cflags --libs foehn-fortran"
               COMMAND "${PKG_CONFIG_EXECUTABLE}" --cflags --libs foehn-fortran
               OUTPUT_VARIABLE fortran_flags)
  message(STATUS "foehn-fortran: ${fortran_flags}")
  separate_arguments(fortran_flags UNIX_COMMAND "${fortran_flags}")
  consumer_run("compiling and linking consumer.F90 with foehn-fortran.pc's flags"
               COMMAND "${Fortran_COMPILER}" -std=f2018 "${CONSUMER_SOURCE_DIR}/consumer.F90"
                       -o "${build}/foehn_consumer_fortran" ${fortran_flags}
                       "-Wl,-rpath,${libdir_foehn}" "-Wl,-rpath,${libdir_PETSc}"
               WORKING_DIRECTORY "${build}")
  consumer_run("running the Fortran consumer" COMMAND "${build}/foehn_consumer_fortran"
               OUTPUT_VARIABLE output)
  message(STATUS "${output}")
  return()
endif()

message(FATAL_ERROR
        "run_consumer.cmake: unknown -DSTEP=${STEP} (install, find_package, find_package_fortran, "
      "pkg_config)")

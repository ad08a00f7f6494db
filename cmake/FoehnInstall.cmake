# Install libfoehn, its headers and data, a CMake package (find_package(Foehn), Foehn::foehn)
# and a pkg-config file (foehn.pc) for Makefile and Fortran builds.
include(CMakePackageConfigHelpers)

# 0.x is not ABI-stable: every minor release may break it, so the soname carries the minor
# version too (libfoehn.so.0.1). The companion libraries are versioned alike.
foreach(_foehn_lib IN ITEMS foehn foehn_particles_io foehn_chemistry_cvode foehn_fortran)
  if(TARGET ${_foehn_lib})
    set_target_properties(${_foehn_lib} PROPERTIES
      VERSION ${PROJECT_VERSION}
      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  endif()
endforeach()

# PETSc and MPI are private to libfoehn's link, but the hand-off headers (foehn/petsc/*.hpp)
# include petsc*.h and mpi.h, and a program that hands matrices to PETSc calls PETSc itself.
# The installed Foehn::foehn therefore brings Foehn::petsc, which FoehnConfig.cmake defines from
# the very PETSc this build used. The build tree is unchanged: its targets link
# PkgConfig::PETSC and MPI::MPI_CXX themselves where they need them.
target_link_libraries(foehn INTERFACE $<INSTALL_INTERFACE:Foehn::petsc>)

install(TARGETS foehn EXPORT FoehnTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Every public header, including the CUDA-only ones (foehn/fe/cuda/*.cuh and
# foehn/runtime/cuda_check.hpp) that a consumer's .cu file uses to assemble operators of its own
# (foehn/fe/define_operator.hpp); they refuse to compile without the CUDA toolkit.
install(DIRECTORY include/foehn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/include/foehn/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/foehn)
# Shipped inputs (chemistry mechanisms): <prefix>/share/foehn, announced to consumers as
# Foehn_DATA_DIR (CMake) and pkgdatadir (pkg-config). The library itself never looks there:
# programs pass mechanism paths explicitly.
set(FOEHN_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/foehn)
install(DIRECTORY data/ DESTINATION ${FOEHN_INSTALL_DATADIR})

# ---- CMake package ---------------------------------------------------------------------------
set(FOEHN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Foehn)
install(EXPORT FoehnTargets NAMESPACE Foehn:: DESTINATION ${FOEHN_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/FoehnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/FoehnConfig.cmake
  INSTALL_DESTINATION ${FOEHN_INSTALL_CMAKEDIR}
  PATH_VARS FOEHN_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/FoehnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/FoehnConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/FoehnConfigVersion.cmake
        DESTINATION ${FOEHN_INSTALL_CMAKEDIR})

# ---- pkg-config ------------------------------------------------------------------------------
# foehn.pc finds its prefix from its own location (${pcfiledir}), so the tree can be installed
# anywhere (cmake --install --prefix) and moved. It requires PETSc by its pkg-config name; the
# folder of the PETSc.pc this build used is written into the file for PKG_CONFIG_PATH.
# MPI has no portable pkg-config name (ompi-cxx, mpich, ...), and Debian's PETSc.pc does not
# name mpi.h's folder, so MPI's flags as FindMPI found them go into Cflags and Libs directly:
# then a plain compiler works, not only mpicc/mpicxx.
function(foehn_pkg_config_libs out)
  set(flags)
  foreach(lib IN LISTS ARGN)
    if(lib MATCHES "^-")  # already a flag
      list(APPEND flags "${lib}")
    elseif(IS_ABSOLUTE "${lib}" AND lib MATCHES "/lib([^/]+)\\.(so|a|dylib)(\\.[0-9.]+)?$")
      get_filename_component(dir "${lib}" DIRECTORY)
      list(APPEND flags "-L${dir}" "-l${CMAKE_MATCH_1}")
    elseif(IS_ABSOLUTE "${lib}")
      list(APPEND flags "${lib}")
    else()
      list(APPEND flags "-l${lib}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES flags)
  string(JOIN " " flags ${flags})
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

set(_foehn_mpi_cflags)
foreach(_foehn_dir IN LISTS MPI_C_INCLUDE_DIRS MPI_CXX_INCLUDE_DIRS)
  list(APPEND _foehn_mpi_cflags "-I${_foehn_dir}")
endforeach()
foreach(_foehn_def IN LISTS MPI_C_COMPILE_DEFINITIONS MPI_CXX_COMPILE_DEFINITIONS)
  list(APPEND _foehn_mpi_cflags "-D${_foehn_def}")
endforeach()
list(APPEND _foehn_mpi_cflags ${MPI_C_COMPILE_OPTIONS} ${MPI_CXX_COMPILE_OPTIONS})
list(REMOVE_DUPLICATES _foehn_mpi_cflags)
string(JOIN " " FOEHN_PC_MPI_CFLAGS ${_foehn_mpi_cflags})
foehn_pkg_config_libs(FOEHN_PC_MPI_LIBS
  ${MPI_CXX_LINK_FLAGS} ${MPI_CXX_LIBRARIES} ${MPI_C_LIBRARIES})
# The PETSc release libfoehn was linked against (its soname carries major.minor): a PETSc.pc of
# another release in PKG_CONFIG_PATH is refused instead of mixing two PETSc libraries.
if(NOT PETSC_VERSION MATCHES "^([0-9]+)\\.([0-9]+)")
  message(FATAL_ERROR "foehn.pc: cannot read major.minor from PETSc's version '${PETSC_VERSION}'")
endif()
set(FOEHN_PC_PETSC_MAJOR_MINOR "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
math(EXPR _foehn_petsc_next_minor "${CMAKE_MATCH_2} + 1")
set(FOEHN_PC_PETSC_NEXT_MINOR "${CMAKE_MATCH_1}.${_foehn_petsc_next_minor}")
# Relative path from <libdir>/pkgconfig back to the prefix (CMAKE_INSTALL_LIBDIR may be
# lib, lib64 or lib/x86_64-linux-gnu).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}"
   OR IS_ABSOLUTE "${CMAKE_INSTALL_DATADIR}")
  message(FATAL_ERROR "foehn.pc needs relative CMAKE_INSTALL_LIBDIR, CMAKE_INSTALL_INCLUDEDIR "
                      "and CMAKE_INSTALL_DATADIR (got ${CMAKE_INSTALL_LIBDIR}, "
                      "${CMAKE_INSTALL_INCLUDEDIR}, ${CMAKE_INSTALL_DATADIR})")
endif()
file(RELATIVE_PATH FOEHN_PC_PREFIX_FROM_PCFILEDIR
     "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" FOEHN_PC_PREFIX_FROM_PCFILEDIR "${FOEHN_PC_PREFIX_FROM_PCFILEDIR}")
configure_file(cmake/foehn.pc.in ${CMAKE_CURRENT_BINARY_DIR}/foehn.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/foehn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The Fortran module lives in a library of its own (libfoehn_fortran, foehn.mod): a second
# file, which requires foehn.pc, so that C and C++ users are not handed a Fortran library.
if(TARGET foehn_fortran)
  configure_file(cmake/foehn-fortran.pc.in ${CMAKE_CURRENT_BINARY_DIR}/foehn-fortran.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/foehn-fortran.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

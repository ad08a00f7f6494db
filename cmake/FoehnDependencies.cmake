# Every dependency comes from a Debian package. A missing one stops configure with the name
# of the package that provides it (scripts/setup.sh installs them all).
find_package(PkgConfig QUIET)

macro(foehn_require found what debian_package)
  if(NOT ${found})
    message(FATAL_ERROR "Foehn needs ${what}, which was not found. "
                        "Install it with: apt-get install ${debian_package}")
  endif()
endmacro()

# MPI (OpenMPI comes with petsc-dev)
find_package(MPI QUIET COMPONENTS C CXX)
foehn_require(MPI_CXX_FOUND "MPI (C and C++)" "libopenmpi-dev")

# PETSc: the one scripts/build-petsc.sh built (FOEHN_PETSC_DIR, a prefix with
# lib/pkgconfig/PETSc.pc; CUDA-enabled) or, when that is empty, Debian's petsc-dev, whose
# pkg-config file lives under /usr/lib/petsc. PETSC_DIR/PETSC_ARCH in the environment are
# looked at after FOEHN_PETSC_DIR and before Debian's.
set(FOEHN_PETSC_DIR "" CACHE PATH
    "PETSc prefix to build against (scripts/build-petsc.sh); empty: Debian's petsc-dev")
if(NOT "${FOEHN_PETSC_DIR}" STREQUAL "${_FOEHN_PETSC_DIR_DETECTED}")
  # A different PETSc was asked for: forget what pkg-config found for the previous one.
  unset(__pkg_config_checked_PETSC CACHE)
  unset(PETSC_FOUND CACHE)
endif()
set(_foehn_saved_pc "$ENV{PKG_CONFIG_PATH}")
if(FOEHN_PETSC_DIR)
  if(NOT EXISTS "${FOEHN_PETSC_DIR}/lib/pkgconfig/PETSc.pc")
    message(FATAL_ERROR "FOEHN_PETSC_DIR=${FOEHN_PETSC_DIR} has no lib/pkgconfig/PETSc.pc "
                        "(run scripts/build-petsc.sh, or leave it empty for Debian's petsc-dev)")
  endif()
  set(_foehn_petsc_pc_dirs "${FOEHN_PETSC_DIR}/lib/pkgconfig")
else()
  file(GLOB _foehn_petsc_pc_dirs /usr/lib/petsc/lib/pkgconfig /usr/lib/petscdir/*/*/lib/pkgconfig)
  if(DEFINED ENV{PETSC_DIR})
    list(PREPEND _foehn_petsc_pc_dirs "$ENV{PETSC_DIR}/lib/pkgconfig" "$ENV{PETSC_DIR}/$ENV{PETSC_ARCH}/lib/pkgconfig")
  endif()
  list(APPEND _foehn_petsc_pc_dirs "${_foehn_saved_pc}")
endif()
string(JOIN ":" _foehn_pc_path ${_foehn_petsc_pc_dirs})
set(ENV{PKG_CONFIG_PATH} "${_foehn_pc_path}")
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PETSC QUIET IMPORTED_TARGET GLOBAL PETSc)
  # The folder of the PETSc.pc found, links resolved (Debian's /usr/lib/petsc follows the
  # alternatives, which may later point at another PETSc): FoehnConfig.cmake and foehn.pc
  # send consumers to this same PETSc.
  if(PETSC_FOUND)
    pkg_get_variable(_foehn_petsc_pcfiledir PETSc pcfiledir)
    file(REAL_PATH "${_foehn_petsc_pcfiledir}" FOEHN_PETSC_PKG_CONFIG_DIR)
  endif()
endif()
set(ENV{PKG_CONFIG_PATH} "${_foehn_saved_pc}")
foehn_require(PETSC_FOUND "PETSc (pkg-config module PETSc)" "petsc-dev")
set(_FOEHN_PETSC_DIR_DETECTED "${FOEHN_PETSC_DIR}" CACHE INTERNAL "PETSc prefix of the last detection")
if(FOEHN_PETSC_DIR)
  list(APPEND CMAKE_INSTALL_RPATH "${FOEHN_PETSC_DIR}/lib")
endif()
# Whether this PETSc was built with CUDA (GPU-resident matrices, vectors and solves).
find_file(FOEHN_PETSC_CONF_HEADER petscconf.h PATHS ${PETSC_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
set(FOEHN_PETSC_HAS_CUDA OFF)
if(FOEHN_PETSC_CONF_HEADER)
  file(STRINGS "${FOEHN_PETSC_CONF_HEADER}" _foehn_petsc_cuda REGEX "#define PETSC_HAVE_CUDA 1")
  if(_foehn_petsc_cuda)
    set(FOEHN_PETSC_HAS_CUDA ON)
  endif()
endif()
message(STATUS "Foehn: PETSc ${PETSC_VERSION} (${PETSC_PREFIX}), CUDA: ${FOEHN_PETSC_HAS_CUDA}")

# METIS has no CMake package on Debian: find header and library directly.
find_path(METIS_INCLUDE_DIR metis.h PATH_SUFFIXES metis)
find_library(METIS_LIBRARY metis)
if(METIS_INCLUDE_DIR AND METIS_LIBRARY)
  set(METIS_FOUND TRUE)
  add_library(Foehn::metis UNKNOWN IMPORTED GLOBAL)
  set_target_properties(Foehn::metis PROPERTIES IMPORTED_LOCATION "${METIS_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
endif()
foehn_require(METIS_FOUND "METIS (metis.h, libmetis)" "libmetis-dev")

# HDF5, the MPI build (checkpoints, particle output)
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 QUIET COMPONENTS C)
foehn_require(HDF5_FOUND "HDF5 (parallel build)" "libhdf5-openmpi-dev")

# netCDF (met input and particle output of the trajectory code). Debian's libnetcdf is built on
# the SERIAL HDF5, so it is linked only by the separate library foehn_particles_io, never by
# libfoehn, which must not bring a second HDF5 into processes that use the MPI one.
if(PKG_CONFIG_FOUND)
  pkg_check_modules(NETCDF QUIET IMPORTED_TARGET GLOBAL netcdf)
endif()
foehn_require(NETCDF_FOUND "netCDF-C (pkg-config module netcdf)" "libnetcdf-dev")

# Random123 (counter-based random numbers, header-only, host and device): the stochastic
# particle physics draws from Philox keyed by (parcel id, step).
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h)
if(RANDOM123_INCLUDE_DIR)
  set(RANDOM123_FOUND TRUE)
endif()
foehn_require(RANDOM123_FOUND "Random123 (Random123/philox.h)" "librandom123-dev")

# nlohmann-json (header-only): the chemistry's JSON mechanism files, read in one source file.
find_package(nlohmann_json 3 QUIET)
foehn_require(nlohmann_json_FOUND "nlohmann-json 3 (JSON mechanism files)" "nlohmann-json3-dev")

# yaml-cpp: OpenAtmos v1 mechanisms in YAML, read in the chemistry's formats/ folder only.
find_package(yaml-cpp QUIET)
foehn_require(yaml-cpp_FOUND "yaml-cpp (YAML mechanism files)" "libyaml-cpp-dev")

# SUNDIALS (CVODE with KLU and dense LU): the chemistry's independent reference integrator. Linked
# only by the separate library foehn_chemistry_cvode, never by libfoehn. 6.x only: SUNDIALS 7
# changed SUNContext_Create and removed the CVODE error handler hook that the reference uses.
find_package(SUNDIALS 6...<7 CONFIG QUIET
             COMPONENTS cvode nvecserial sunmatrixsparse sunmatrixdense sunlinsolklu sunlinsoldense)
foehn_require(SUNDIALS_FOUND "SUNDIALS 6 (CVODE, KLU and dense linear solvers)" "libsundials-dev")

# VTK for ParaView output
find_package(VTK 9 QUIET COMPONENTS CommonCore CommonDataModel IOXML IOParallelXML)
foehn_require(VTK_FOUND "VTK 9 (CommonCore, CommonDataModel, IOXML, IOParallelXML)" "libvtk9-dev")

# Mmg 5.8 (libmmg3d), the remesher of foehn/adapt: the prefix scripts/setup-mmg.sh unpacks from
# PyPI's mmgpy wheel, or any Mmg install with include/mmg/mmg3d/libmmg3d.h. Optional: without it
# foehn::adapt::remesh reports itself unavailable and its tests skip.
set(FOEHN_MMG_DIR "" CACHE PATH "Mmg prefix (scripts/setup-mmg.sh); empty: no remeshing")
set(FOEHN_HAVE_MMG OFF)
if(FOEHN_MMG_DIR)
  find_path(FOEHN_MMG_INCLUDE_DIR mmg/mmg3d/libmmg3d.h PATHS "${FOEHN_MMG_DIR}/include"
            NO_DEFAULT_PATH NO_CACHE)
  find_library(FOEHN_MMG3D_LIBRARY mmg3d PATHS "${FOEHN_MMG_DIR}/lib64" "${FOEHN_MMG_DIR}/lib"
               NO_DEFAULT_PATH NO_CACHE)
  if(NOT FOEHN_MMG_INCLUDE_DIR OR NOT FOEHN_MMG3D_LIBRARY)
    message(FATAL_ERROR "FOEHN_MMG_DIR=${FOEHN_MMG_DIR} has no include/mmg/mmg3d/libmmg3d.h and "
                        "lib64/libmmg3d.so (run scripts/setup-mmg.sh, or leave it empty)")
  endif()
  add_library(Foehn::mmg3d SHARED IMPORTED GLOBAL)
  set_target_properties(Foehn::mmg3d PROPERTIES IMPORTED_LOCATION "${FOEHN_MMG3D_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${FOEHN_MMG_INCLUDE_DIR}")
  get_filename_component(_foehn_mmg_lib_dir "${FOEHN_MMG3D_LIBRARY}" DIRECTORY)
  list(APPEND CMAKE_INSTALL_RPATH "${_foehn_mmg_lib_dir}")
  set(FOEHN_HAVE_MMG ON)
endif()
message(STATUS "Foehn: Mmg remeshing: ${FOEHN_HAVE_MMG} (${FOEHN_MMG_DIR})")

# Boost.Graph headers (reverse Cuthill-McKee node ordering); header-only.
find_package(Boost 1.71 CONFIG QUIET)
foehn_require(Boost_FOUND "the Boost headers (Boost.Graph)" "libboost-graph-dev")

if(FOEHN_BUILD_TESTS)
  find_package(GTest QUIET)
  foehn_require(GTest_FOUND "GoogleTest" "libgtest-dev")
endif()
if(FOEHN_BUILD_BENCH)
  find_package(benchmark QUIET)
  foehn_require(benchmark_FOUND "Google Benchmark" "libbenchmark-dev")
endif()

# OpenMP (GCC's libgomp, part of build-essential) on the named sources of libfoehn only: the
# flag goes on those files and the runtime is linked, but not the imported OpenMP target, which
# would put -fopenmp on every C++ source of the library. Without OpenMP the pragmas are ignored
# and the loops run on one thread with the same results, unless REQUIRED_BY names what cannot
# do without it.
#   foehn_openmp_sources(SOURCES a.cpp b.cpp [REQUIRED_BY "the chemistry solver"])
function(foehn_openmp_sources)
  cmake_parse_arguments(arg "" "REQUIRED_BY" "SOURCES" ${ARGN})
  find_package(OpenMP COMPONENTS CXX)
  if(OpenMP_CXX_FOUND)
    set_source_files_properties(${arg_SOURCES} TARGET_DIRECTORY foehn
                                PROPERTIES COMPILE_OPTIONS "${OpenMP_CXX_FLAGS}")
    target_link_libraries(foehn PRIVATE ${OpenMP_CXX_LIBRARIES})
  elseif(arg_REQUIRED_BY)
    message(FATAL_ERROR "OpenMP (libgomp, part of build-essential's GCC) is required by "
                        "${arg_REQUIRED_BY}")
  endif()
endfunction()

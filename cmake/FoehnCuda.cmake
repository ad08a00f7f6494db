# Decide whether the CUDA backend is built. AUTO: when nvcc can be found (also in the usual
# /usr/local/cuda location, which is often not on PATH in a fresh shell).
include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
endif()
string(TOUPPER "${FOEHN_CUDA}" _foehn_cuda)
if(_foehn_cuda STREQUAL "AUTO")
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(_foehn_cuda ON)
  else()
    set(_foehn_cuda OFF)
    message(STATUS "Foehn: nvcc not found, building the CPU backend only")
  endif()
endif()
if(_foehn_cuda)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures (default: sm_90, Hopper)")
  endif()
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
  enable_language(CUDA)
  # CMake 3.25 does not know nvcc 13's C++20 flag: pass it directly, and declare an empty
  # dialect option so that the cxx_std_20 feature of foehn (inherited by .cu files of every
  # target linking it) counts as supported without a second, conflicting -std flag.
  string(APPEND CMAKE_CUDA_FLAGS " -std=c++20")
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "")
  find_package(CUDAToolkit REQUIRED)
  set(FOEHN_HAVE_CUDA 1)
  message(STATUS "Foehn: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  set(FOEHN_HAVE_CUDA 0)
endif()
# Read by scripts/ranks-for-host.sh: a GPU host gets one rank per GPU only when the build can
# use them.
set(FOEHN_HAVE_CUDA_BACKEND ${FOEHN_HAVE_CUDA} CACHE INTERNAL "the CUDA backend is built")
if(FOEHN_DETERMINISTIC_FP)
  set(FOEHN_DETERMINISTIC_FP_VALUE 1)
else()
  set(FOEHN_DETERMINISTIC_FP_VALUE 0)
endif()

# foehn_add_device_kernels(<target> <source>...): sources that instantiate for_each functors
# (foehn/runtime/for_each_kernels.hpp). Compiled as CUDA without FMA contraction (the device
# rounds as the host does) where the CUDA backend is built, as C++ otherwise, where the same
# instantiations are stand-ins that throw "built without CUDA".
function(foehn_add_device_kernels target)
  target_sources(${target} PRIVATE ${ARGN})
  if(FOEHN_HAVE_CUDA)
    set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
                                PROPERTIES LANGUAGE CUDA COMPILE_OPTIONS "--fmad=false")
  endif()
endfunction()

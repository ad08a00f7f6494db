# FOEHN_FUZZ: the libFuzzer targets of tests/fuzz (scripts/fuzz.sh configures such a build).
# Every C++ source of the build, libfoehn included, gets the fuzzer's coverage instrumentation
# and AddressSanitizer + UBSan: a reader's bug usually lies deep inside the library, and only
# instrumented code there guides the fuzzer to it and stops at the faulty access instead of
# corrupting memory silently. UBSan errors abort (no recovery) so libFuzzer records them as
# crashes. Third-party libraries (VTK, HDF5, netCDF, MPI) stay uninstrumented.
if(NOT FOEHN_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "FOEHN_FUZZ needs clang (libFuzzer): configure with "
                      "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang (scripts/fuzz.sh)")
endif()
if(FOEHN_HAVE_CUDA)
  message(FATAL_ERROR "FOEHN_FUZZ builds the host code only: configure with -DFOEHN_CUDA=OFF")
endif()
set(FOEHN_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
                          -fno-omit-frame-pointer -g)
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link;${FOEHN_SANITIZER_FLAGS}>")
add_link_options("$<$<LINK_LANGUAGE:CXX>:${FOEHN_SANITIZER_FLAGS}>")
message(STATUS "Foehn: fuzzing build (libFuzzer, ASan, UBSan); targets: foehn_fuzzers")

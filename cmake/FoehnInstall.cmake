# Install libfoehn, its headers and a CMake package so that downstream projects can write
# find_package(Foehn) and link Foehn::foehn.
include(CMakePackageConfigHelpers)
install(TARGETS foehn EXPORT FoehnTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# cuda_check.hpp is internal to .cu/.cpp files compiled with CUDA inside Foehn.
install(DIRECTORY include/foehn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN "cuda_check.hpp" EXCLUDE)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/include/foehn/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/foehn)
install(EXPORT FoehnTargets NAMESPACE Foehn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Foehn)
configure_package_config_file(cmake/FoehnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/FoehnConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Foehn)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/FoehnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/FoehnConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/FoehnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Foehn)

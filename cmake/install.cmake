# Installation: the library, its headers, the CMake package (crowdikConfig.cmake,
# crowdikConfigVersion.cmake, crowdikTargets.cmake with crowdik::crowdik) and
# crowdik.pc for pkg-config. Included at the end of the top-level
# CMakeLists.txt, in crowdik's own directory scope.
#
# When crowdik is pulled into another project with add_subdirectory, these
# rules are off unless the parent asks for them with -DCROWDIK_INSTALL=ON (for
# example to install crowdik next to its own exported targets).

include(CMakePackageConfigHelpers)

option(CROWDIK_INSTALL "Generate crowdik's install rules" ${CROWDIK_TOP_LEVEL})

# Whether the library was built with OpenMP: the package and the .pc file
# carry it as a dependency of the consumer's link.
set(CROWDIK_WITH_OPENMP OFF)
if(CROWDIK_OPENMP AND OpenMP_C_FOUND)
  set(CROWDIK_WITH_OPENMP ON)
endif()

if(BUILD_SHARED_LIBS)
  set(CROWDIK_BUILT_SHARED ON)
else()
  set(CROWDIK_BUILT_SHARED OFF)
endif()

if(CROWDIK_INSTALL)
  set(CROWDIK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/crowdik)

  install(TARGETS crowdik
    EXPORT crowdikTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT crowdik_development
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT crowdik_runtime
            NAMELINK_COMPONENT crowdik_development
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT crowdik_runtime
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

  # The whole public header directory (crowdik.h and any later headers).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/crowdik
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    COMPONENT crowdik_development
    FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")

  install(EXPORT crowdikTargets
    NAMESPACE crowdik::
    FILE crowdikTargets.cmake
    DESTINATION ${CROWDIK_CMAKE_DIR}
    COMPONENT crowdik_development)

  configure_package_config_file(
    ${CMAKE_CURRENT_LIST_DIR}/crowdikConfig.cmake.in
    ${PROJECT_BINARY_DIR}/crowdikConfig.cmake
    INSTALL_DESTINATION ${CROWDIK_CMAKE_DIR})
  write_basic_package_version_file(
    ${PROJECT_BINARY_DIR}/crowdikConfigVersion.cmake
    VERSION ${PROJECT_VERSION}
    COMPATIBILITY SameMajorVersion)
  install(FILES
    ${PROJECT_BINARY_DIR}/crowdikConfig.cmake
    ${PROJECT_BINARY_DIR}/crowdikConfigVersion.cmake
    DESTINATION ${CROWDIK_CMAKE_DIR}
    COMPONENT crowdik_development)

  # --- pkg-config ---------------------------------------------------------
  # The .pc file locates the prefix from its own directory, so an install
  # tree stays usable after `cmake --install --prefix` or a move.
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(CROWDIK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
    set(CROWDIK_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  else()
    file(RELATIVE_PATH CROWDIK_PC_UP "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
    string(REGEX REPLACE "/$" "" CROWDIK_PC_UP "${CROWDIK_PC_UP}")
    set(CROWDIK_PC_PREFIX "\${pcfiledir}/${CROWDIK_PC_UP}")
    set(CROWDIK_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  endif()
  if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(CROWDIK_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
  else()
    set(CROWDIK_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  endif()

  set(CROWDIK_PC_CFLAGS "")
  set(CROWDIK_PC_LIBS "")
  set(CROWDIK_PC_LIBS_PRIVATE "")
  if(BUILD_SHARED_LIBS)
    set(CROWDIK_PC_CFLAGS " -DCIK_SHARED")
  endif()
  # OpenMP has no .pc file of its own (so no Requires:); its flag goes in
  # Libs because the consumer's link must pull in the OpenMP runtime either
  # way (a static archive needs it, and the flag is harmless when shared).
  if(CROWDIK_WITH_OPENMP)
    string(APPEND CROWDIK_PC_LIBS " ${OpenMP_C_FLAGS}")
  endif()
  # libm: a shared crowdik already depends on it (Libs.private, for --static);
  # a static-only install needs it on every link.
  if(CROWDIK_LIBM)
    if(BUILD_SHARED_LIBS)
      set(CROWDIK_PC_LIBS_PRIVATE "-lm")
    else()
      string(APPEND CROWDIK_PC_LIBS " -lm")
    endif()
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/crowdik.pc.in ${PROJECT_BINARY_DIR}/crowdik.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/crowdik.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
    COMPONENT crowdik_development)

  # Licence, third-party notices and the change log.
  foreach(doc LICENSE NOTICE CHANGELOG.md)
    if(EXISTS ${PROJECT_SOURCE_DIR}/${doc})
      install(FILES ${PROJECT_SOURCE_DIR}/${doc}
        DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT crowdik_development)
    endif()
  endforeach()
endif()

# API documentation with Doxygen (optional; a `docs` target when found).
include(${CMAKE_CURRENT_LIST_DIR}/docs.cmake OPTIONAL)

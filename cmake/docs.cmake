# API documentation: Doxygen renders include/crowdik/*.h, the README and the
# guides under docs/ to HTML in <build>/docs/html. Optional: without Doxygen
# there is no docs target and nothing else changes.
#
#   cmake --build build --target docs     # then open build/docs/html/index.html
#
# As a subproject the target is called crowdik_docs, so it cannot clash with
# the parent's own `docs`.

option(CROWDIK_BUILD_DOCS "Add a target that renders the API documentation (needs Doxygen)" ${CROWDIK_TOP_LEVEL})

if(CROWDIK_BUILD_DOCS)
  find_package(Doxygen QUIET)
  if(DOXYGEN_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/Doxyfile.in)
    set(CROWDIK_DOCS_OUTPUT ${PROJECT_BINARY_DIR}/docs)
    set(CROWDIK_DOCS_INPUT "${PROJECT_SOURCE_DIR}/include/crowdik")
    foreach(page README.md docs)
      if(EXISTS ${PROJECT_SOURCE_DIR}/${page})
        string(APPEND CROWDIK_DOCS_INPUT " \"${PROJECT_SOURCE_DIR}/${page}\"")
      endif()
    endforeach()
    if(EXISTS ${PROJECT_SOURCE_DIR}/README.md)
      set(CROWDIK_DOCS_MAINPAGE ${PROJECT_SOURCE_DIR}/README.md)
    else()
      set(CROWDIK_DOCS_MAINPAGE "")
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/Doxyfile.in ${PROJECT_BINARY_DIR}/Doxyfile @ONLY)
    file(GLOB_RECURSE CROWDIK_DOCS_DEPENDS CONFIGURE_DEPENDS
      ${PROJECT_SOURCE_DIR}/include/crowdik/*.h ${PROJECT_SOURCE_DIR}/docs/*.md)
    add_custom_command(
      OUTPUT ${CROWDIK_DOCS_OUTPUT}/html/index.html
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CROWDIK_DOCS_OUTPUT}
      COMMAND Doxygen::doxygen ${PROJECT_BINARY_DIR}/Doxyfile
      DEPENDS ${PROJECT_BINARY_DIR}/Doxyfile ${CROWDIK_DOCS_DEPENDS}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      COMMENT "crowdik: rendering the API documentation with Doxygen"
      VERBATIM)
    add_custom_target(crowdik_docs DEPENDS ${CROWDIK_DOCS_OUTPUT}/html/index.html)
    if(CROWDIK_TOP_LEVEL AND NOT TARGET docs)
      add_custom_target(docs DEPENDS crowdik_docs)
    endif()
  elseif(CROWDIK_TOP_LEVEL)
    message(STATUS "crowdik: Doxygen not found, no docs target")
  endif()
endif()

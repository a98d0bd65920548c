# The consumer project (tests/consumer) built against crowdik each way an
# engine would take it in, static and shared, and run; plus a check of the
# symbols the installed libraries define. Each linkage's install is a
# fixture shared by the package, pkg-config and symbol tests.
#
#   ctest --test-dir <build> -R consumer --output-on-failure
if(UNIX)
  set(CROWDIK_CONSUMER_WORK ${CMAKE_CURRENT_BINARY_DIR}/consumer)
  set(CROWDIK_CONSUMER_RUN ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run.sh)
  foreach(linkage static shared)
    set(args ${linkage} ${PROJECT_SOURCE_DIR} ${CROWDIK_CONSUMER_WORK}
             ${CMAKE_COMMAND} ${CMAKE_C_COMPILER} ${CROWDIK_WERROR})
    add_test(NAME consumer_install_${linkage} COMMAND ${CROWDIK_CONSUMER_RUN} install ${args})
    set_tests_properties(consumer_install_${linkage} PROPERTIES
      FIXTURES_SETUP consumer_prefix_${linkage} TIMEOUT 900)
    foreach(step package pkgconfig symbols)
      add_test(NAME consumer_${step}_${linkage} COMMAND ${CROWDIK_CONSUMER_RUN} ${step} ${args})
      set_tests_properties(consumer_${step}_${linkage} PROPERTIES
        FIXTURES_REQUIRED consumer_prefix_${linkage} TIMEOUT 600 SKIP_RETURN_CODE 77)
    endforeach()
    add_test(NAME consumer_subdir_${linkage} COMMAND ${CROWDIK_CONSUMER_RUN} subdir ${args})
    set_tests_properties(consumer_subdir_${linkage} PROPERTIES TIMEOUT 900)
  endforeach()
endif()

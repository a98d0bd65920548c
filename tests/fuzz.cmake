# Bounded libFuzzer runs of crowdik's public API, of the foot-placement
# pipeline, of the herds (and of the BVH loader when support/bvh.c exists). tests/fuzz/run.sh builds each target with clang
# -fsanitize=fuzzer,address,undefined straight from the sources, whatever
# compiler this build uses, and skips (77) when clang or libFuzzer is
# missing (fails instead where FUZZ_REQUIRED=1, as tools/test.sh sets).
# FUZZ_SECONDS (environment, default 60) bounds each run; the test's log ends
# with the execution count.
#
#   ctest --test-dir <build> -R fuzz --output-on-failure
#   FUZZ_SECONDS=600 ctest --test-dir <build> -R fuzz_api
if(UNIX AND NOT CMAKE_CROSSCOMPILING)
  foreach(target api bvh foot herd)
    add_test(NAME fuzz_${target}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run.sh ${target} ${PROJECT_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
    set_tests_properties(fuzz_${target} PROPERTIES
      TIMEOUT 1800 SKIP_RETURN_CODE 77
      ENVIRONMENT "CROWDIK_WERROR=${CROWDIK_WERROR}")
  endforeach()
endif()

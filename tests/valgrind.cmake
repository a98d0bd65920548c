# Valgrind memcheck of batch creation, solving on the reference, scalar and
# AVX2 paths (never AVX-512: valgrind hides it from CPUID) and destruction.
# Definite leaks and memory errors fail the test; skipped (77) without
# valgrind.
#
#   ctest --test-dir <build> -R valgrind --output-on-failure
add_executable(memcheck_solve ${CMAKE_CURRENT_SOURCE_DIR}/valgrind/memcheck_solve.c)
target_link_libraries(memcheck_solve PRIVATE crowdik crowdik_workloads)
target_compile_options(memcheck_solve PRIVATE ${CROWDIK_WARNINGS} ${CROWDIK_SANITIZE_FLAGS})
if(UNIX AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME valgrind_memcheck_solve
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/valgrind/run.sh $<TARGET_FILE:memcheck_solve>
                   ${CROWDIK_SANITIZE})
  set_tests_properties(valgrind_memcheck_solve PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
endif()

# The foot crowd's and the herd's prefetches of the next block are in the
# built library (tests/prefetch_check.sh). x86-64 static builds, whose
# archive objdump reads member by member.
get_target_property(CROWDIK_LIBRARY_TYPE crowdik TYPE)
if(CMAKE_OBJDUMP AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND CROWDIK_LIBRARY_TYPE STREQUAL "STATIC_LIBRARY")
  add_test(NAME prefetch_emitted
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/prefetch_check.sh ${CMAKE_OBJDUMP} $<TARGET_FILE:crowdik>)
  set_tests_properties(prefetch_emitted PROPERTIES SKIP_RETURN_CODE 77)
endif()

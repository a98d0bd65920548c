# The public headers (crowdik.h, foot.h, herd.h) compile on their own as C99, C11 and C++ with pedantic
# warnings as errors: these small programs are part of the build, so a header
# that stops compiling in one of the languages breaks the build, and each one
# is also run as a test.
set(CROWDIK_HEADER_CHECK_DIR ${CMAKE_CURRENT_BINARY_DIR}/header_check)
set(CROWDIK_HEADER_CHECK_BODY "#include <crowdik/crowdik.h>
#include <crowdik/foot.h>
#include <crowdik/herd.h>
int main(void)
{
    cik_options o = cik_default_options();
    cik_herd_options h = cik_herd_default_options();
    if (h.foot.solver.max_iterations != 16) return 1;
    cik_vec3 v = {1.0f, 2.0f, 3.0f};
    cik_quat q = {0.0f, 0.0f, 0.0f, 1.0f};
    (void)v;
    (void)q;
    return (o.max_iterations == 10 && cik_backend_available(CIK_BACKEND_REFERENCE) == 1) ? 0 : 1;
}
")
file(WRITE ${CROWDIK_HEADER_CHECK_DIR}/header_c.c "${CROWDIK_HEADER_CHECK_BODY}")
file(WRITE ${CROWDIK_HEADER_CHECK_DIR}/header_cxx.cpp "${CROWDIK_HEADER_CHECK_BODY}")

if(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  return()
endif()
foreach(std 99 11)
  add_executable(header_c${std} ${CROWDIK_HEADER_CHECK_DIR}/header_c.c)
  set_target_properties(header_c${std} PROPERTIES C_STANDARD ${std} C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_compile_options(header_c${std} PRIVATE -pedantic -Wall -Wextra -Werror)
  target_link_libraries(header_c${std} PRIVATE crowdik)
  add_test(NAME header_c${std} COMMAND header_c${std})
endforeach()

include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  add_executable(header_cxx ${CROWDIK_HEADER_CHECK_DIR}/header_cxx.cpp)
  set_target_properties(header_cxx PROPERTIES CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_compile_options(header_cxx PRIVATE -pedantic -Wall -Wextra -Werror)
  target_link_libraries(header_cxx PRIVATE crowdik)
  add_test(NAME header_cxx COMMAND header_cxx)
else()
  message(STATUS "crowdik: no C++ compiler, the header's C++ check is skipped")
endif()

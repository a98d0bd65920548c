# The C++ face (include/crowdik/crowdik.hpp): a small self-checking program
# built with exceptions and RTTI off, as C++17 and C++11, warnings as errors;
# each is run as a test. Skipped without a C++ compiler.
include(CheckLanguage)
check_language(CXX)
if(NOT CMAKE_CXX_COMPILER OR NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  message(STATUS "crowdik: no C++ compiler, the C++ face's test is skipped")
  return()
endif()
enable_language(CXX)
foreach(std 11 17)
  add_executable(cxx_face${std} ${CMAKE_CURRENT_SOURCE_DIR}/cxx/test_cxx.cpp)
  set_target_properties(cxx_face${std} PROPERTIES CXX_STANDARD ${std} CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_compile_options(cxx_face${std} PRIVATE -fno-exceptions -fno-rtti -pedantic -Wall -Wextra -Werror)
  target_link_libraries(cxx_face${std} PRIVATE crowdik)
  add_test(NAME cxx_face${std} COMMAND cxx_face${std})
endforeach()

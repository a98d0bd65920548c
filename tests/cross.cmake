# The aarch64 cross build, run under qemu (see tests/cross/aarch64.sh).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME aarch64_neon_under_qemu
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cross/aarch64.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/aarch64)
  set_tests_properties(aarch64_neon_under_qemu PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
endif()

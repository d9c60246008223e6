# What `seam --version` reports about the build: the version, the libbpf it was built against
# and the clang found at configure time (seam runs clang at run time; this is the one the build
# saw). The git revision is written at every build by GitRevision.cmake.
find_program(SEAM_CLANG_AT_BUILD NAMES clang clang-16 clang-15 clang-14)
set(SEAM_CLANG_BUILD_VERSION "none")
if(SEAM_CLANG_AT_BUILD)
  execute_process(COMMAND ${SEAM_CLANG_AT_BUILD} --version OUTPUT_VARIABLE clang_out ERROR_QUIET)
  string(REGEX MATCH "^[^\n]*" SEAM_CLANG_BUILD_VERSION "${clang_out}")
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/build_info.hpp.in ${CMAKE_BINARY_DIR}/generated/seam_build_info.hpp @ONLY)
add_custom_target(seam_git_revision
                  COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -DOUT=${CMAKE_BINARY_DIR}/generated/seam_git_revision.hpp
                          -P ${CMAKE_SOURCE_DIR}/cmake/GitRevision.cmake
                  BYPRODUCTS ${CMAKE_BINARY_DIR}/generated/seam_git_revision.hpp
                  COMMENT "git revision for seam --version")

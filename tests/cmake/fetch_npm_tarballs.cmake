# Script-mode driver for tests: cmake -DLOCK=deps.lock -DOUT=dir -P fetch_npm_tarballs.cmake
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/NpmTarballs.cmake")
parlint_fetch_npm_tarballs("${LOCK}" "${OUT}")
message(STATUS "tree-sitter at ${TREE_SITTER_DIR}")

# Installs the npm programs the integration tests drive (tests/tools/package.json, exact versions and
# integrity hashes in its package-lock.json) with `npm ci --ignore-scripts` into the build folder.
# It runs when the test suite is built (the `parlint_test_tools` target of `all`), not at configure time:
# `make run` builds only parlint and never downloads them. The lock file's hash in a stamp makes a second
# build skip the network.
#   included:  parlint_install_test_tools(TOOLS_SRC OUT_DIR) adds the target
#   cmake -P:  -DTOOLS_SRC=... -DOUT_DIR=... -P TestTools.cmake does the installation
function(parlint_install_test_tools tools_src out_dir)
  add_custom_command(
    OUTPUT "${out_dir}/.installed"
    COMMAND "${CMAKE_COMMAND}" "-DTOOLS_SRC=${tools_src}" "-DOUT_DIR=${out_dir}" -P
            "${CMAKE_CURRENT_FUNCTION_LIST_FILE}"
    DEPENDS "${tools_src}/package.json" "${tools_src}/package-lock.json" "${CMAKE_CURRENT_FUNCTION_LIST_FILE}"
    COMMENT "Installing the test suite's npm tools (tests/tools/package-lock.json)"
    VERBATIM)
  add_custom_target(parlint_test_tools ALL DEPENDS "${out_dir}/.installed")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED TOOLS_SRC)
  file(SHA256 "${TOOLS_SRC}/package-lock.json" lock_hash)
  set(stamp "${OUT_DIR}/.installed")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" have)
    if(have STREQUAL lock_hash)
      file(TOUCH_NOCREATE "${stamp}")
      return()
    endif()
  endif()
  find_program(NPM_EXECUTABLE npm REQUIRED)
  file(REMOVE_RECURSE "${OUT_DIR}")
  file(MAKE_DIRECTORY "${OUT_DIR}")
  file(COPY "${TOOLS_SRC}/package.json" "${TOOLS_SRC}/package-lock.json" DESTINATION "${OUT_DIR}")
  execute_process(COMMAND "${NPM_EXECUTABLE}" ci --ignore-scripts --no-audit --no-fund --silent
                  WORKING_DIRECTORY "${OUT_DIR}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "npm ci for the test tools failed (${rc}): ${err}")
  endif()
  # --ignore-scripts skips the package's own chmod of its native validator.
  set(multitool "${OUT_DIR}/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")
  if(EXISTS "${multitool}")
    file(CHMOD "${multitool}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                          WORLD_READ WORLD_EXECUTE)
  endif()
  file(WRITE "${stamp}" "${lock_hash}")
endif()

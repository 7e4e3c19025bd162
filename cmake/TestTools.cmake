# Installs the npm programs the integration tests drive (tests/tools/package.json, exact versions and
# integrity hashes in its package-lock.json) with `npm ci --ignore-scripts` into the build folder. A
# stamp holding the lock file's hash makes a second configure skip the network.
function(parlint_install_test_tools tools_src out_dir)
  file(SHA256 "${tools_src}/package-lock.json" lock_hash)
  set(stamp "${out_dir}/.installed")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" have)
    if(have STREQUAL lock_hash)
      return()
    endif()
  endif()
  find_program(NPM_EXECUTABLE npm REQUIRED)
  file(REMOVE_RECURSE "${out_dir}")
  file(MAKE_DIRECTORY "${out_dir}")
  file(COPY "${tools_src}/package.json" "${tools_src}/package-lock.json" DESTINATION "${out_dir}")
  message(STATUS "Installing test tools with npm ci (tests/tools/package-lock.json)")
  execute_process(COMMAND "${NPM_EXECUTABLE}" ci --ignore-scripts --no-audit --no-fund --silent
                  WORKING_DIRECTORY "${out_dir}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "npm ci for the test tools failed (${rc}): ${err}")
  endif()
  # --ignore-scripts skips the package's own chmod of its native validator.
  set(multitool "${out_dir}/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")
  if(EXISTS "${multitool}")
    file(CHMOD "${multitool}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                          WORLD_READ WORLD_EXECUTE)
  endif()
  file(WRITE "${stamp}" "${lock_hash}")
endfunction()

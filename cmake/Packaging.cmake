# Install layout: the binary, its man page and its shell completions. Included at the end of
# CMakeLists.txt.
#
# The man page and the shell completions are generated from the built binary (scripts/gen_cli_docs.py
# reads `parlint --help`, each subcommand's --help, the cluster profiles and `parlint rules`), so they
# cannot drift from the command line.
#
# Install components:
#   (default)  bin/parlint, share/bash-completion/completions/parlint
#   local      share/man/man1/parlint.1 and share/zsh/site-functions/_parlint (`make install`)

set(PARLINT_CLI_DOCS_DIR "${PROJECT_BINARY_DIR}/cli-docs")
set(PARLINT_CLI_DOCS "${PARLINT_CLI_DOCS_DIR}/parlint.1" "${PARLINT_CLI_DOCS_DIR}/parlint.1.gz"
                     "${PARLINT_CLI_DOCS_DIR}/parlint.bash" "${PARLINT_CLI_DOCS_DIR}/_parlint")
add_custom_command(
  OUTPUT ${PARLINT_CLI_DOCS}
  COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/gen_cli_docs.py" --parlint $<TARGET_FILE:parlint>
          --out-dir "${PARLINT_CLI_DOCS_DIR}"
  DEPENDS parlint "${PROJECT_SOURCE_DIR}/scripts/gen_cli_docs.py"
  COMMENT "Generating the man page and the bash/zsh completions from parlint --help"
  VERBATIM)
# Part of every build, so that `make install` has them; not of sanitizer builds, whose parlint is not
# the one packaged (and runs under ASan or TSan).
if(PARLINT_SANITIZE OR PARLINT_FUZZ OR PARLINT_TSAN)
  set(PARLINT_PACKAGING_ALL "")
else()
  set(PARLINT_PACKAGING_ALL ALL)
endif()
add_custom_target(parlint_cli_docs ${PARLINT_PACKAGING_ALL} DEPENDS ${PARLINT_CLI_DOCS})

install(FILES "${PARLINT_CLI_DOCS_DIR}/parlint.bash" DESTINATION share/bash-completion/completions
        RENAME parlint)
install(FILES "${PARLINT_CLI_DOCS_DIR}/parlint.1" DESTINATION share/man/man1 COMPONENT local)
install(FILES "${PARLINT_CLI_DOCS_DIR}/_parlint" DESTINATION share/zsh/site-functions COMPONENT local)

# Install layout and the Debian package (CPack). Included at the end of CMakeLists.txt; `make package`
# (scripts/package.py) runs cpack for the .deb and builds the wheel and the tarball from `cmake --install`.
#
# The man page and the shell completions are generated from the built binary (scripts/gen_cli_docs.py
# reads `parlint --help`, each subcommand's --help, the cluster profiles and `parlint rules`), so they
# cannot drift from the command line.
#
# Install components:
#   (default)  bin/parlint, share/bash-completion/completions/parlint
#   local      share/man/man1/parlint.1 and share/zsh/site-functions/_parlint: `make install` and the tarball
#   deb        (only in the .deb) /usr/share/man/man1/parlint.1.gz (gzip -9n, as Debian policy asks),
#              /usr/share/zsh/vendor-completions/_parlint (Debian's directory for packaged completions),
#              /usr/share/doc/parlint (README, user docs, copyright, changelog), the lintian override
#              for the static binary
# CMake's own `package` target (ninja package) would build every target, tests included; use `make package`.

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

install(FILES "${PARLINT_CLI_DOCS_DIR}/parlint.1.gz" DESTINATION share/man/man1 COMPONENT deb EXCLUDE_FROM_ALL)
install(FILES "${PARLINT_CLI_DOCS_DIR}/_parlint" DESTINATION share/zsh/vendor-completions COMPONENT deb
        EXCLUDE_FROM_ALL)
install(FILES README.md docs/usage.md docs/configuration.md docs/plan.md docs/integrations.md docs/editors.md
        DESTINATION share/doc/parlint COMPONENT deb EXCLUDE_FROM_ALL)

# copyright and changelog.gz, which every Debian package carries in its doc folder.
string(TIMESTAMP PARLINT_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # honours SOURCE_DATE_EPOCH
# The years of the copyright notice: from the first commit (2026) to the package's date.
string(TIMESTAMP PARLINT_PACKAGE_YEAR "%Y" UTC)
set(PARLINT_COPYRIGHT_YEARS 2026)
if(PARLINT_PACKAGE_YEAR GREATER 2026)
  string(APPEND PARLINT_COPYRIGHT_YEARS "-${PARLINT_PACKAGE_YEAR}")
endif()
set(PARLINT_MAINTAINER "parlint maintainers <parlint@users.noreply.github.com>"
    CACHE STRING "Maintainer field of the Debian package (Name <email>)")
set(PARLINT_HOMEPAGE "https://github.com/parlint/parlint" CACHE STRING "Project home page (packages' metadata)")
set(PARLINT_DEB_DIR "${PROJECT_BINARY_DIR}/deb")
configure_file(cmake/debian/copyright.in "${PARLINT_DEB_DIR}/copyright" @ONLY)
configure_file(cmake/debian/changelog.in "${PARLINT_DEB_DIR}/changelog" @ONLY)
# gzip -9n with a fixed header, as dh_installchangelogs writes it (CMake 3.25 has no gzip of its own that
# leaves the time out; the Python of the build does).
add_custom_command(
  OUTPUT "${PARLINT_DEB_DIR}/changelog.gz"
  COMMAND "${Python3_EXECUTABLE}" -c
          "import gzip,sys; open(sys.argv[2],'wb').write(gzip.compress(open(sys.argv[1],'rb').read(),9,mtime=0))"
          "${PARLINT_DEB_DIR}/changelog" "${PARLINT_DEB_DIR}/changelog.gz"
  DEPENDS "${PARLINT_DEB_DIR}/changelog"
  VERBATIM)
add_custom_target(parlint_deb_files ${PARLINT_PACKAGING_ALL} DEPENDS "${PARLINT_DEB_DIR}/changelog.gz")
install(FILES "${PARLINT_DEB_DIR}/copyright" "${PARLINT_DEB_DIR}/changelog.gz" DESTINATION share/doc/parlint
        COMPONENT deb EXCLUDE_FROM_ALL)
install(FILES cmake/debian/lintian-overrides DESTINATION share/lintian/overrides RENAME parlint COMPONENT deb
        EXCLUDE_FROM_ALL)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME parlint)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR parlint)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "static linter for distributed-training launch configurations")
# The extended description: Debian wants lines of at most 80 columns (lintian checks it).
set(CPACK_PACKAGE_DESCRIPTION
    "parlint checks the YAML configs, Python recipes, Hydra overrides and SLURM
or shell launch scripts that set tensor, pipeline, context, expert and data
parallelism for Megatron-LM, Megatron-Bridge and NeMo, and reports the mistakes
that otherwise surface only after a job has waited in the queue and started on
hundreds of GPUs. It never executes, imports or sources what it reads.
.
One static binary: the command-line linter, a language server (parlint lsp),
GitHub annotations and SARIF output.")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PARLINT_HOMEPAGE}")
set(CPACK_PACKAGE_CONTACT "${PARLINT_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PARLINT_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # parlint_0.1.0_amd64.deb
# No Depends: parlint is linked fully statically (PARLINT_STATIC, libc included), so there is no shared
# library for dpkg-shlibdeps to find; a dynamically linked build must not be packaged this way, and
# scripts/package.py refuses one.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
# One package made of the default and the deb components; the local ones (an uncompressed man page, zsh's
# site-functions) are for `make install` and the tarball.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL Unspecified deb)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
include(CPack)

# Installation rules and the Debian package.
#
#   cmake --install build --prefix ~/.local      # bin/ptlint, share/doc/ptlint/rules/*.md, ...
#   cpack --config build/CPackConfig.cmake -G DEB  # ptlint_X.Y.Z_amd64.deb (+ ptlint-gpu_... when built)
#
# Two components: `ptlint` (the linter, rule docs, Neovim plugin) and, when libtorch was found,
# `gpu` (the `ptlint-gpu` worker, packaged apart so that the linter never drags in libtorch).
# `ptlint` finds `ptlint-gpu` next to itself, so both install into the same bin/.
include(GNUInstallDirs)

install(TARGETS ptlint RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ptlint)

set(PTLINT_PACKAGE_COMPONENTS ptlint)
if(TARGET ptlint-gpu)
  install(TARGETS ptlint-gpu RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT gpu)
  list(APPEND PTLINT_PACKAGE_COMPONENTS gpu)
endif()

# Rule documentation, one Markdown page per rule plus an index, generated from the built binary
# (`ptlint rule --all`), so the installed pages are exactly what `ptlint rule CODE` prints.
set(PTLINT_RULE_DOCS_DIR "${CMAKE_BINARY_DIR}/rule-docs")
add_custom_command(
  OUTPUT "${PTLINT_RULE_DOCS_DIR}/README.md"
  COMMAND ${CMAKE_COMMAND} -DPTLINT=$<TARGET_FILE:ptlint> -DOUT=${PTLINT_RULE_DOCS_DIR}
          -P ${CMAKE_CURRENT_LIST_DIR}/GenerateRuleDocs.cmake
  DEPENDS ptlint ${CMAKE_CURRENT_LIST_DIR}/GenerateRuleDocs.cmake
  COMMENT "Generating rule documentation from ptlint rule --all"
  VERBATIM)
add_custom_target(ptlint_rule_docs ALL DEPENDS "${PTLINT_RULE_DOCS_DIR}/README.md")
install(DIRECTORY "${PTLINT_RULE_DOCS_DIR}/" DESTINATION ${CMAKE_INSTALL_DOCDIR}/rules COMPONENT ptlint)

# The Neovim module, where Neovim's default 'packpath' loads it (site/pack/*/start/*): after
# installing, `require("ptlint").setup()` works without a plugin manager.
install(DIRECTORY "${CMAKE_SOURCE_DIR}/editors/nvim/lua"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/nvim/site/pack/ptlint/start/ptlint COMPONENT ptlint)
install(FILES "${CMAKE_SOURCE_DIR}/docs/editors.md" "${CMAKE_SOURCE_DIR}/docs/install.md"
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT ptlint OPTIONAL)

# Licence: Debian's machine-readable copyright file, in each package's doc folder.
install(FILES "${CMAKE_SOURCE_DIR}/packaging/copyright" DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/ptlint COMPONENT ptlint)
if(TARGET ptlint-gpu)
  install(FILES "${CMAKE_SOURCE_DIR}/packaging/copyright" DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/ptlint-gpu COMPONENT gpu)
endif()

# ---- CPack: Debian packages ----
set(CPACK_PACKAGE_NAME "ptlint")
set(CPACK_PACKAGE_VENDOR "ptlint")
set(CPACK_PACKAGE_CONTACT "ptlint maintainers <ptlint@localhost>")
# No package-wide summary: CPack would put it on the first line of every component's
# description, ptlint-gpu's too. Each component's description starts with its own summary line.
set(CPACK_RESOURCE_FILE_LICENSE "${CMAKE_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_DESCRIPTION
    "ptlint finds PyTorch operational traps (deprecated torch.cuda.amp, GradScaler with bf16,\
 DataLoader seeding, graph breaks in compiled code, hand-rolled attention, ...) and fixes\
 them. It provides `ptlint check` and an LSP server (`ptlint --lsp`).")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "ptlint")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${PTLINT_PACKAGE_COMPONENTS})
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# Runtime dependencies from the linked shared libraries (dpkg-shlibdeps, in dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PTLINT_PACKAGE_NAME "ptlint")
set(CPACK_DEBIAN_PTLINT_FILE_NAME "DEB-DEFAULT")   # ptlint_X.Y.Z_amd64.deb
set(CPACK_DEBIAN_PTLINT_PACKAGE_SUGGESTS "ptlint-gpu, neovim, pre-commit")
set(CPACK_DEBIAN_GPU_PACKAGE_NAME "ptlint-gpu")
set(CPACK_DEBIAN_GPU_FILE_NAME "DEB-DEFAULT")      # ptlint-gpu_X.Y.Z_amd64.deb
set(CPACK_DEBIAN_GPU_PACKAGE_DEPENDS "ptlint (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_PTLINT_DESCRIPTION "Linter and language server for PyTorch code\n${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_COMPONENT_GPU_DESCRIPTION
    "Device checks for ptlint (doctor, --gpu-check), built against libtorch\n\
gpu_check worker for ptlint: device report (ptlint doctor) and on-device validation of\
 attention rewrites (ptlint check --gpu-check), built against libtorch.")

include(CPack)

# Fetches the tree-sitter-python grammar from the npm registry at a pinned version, verifies the
# tarball against its pinned npm integrity (sha512), and builds it as a static library.
# Nothing third-party is committed: the tarball lands in the build tree, once.
set(TSPY_VERSION "0.23.6")
set(TSPY_INTEGRITY "sha512-yIM9z0oxKIxT7bAtPOhgoVl6gTXlmlIhue7liFT4oBPF/lha7Ha4dQBS82Av6hMMRZoVnFJI8M6mL+SwWoLD3A==")
# The same digest in hex, as CMake's file(SHA512) prints it.
set(TSPY_SHA512 "c8833dcf4a31288c53edb02d3ce860a1597a8135e59a5221b9eee58854f8a013c5fe585aec76b8750052f3602fea130c459a159c5248f0cea62fe4b05a82c3dc")

set(_tspy_dir "${CMAKE_BINARY_DIR}/_deps/tree-sitter-python-${TSPY_VERSION}")
set(_tspy_tgz "${_tspy_dir}/tree-sitter-python-${TSPY_VERSION}.tgz")

if(NOT EXISTS "${_tspy_dir}/package/src/parser.c")
  file(MAKE_DIRECTORY "${_tspy_dir}")
  if(NOT EXISTS "${_tspy_tgz}")
    find_program(NPM_EXECUTABLE npm REQUIRED)
    message(STATUS "Fetching tree-sitter-python@${TSPY_VERSION} with npm pack")
    execute_process(
      COMMAND "${NPM_EXECUTABLE}" pack "tree-sitter-python@${TSPY_VERSION}" --silent
      WORKING_DIRECTORY "${_tspy_dir}"
      RESULT_VARIABLE _npm_rc OUTPUT_QUIET)
    if(NOT _npm_rc EQUAL 0 OR NOT EXISTS "${_tspy_tgz}")
      message(FATAL_ERROR "npm pack tree-sitter-python@${TSPY_VERSION} failed (rc=${_npm_rc}); "
                          "the npm registry must be reachable for the first configure")
    endif()
  endif()
  file(SHA512 "${_tspy_tgz}" _actual)
  if(NOT _actual STREQUAL TSPY_SHA512)
    file(REMOVE "${_tspy_tgz}")
    message(FATAL_ERROR "tree-sitter-python tarball integrity mismatch: expected ${TSPY_INTEGRITY}")
  endif()
  file(ARCHIVE_EXTRACT INPUT "${_tspy_tgz}" DESTINATION "${_tspy_dir}"
       PATTERNS package/src package/LICENSE)
endif()

add_library(tree_sitter_python STATIC
  "${_tspy_dir}/package/src/parser.c"
  "${_tspy_dir}/package/src/scanner.c")
target_include_directories(tree_sitter_python PRIVATE "${_tspy_dir}/package/src")
set_target_properties(tree_sitter_python PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
# Generated grammar code: its warnings are not ours.
target_compile_options(tree_sitter_python PRIVATE -w)

# The grammar's node kinds, from which the build generates analysis/node_kinds.h.
set(TSPY_NODE_TYPES "${_tspy_dir}/package/src/node-types.json")
set(TSPY_PARSER_C "${_tspy_dir}/package/src/parser.c")

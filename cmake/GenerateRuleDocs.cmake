# cmake -DPTLINT=<ptlint executable> -DOUT=<folder> -P GenerateRuleDocs.cmake
#
# Writes OUT/<CODE>.md with `ptlint rule CODE` for every rule of `ptlint rule --all`, and
# OUT/README.md, an index of codes, names and summaries. Stale pages are removed first.
foreach(var PTLINT OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "GenerateRuleDocs.cmake: -D${var}=... is required")
  endif()
endforeach()

execute_process(COMMAND "${PTLINT}" rule --all --output-format json
                OUTPUT_VARIABLE rules_json RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "`${PTLINT} rule --all --output-format json` failed (${rc}): ${err}")
endif()

file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(index "# ptlint rules\n\n| code | name | summary |\n| --- | --- | --- |\n")
string(JSON count LENGTH "${rules_json}")
if(count EQUAL 0)
  message(FATAL_ERROR "`ptlint rule --all` listed no rules")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON code GET "${rules_json}" ${i} code)
  string(JSON name GET "${rules_json}" ${i} name)
  string(JSON summary ERROR_VARIABLE no_summary GET "${rules_json}" ${i} summary)
  if(no_summary)
    set(summary "")
  endif()
  execute_process(COMMAND "${PTLINT}" rule "${code}" OUTPUT_FILE "${OUT}/${code}.md" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "`${PTLINT} rule ${code}` failed (${rc})")
  endif()
  string(REPLACE "|" "\\|" summary "${summary}")
  string(APPEND index "| [${code}](${code}.md) | ${name} | ${summary} |\n")
endforeach()
file(WRITE "${OUT}/README.md" "${index}")

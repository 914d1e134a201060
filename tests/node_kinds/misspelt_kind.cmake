# A misspelt node kind must not compile: runs the compiler on misspelt_kind.cpp once per case.
# cmake -DCXX=<compiler> -DSOURCE=<misspelt_kind.cpp> -DINCLUDES=<dir;dir> -P misspelt_kind.cmake
set(_flags -std=c++20 -fsyntax-only)
foreach(_dir IN LISTS INCLUDES)
  if(_dir)
    list(APPEND _flags "-I${_dir}")
  endif()
endforeach()

function(_compile case out_rc out_err)
  execute_process(COMMAND "${CXX}" ${_flags} -D${case} "${SOURCE}"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  set(${out_rc} "${_rc}" PARENT_SCOPE)
  set(${out_err} "${_out}${_err}" PARENT_SCOPE)
endfunction()

_compile(CONTROL _rc _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "FAIL: the well-spelt case does not compile:\n${_err}")
endif()
# Each case must fail for its own reason, not for a broken include path.
foreach(_case MISSPELT_CONSTANT:cal STRING_KIND:isKind STRING_COMPARISON:operator== CONSTRUCTED_KIND:private
              BRACED_STRING:isKind)
  string(REPLACE ":" ";" _pair "${_case}")
  list(GET _pair 0 _name)
  list(GET _pair 1 _expected)
  _compile(${_name} _rc _err)
  if(_rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${_name} compiles; a kind the grammar does not name must not")
  endif()
  if(NOT _err MATCHES "${_expected}")
    message(FATAL_ERROR "FAIL: ${_name} fails, but not on `${_expected}`:\n${_err}")
  endif()
  message(STATUS "${_name}: does not compile, as it must")
endforeach()

// The one registration of a rule: its file ends with
//
//   PTLINT_REGISTER_RULE(PTL123, MyRule)              // or, with constructor arguments:
//   PTLINT_REGISTER_RULE(PTL901, RuntimeFindingsRule, kGraphBreak, RuntimeFinding::Kind::GraphBreak)
//
// inside `namespace ptlint::rules`. At build time cmake/CollectRules.cmake lists every use under
// rules/<area>/ into rule_list.inc, which registry.cpp includes to build the table: nothing else
// to edit, and no static initialiser for a static library's linker to drop. A code registered
// twice is a link error (two definitions of `registeredRule_<code>`); `registry_test` checks that
// each registered code is the code its rule's metadata declares.
#pragma once

#include "rules/rule.h"

#define PTLINT_REGISTER_RULE(CODE, TYPE, ...)    \
  const ::ptlint::rules::Rule& registeredRule_##CODE() { \
    static const TYPE rule{__VA_ARGS__};         \
    return rule;                                 \
  }

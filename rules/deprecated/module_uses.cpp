#include "rules/deprecated/module_uses.h"

#include <vector>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"

namespace ptlint::rules::retired {

using analysis::dottedNameText;
using analysis::fieldOf;
using analysis::isKind;

void checkNode(TSNode node, Context& ctx, Matcher matches,
               const std::function<std::string(const std::string& name)>& describe) {
  std::string_view source = ctx.source();
  if (isKind(node, kind::call)) {
    auto q = ctx.model().calleeName(node);
    if (q && matches(*q)) ctx.report(node, describe(*q));
    return;
  }
  std::string prefix;
  if (isKind(node, kind::import_from_statement)) {
    TSNode module = fieldOf(node, "module_name");
    if (!isKind(module, kind::dotted_name)) return;  // relative: the package's own code
    prefix = dottedNameText(module, source) + ".";
  } else if (!isKind(node, kind::import_statement)) {
    return;
  }
  std::string first;
  analysis::forEachFieldChild(node, "name", [&](TSNode name) {
    TSNode target = isKind(name, kind::aliased_import) ? fieldOf(name, "name") : name;
    std::string q = prefix + dottedNameText(target, source);
    if (first.empty() && matches(q)) first = q;
  });
  // `from torchdata.datapipes.iter import *`
  if (first.empty() && !prefix.empty() && matches(prefix.substr(0, prefix.size() - 1))) first = prefix.substr(0, prefix.size() - 1);
  if (!first.empty()) ctx.report(node, "Import of " + describe(first));
}

}  // namespace ptlint::rules::retired

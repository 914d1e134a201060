// The module summariser: methods that compile their parameter, followed to the class's own calls.
#include <string>
#include <vector>

#include "analysis/module_summarizer.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

void ModuleSummarizer::noteMethodHelperCalls() {
  for (const MethodHelper& h : method_helpers_) {
    const std::string& method = out_.classes[h.def->index].methods[h.def->method].name;
    forEachWholeWord(source_, method, [&](size_t at) {
      TSNode node = ts_node_descendant_for_byte_range(model_.file().root(), static_cast<uint32_t>(at),
                                                      static_cast<uint32_t>(at + method.size()));
      TSNode callee = ts_node_parent(node), call = ts_node_parent(callee);
      if (!isKind(node, kind::identifier) || !isKind(callee, kind::attribute) || !isKind(call, kind::call) ||
          !sameNode(fieldOf(callee, "attribute"), node) || !sameNode(fieldOf(call, "function"), callee))
        return false;
      TSNode up = ts_node_parent(call);
      while (isKind(up, kind::parenthesized_expression)) up = ts_node_parent(up);
      if (isKind(up, kind::expression_statement)) return false;  // the compiled wrapper is thrown away
      TSNode def = call;
      while (!ts_node_is_null(def) && !isKind(def, kind::function_definition)) def = ts_node_parent(def);
      auto it = ts_node_is_null(def) ? index_by_def_.end() : index_by_def_.find(def.id);
      if (it == index_by_def_.end()) return false;
      const Def* caller = &defs_[it->second];
      if (ts_node_is_null(caller->cls) || !sameNode(caller->cls, h.def->cls) || selfAttribute(callee, caller) != method)
        return false;
      TSNode arg{};
      int position = 0;
      forEachNamedChild(fieldOf(call, "arguments"), [&](TSNode a) {
        if (isKind(a, kind::keyword_argument)) {
          if (textOf(fieldOf(a, "name"), source_) == h.name) arg = fieldOf(a, "value");
        } else if (!isKind(a, kind::comment) && !isKind(a, kind::list_splat) && !isKind(a, kind::dictionary_splat)) {
          if (position++ == h.index && h.index >= 0) arg = a;
        }
      });
      if (ts_node_is_null(arg)) return false;
      CompileSite site;
      site.at = pos(call);
      if (std::string_view attr = selfAttribute(arg, caller); !attr.empty()) {
        site.kind = CompileSite::Kind::SelfAttr;
        site.owner = out_.classes[caller->index].name;
        site.attr = std::string(attr);
        out_.compile_sites.push_back(std::move(site));
      } else if (std::vector<NameRef> classes; instanceClasses(arg, 0, classes)) {
        site.kind = CompileSite::Kind::Instance;
        for (auto& cls : classes) {
          site.target = std::move(cls);
          out_.compile_sites.push_back(site);
        }
      }
      return false;
    });
  }
}

}  // namespace ptlint::analysis

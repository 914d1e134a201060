#include "rules/compile/compile_path.h"

#include <fmt/format.h>

#include "analysis/syntax.h"

namespace ptlint::rules {

std::string compiledFunctionPhrase(const analysis::CompiledRegions::Function& fn) {
  return fn.caller == nullptr ? fmt::format("compiled `{}`", fn.display_name)
                              : fmt::format("`{}`, which compiled `{}` calls,", fn.display_name, fn.root->display_name);
}

void addCompilePath(Diagnostic& d, const analysis::CompiledRegions::Function& fn) {
  int hops = 0;
  for (const auto* f = &fn; f != nullptr && hops < 8; f = f->caller, ++hops) {
    if (f->caller != nullptr)
      d.related.push_back({analysis::startOf(f->site), analysis::endOf(f->site),
                           fmt::format("`{}` is called from compiled `{}` here", f->display_name, f->caller->display_name)});
    else if (f->external == nullptr)
      d.related.push_back({analysis::startOf(f->site), analysis::endOf(f->site),
                           fmt::format("`{}` is compiled here", f->display_name)});
  }
  // Compiled from another file: the calls and the compile site there.
  if (fn.root->external == nullptr) return;
  for (const auto& note : fn.root->external->trail) {
    RelatedInfo info{note.at.start, note.at.end, note.message};
    info.path = note.path;
    info.line = note.at.line;
    info.column = note.at.column;
    info.column_utf16 = note.at.column_utf16;
    info.column_bytes = note.at.column_bytes;
    d.related.push_back(std::move(info));
  }
}

}  // namespace ptlint::rules

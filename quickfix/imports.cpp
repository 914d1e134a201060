#include "quickfix/imports.h"

#include <string>

#include "analysis/syntax.h"

namespace ptlint::quickfix {
namespace {

using analysis::endOf;
using analysis::isKind;
using analysis::startOf;

bool isDocstring(TSNode node) {
  return isKind(node, kind::expression_statement) && ts_node_named_child_count(node) == 1 &&
         (isKind(ts_node_named_child(node, 0), kind::string) || isKind(ts_node_named_child(node, 0), kind::concatenated_string));
}

bool isImport(TSNode node) { return isKind(node, kind::import_statement) || isKind(node, kind::import_from_statement); }

// The file's leading statements: the docstring, `from __future__` imports and the imports that
// follow them, up to the first other statement (`first_other`, null when none).
struct Leading {
  std::vector<TSNode> imports;  // plain imports of the leading block
  TSNode last{};                // the last leading statement (docstring, __future__ or import)
  TSNode first_other{};
};

Leading leadingStatements(TSNode root) {
  Leading out;
  bool seen = false;
  uint32_t count = ts_node_named_child_count(root);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(root, i);
    if (isKind(child, kind::comment)) continue;
    bool docstring = !seen && isDocstring(child);
    seen = true;
    if (docstring || isKind(child, kind::future_import_statement)) {
      out.last = child;
      continue;
    }
    if (isImport(child)) {
      out.imports.push_back(child);
      out.last = child;
      continue;
    }
    out.first_other = child;
    break;
  }
  return out;
}

bool blankLine(std::string_view line) { return line.find_first_not_of(" \t\r\n\f") == std::string_view::npos; }

bool commentLine(std::string_view line) {
  size_t first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '#';
}

std::string normalizedDotted(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\\' && c != '\n' && c != '\r') out += c;
  return out;
}

}  // namespace

uint32_t moduleInsertionPoint(const analysis::ParsedFile& file, bool* at_end) {
  std::string_view source = file.text();
  const auto& lines = file.lines();
  auto size = static_cast<uint32_t>(source.size());
  if (at_end) *at_end = false;
  auto endOfFile = [&] {
    if (at_end) *at_end = !source.empty() && source.back() != '\n';
    return size;
  };
  Leading leading = leadingStatements(file.root());
  if (!ts_node_is_null(leading.last)) {
    // The start of the line after the statement (a comment on its line stays with it).
    uint32_t row = lines.lineOf(endOf(leading.last));
    if (row + 1 >= lines.lineCount() || lines.lineStart(row + 1) > size) return endOfFile();
    return lines.lineStart(row + 1);
  }
  if (ts_node_is_null(leading.first_other)) return endOfFile();  // only comments, or nothing
  // Before the first statement, and above the comment lines that belong to it (touching it),
  // unless those start the file: a licence header, a shebang, an encoding line stay on top.
  uint32_t row = lines.lineOf(startOf(leading.first_other));
  uint32_t top = row;
  while (top > 0 && commentLine(lines.lineText(top - 1, source))) --top;
  if (top > 0 && top < row && !blankLine(lines.lineText(top - 1, source))) top = row;
  return lines.lineStart(top == 0 ? row : top);
}

std::optional<std::string> visibleSpelling(const analysis::SemanticModel& model, std::string_view qualified, TSNode at) {
  // A module-level import below `at` is not bound yet when module-level code at `at` runs.
  auto inTime = [&](const std::string& name) {
    const analysis::Binding* b = model.resolve(name.substr(0, name.find('.')), at);
    if (b == nullptr) return false;
    if (startOf(b->statement) < startOf(at)) return true;
    for (TSNode n = ts_node_parent(at); !ts_node_is_null(n); n = ts_node_parent(n))
      if (isKind(n, kind::function_definition) || isKind(n, kind::lambda)) return true;
    return false;
  };
  for (size_t cut = qualified.size(); cut != std::string_view::npos && cut > 0; cut = qualified.rfind('.', cut - 1)) {
    auto name = model.visibleNameFor(qualified.substr(0, cut), at);
    if (name && inTime(*name)) return *name + std::string(qualified.substr(cut));
    if (cut == 0) break;
  }
  return std::nullopt;
}

bool importedOnlyInBlocks(const analysis::SemanticModel& model, std::string_view package) {
  bool found = false;
  for (const analysis::Binding* binding : model.imports()) {
    std::string_view q = binding->qualified_name;
    if (q.substr(0, q.find('.')) != package) continue;
    found = true;
    TSNode parent = ts_node_parent(binding->statement);
    if (binding->scope != nullptr && binding->scope->kind == analysis::Scope::Kind::Module && isKind(parent, kind::module))
      return false;
  }
  return found;
}

std::optional<Edit> addImport(const analysis::SemanticModel& model, std::string_view statement) {
  const analysis::ParsedFile& file = model.file();
  std::string_view source = file.text();
  std::string_view module, name;
  if (statement.starts_with("from ")) {
    size_t import = statement.find(" import ");
    if (import == std::string_view::npos) return std::nullopt;
    module = statement.substr(5, import - 5);
    name = statement.substr(import + 8);
  } else if (statement.starts_with("import ")) {
    module = statement.substr(7, statement.find(" as ") == std::string_view::npos ? std::string_view::npos
                                                                                  : statement.find(" as ") - 7);
  } else {
    return std::nullopt;
  }
  if (importedOnlyInBlocks(model, module.substr(0, module.find('.')))) return std::nullopt;

  Leading leading = leadingStatements(file.root());
  if (!name.empty() && name.find(',') == std::string_view::npos) {
    // Join `from <module> import a, b` of the leading imports.
    for (TSNode import : leading.imports) {
      if (!isKind(import, kind::import_from_statement)) continue;
      TSNode module_node = analysis::fieldOf(import, "module_name");
      if (!isKind(module_node, kind::dotted_name) || normalizedDotted(model.text(module_node)) != module) continue;
      TSNode last{};
      bool present = false;
      analysis::forEachFieldChild(import, "name", [&](TSNode n) {
        last = n;
        present = present || model.text(n) == name;
      });
      if (ts_node_is_null(last)) continue;  // `from m import *`
      if (present) return Edit{endOf(last), endOf(last), ""};
      std::string_view after = source.substr(endOf(last), endOf(import) - endOf(last));
      size_t comma = after.find_first_not_of(" \t");
      if (comma != std::string_view::npos && after[comma] == ',' && after.find('\n', comma) != std::string_view::npos) {
        // One name per line with a trailing comma: a line like the last name's.
        uint32_t line_start = startOf(last);
        while (line_start > 0 && source[line_start - 1] != '\n') --line_start;
        std::string_view indent = source.substr(line_start, startOf(last) - line_start);
        if (indent.find_first_not_of(" \t") == std::string_view::npos) {
          uint32_t at = endOf(last) + static_cast<uint32_t>(comma) + 1;
          return Edit{at, at, "\n" + std::string(indent) + std::string(name) + ","};
        }
      }
      return Edit{endOf(last), endOf(last), ", " + std::string(name)};
    }
  }
  bool at_end = false;
  uint32_t at = moduleInsertionPoint(file, &at_end);
  return Edit{at, at, (at_end ? "\n" : "") + std::string(statement) + "\n"};
}

Edit addModuleStatement(const analysis::ParsedFile& file, std::string_view statement) {
  bool at_end = false;
  uint32_t at = moduleInsertionPoint(file, &at_end);
  std::string content = at_end ? "\n" : "";
  // Set apart from the imports above it.
  Leading leading = leadingStatements(file.root());
  if (!leading.imports.empty() && analysis::sameNode(leading.last, leading.imports.back())) content += "\n";
  return Edit{at, at, content + std::string(statement) + "\n"};
}

}  // namespace ptlint::quickfix

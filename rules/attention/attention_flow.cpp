#include "rules/attention/attention_flow.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::rules::attention {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::startOf;

namespace {

bool isStatementParent(TSNode node) { return isKind(node, kind::block) || isKind(node, kind::module); }

bool opensScope(TSNode node) {
  analysis::NodeKind kind = kindOf(node);
  return kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda;
}

}  // namespace

TSNode enclosingStatement(TSNode node) {
  for (TSNode cur = node; !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    TSNode parent = ts_node_parent(cur);
    if (ts_node_is_null(parent)) return {};
    if (isStatementParent(parent)) return cur;
  }
  return {};
}

TSNode enclosingFunctionOrModule(TSNode node) {
  TSNode last = node;
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    if (isKind(cur, kind::function_definition)) return cur;
    if (isKind(cur, kind::lambda) || isKind(cur, kind::class_definition)) return {};  // not a plain body
    last = cur;
  }
  return last;
}

std::string_view FunctionFlow::text(TSNode node) const { return analysis::textOf(node, source_); }

void FunctionFlow::addTargets(TSNode target, TSNode statement, TSNode block) {
  // Every identifier bound (or mutated through a subscript) by `target` becomes opaque.
  analysis::walkTree(
      target,
      [&](TSNode node) {
        if (isKind(node, kind::identifier)) {
          TSNode parent = ts_node_parent(node);
          if (isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "attribute"), node)) return false;
          // In `x[i]` / `x.attr` only the base object counts as mutated.
          defs_.push_back({Definition::Kind::Opaque, text(node), statement, node, {}, block});
          return false;
        }
        if (isKind(node, kind::subscript)) {
          TSNode value = fieldOf(node, "value");
          while (isKind(value, kind::subscript) || isKind(value, kind::attribute))
            value = isKind(value, kind::subscript) ? fieldOf(value, "value") : fieldOf(value, "object");
          if (isKind(value, kind::identifier))
            defs_.push_back({Definition::Kind::Opaque, text(value), statement, value, {}, block});
          return false;
        }
        if (isKind(node, kind::attribute)) return false;  // self.x = ...: not a local
        return true;
      },
      [](TSNode) {});
}

FunctionFlow::FunctionFlow(TSNode owner, std::string_view source) : owner_(owner), source_(source) {
  TSNode body = isKind(owner, kind::function_definition) ? fieldOf(owner, "body") : owner;
  if (ts_node_is_null(body)) return;
  // Ancestors are kept on stacks during the walk: ts_node_parent costs O(depth), and bodies can
  // nest 100,000 deep.
  std::vector<TSNode> ancestors;
  std::vector<TSNode> block_stack;
  std::vector<TSNode> statement_stack;
  int nested = 0;  // > 0 inside a nested def/class/lambda: reads only
  analysis::walkTree(
      body,
      [&](TSNode node) {
        TSNode parent = ancestors.empty() ? TSNode{} : ancestors.back();
        ancestors.push_back(node);
        if (!ts_node_is_null(parent) && isStatementParent(parent)) statement_stack.push_back(node);
        if (isStatementParent(node)) block_stack.push_back(node);
        if (isKind(node, kind::identifier)) {
          bool read = true;
          if (isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "attribute"), node)) read = false;
          if (isKind(parent, kind::keyword_argument) && analysis::sameNode(fieldOf(parent, "name"), node)) read = false;
          if (isKind(parent, kind::assignment) && analysis::sameNode(fieldOf(parent, "left"), node)) read = false;
          if (nested > 0 || read) uses_.push_back(node);
          return false;
        }
        if (!ts_node_is_named(node)) return true;
        if (opensScope(node)) {
          ++nested;
          return true;
        }
        if (nested > 0) return true;
        TSNode statement = statement_stack.empty() ? TSNode{} : statement_stack.back();
        TSNode block = block_stack.empty() ? TSNode{} : block_stack.back();
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::assignment) {
          TSNode left = fieldOf(node, "left");
          TSNode right = fieldOf(node, "right");
          // `a = b = value` nests assignments on the right; only a plain `name = value` is followed.
          if (isKind(left, kind::identifier) && !ts_node_is_null(right) && !isKind(right, kind::assignment))
            defs_.push_back({Definition::Kind::Assign, text(left), statement, node, right, block});
          else if (!ts_node_is_null(left))
            addTargets(left, statement, block);
        } else if (kind == kind::augmented_assignment) {
          TSNode left = fieldOf(node, "left");
          if (isKind(left, kind::identifier))
            defs_.push_back({Definition::Kind::AugAssign, text(left), statement, node, fieldOf(node, "right"), block});
          else
            addTargets(left, statement, block);
        } else if (kind == kind::named_expression) {
          defs_.push_back({Definition::Kind::Opaque, text(fieldOf(node, "name")), statement, node, {}, block});
        } else if (kind == kind::for_statement) {
          addTargets(fieldOf(node, "left"), node, block);
        } else if (kind == kind::as_pattern) {
          if (TSNode alias = fieldOf(node, "alias"); !ts_node_is_null(alias)) addTargets(alias, statement, block);
        } else if (kind == kind::delete_statement || kind == kind::global_statement || kind == kind::nonlocal_statement) {
          analysis::forEachNamedChild(node, [&](TSNode child) { addTargets(child, node, block); });
        } else if (kind == kind::expression_statement) {
          // `scores.masked_fill_(mask, -inf)`: an in-place method called for its effect.
          TSNode call = ts_node_named_child(node, 0);
          if (isKind(call, kind::call)) {
            TSNode function = fieldOf(call, "function");
            if (isKind(function, kind::attribute)) {
              TSNode object = analysis::unparenthesize(fieldOf(function, "object"));
              std::string_view method = text(fieldOf(function, "attribute"));
              if (isKind(object, kind::identifier) && method.size() > 1 && method.back() == '_' && method[method.size() - 2] != '_')
                defs_.push_back({Definition::Kind::InPlace, text(object), node, call, call, block});
            }
          }
        }
        return true;
      },
      [&](TSNode node) {
        if (!statement_stack.empty() && analysis::sameNode(statement_stack.back(), node)) statement_stack.pop_back();
        if (isStatementParent(node) && !block_stack.empty()) block_stack.pop_back();
        if (opensScope(node)) --nested;
        if (!ancestors.empty()) ancestors.pop_back();
      });
  // Definitions take effect where their node ends; keep them ordered by that.
  std::stable_sort(defs_.begin(), defs_.end(),
                   [](const Definition& a, const Definition& b) { return endOf(a.node) < endOf(b.node); });
}

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\r'; }

// The byte ranges of `code` that certainly lie in the body of a lambda (`lambda a, b: a @ b.mT`,
// a product whose owner is no function), from the `:` after its parameters to the first place
// where the body may end: a `,`, `;`, `:`, `=`, line break or quote outside the body's brackets,
// a bracket closing one opened before the body, a `for` or `async` (a comprehension's clause).
// Ending early only makes a range smaller; a range never reaches past the lambda.
std::vector<std::pair<size_t, size_t>> lambdaBodies(std::string_view code) {
  std::vector<std::pair<size_t, size_t>> bodies;
  analysis::forEachWholeWord(code, "lambda", [&](size_t at) {
    // The parameters: up to the first `:` outside their brackets (defaults may hold some).
    size_t colon = std::string_view::npos;
    int depth = 0;
    for (size_t i = at + 6; i < code.size(); ++i) {
      char c = code[i];
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth < 0) break;
      } else if (c == '\n' || c == '"' || c == '\'' || c == ';') {
        if (depth == 0 || c != '\n') break;
      } else if (c == ':' && depth == 0) {
        colon = i;
        break;
      }
    }
    if (colon == std::string_view::npos) return false;
    depth = 0;
    size_t i = colon + 1;
    for (; i < code.size(); ++i) {
      char c = code[i];
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth < 0) break;
      } else if (c == '"' || c == '\'') {
        break;
      } else if (depth == 0 && (c == ',' || c == ';' || c == ':' || c == '=' || c == '\n')) {
        break;
      } else if (depth == 0 && (c == 'f' || c == 'a') && analysis::isWholeWordAt(code, i, c == 'f' ? 3 : 5) &&
                 code.substr(i, c == 'f' ? 3 : 5) == (c == 'f' ? "for" : "async")) {
        break;
      }
    }
    bodies.emplace_back(colon + 1, i);
    return false;
  });
  return bodies;
}

bool inSome(const std::vector<std::pair<size_t, size_t>>& ranges, size_t at) {
  for (const auto& [begin, end] : ranges)
    if (at >= begin && at < end) return true;
  return false;
}

// A function of the code found by its layout: the bytes from its `def` line up to the next
// logical line indented no deeper, and whether a class encloses it.
struct DefBlock {
  size_t begin = 0, end = 0;
  bool in_class = false;
};

// The functions of `code` (a code view) by indentation: a `def` (or `async def`) that starts a
// logical line (outside brackets and strings, not after a `\`). Nothing when the layout is
// unclear (a tab in an indentation, a bracket count that goes negative, a string that does not
// close): then no product is ruled out by its function.
std::optional<std::vector<DefBlock>> defBlocks(std::string_view code) {
  struct Open {
    size_t indent;
    size_t block;  // index in `blocks`, or npos for a class
  };
  std::vector<DefBlock> blocks;
  std::vector<Open> open;
  int depth = 0;
  bool continued = false;
  size_t i = 0;
  while (i < code.size()) {
    // At the start of a physical line.
    size_t line = i;
    bool logical = depth == 0 && !continued;
    size_t indent = 0;
    while (i < code.size() && isBlank(code[i])) {
      if (code[i] == '\t' || code[i] == '\f') {
        if (logical) return std::nullopt;
      }
      ++i, ++indent;
    }
    if (i < code.size() && code[i] != '\n' && logical) {
      while (!open.empty() && open.back().indent >= indent) {
        if (open.back().block != std::string_view::npos) blocks[open.back().block].end = line;
        open.pop_back();
      }
      std::string_view rest = code.substr(i);
      if (rest.starts_with("async") && rest.size() > 5 && isBlank(rest[5])) {
        size_t k = 5;
        while (k < rest.size() && isBlank(rest[k])) ++k;
        rest = rest.substr(k);
      }
      bool is_def = rest.starts_with("def") && rest.size() > 3 && isBlank(rest[3]);
      bool is_class = rest.starts_with("class") && rest.size() > 5 && !analysis::isIdentifierByte(rest[5]);
      if (is_def) {
        bool in_class = false;
        for (const Open& o : open) in_class = in_class || o.block == std::string_view::npos;
        blocks.push_back({line, code.size(), in_class});
        open.push_back({indent, blocks.size() - 1});
      } else if (is_class) {
        open.push_back({indent, std::string_view::npos});
      }
    }
    // The rest of the line: brackets, strings stepped over whole (they may span lines).
    char last = '\n';
    for (; i < code.size() && code[i] != '\n'; ++i) {
      char c = code[i];
      if (c == '"' || c == '\'') {
        bool triple = i + 2 < code.size() && code[i + 1] == c && code[i + 2] == c;
        size_t j = i + (triple ? 3 : 1);
        for (; j < code.size(); ++j) {
          if (code[j] == '\\') ++j;
          else if (code[j] == c && (!triple || (j + 2 < code.size() && code[j + 1] == c && code[j + 2] == c))) break;
        }
        if (j >= code.size()) return std::nullopt;
        i = triple ? j + 2 : j;
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth < 0) return std::nullopt;
      }
      if (!isBlank(c) && c != '\r') last = c;
    }
    continued = last == '\\';
    if (i < code.size()) ++i;  // the line break
  }
  return blocks;
}

// Which products can be a candidate, by where they stand: not inside a lambda's body, not in a
// function whose text spells no softmax (the index flags a function by the softmax it names, its
// nested functions' included, or, for a method, by its class naming `Softmax`), nor in one that
// names `scaled_dot_product_attention`.
class ProductSites {
 public:
  explicit ProductSites(std::string_view code) : code_(code) {}

  bool mayCount(size_t at) const {
    if (!made_) {  // on the first product found: most files have none
      made_ = true;
      lambdas_ = lambdaBodies(code_);
      defs_ = defBlocks(code_);
      class_softmax_ = analysis::findBytes(code_, "Softmax") != std::string_view::npos;
    }
    if (inSome(lambdas_, at)) return false;
    if (!defs_) return true;
    const DefBlock* owner = nullptr;
    for (const DefBlock& d : *defs_)
      if (d.begin <= at && at < d.end && (owner == nullptr || d.begin > owner->begin)) owner = &d;
    if (owner == nullptr) return true;  // module level, or a class body
    std::string_view body = code_.substr(owner->begin, owner->end - owner->begin);
    if (callsSdpa(body)) return false;
    if (owner->in_class && class_softmax_) return true;
    return analysis::findBytes(body, "oftmax") != std::string_view::npos;
  }

  // Does a name in `body` (a function's code) spell `scaled_dot_product_attention`, which flags
  // the function as one that has it already? Looked for outside strings only (an f-string's text
  // is kept in the code view), and only when the body holds no lambda or class (whose names the
  // index does not count for the function).
  static bool callsSdpa(std::string_view body) {
    constexpr std::string_view kName = "scaled_dot_product_attention";
    if (analysis::findBytes(body, kName) == std::string_view::npos) return false;
    if (analysis::forEachWholeWord(body, "lambda", [](size_t) { return true; }) ||
        analysis::forEachWholeWord(body, "class", [](size_t) { return true; }))
      return false;
    size_t segment = 0;  // where the code outside strings resumes
    for (size_t i = 0; i < body.size(); ++i) {
      char c = body[i];
      if (c != '"' && c != '\'') continue;
      if (analysis::findBytes(body.substr(segment, i - segment), kName) != std::string_view::npos) return true;
      bool triple = i + 2 < body.size() && body[i + 1] == c && body[i + 2] == c;
      size_t j = i + (triple ? 3 : 1);
      for (; j < body.size(); ++j) {
        if (body[j] == '\\') ++j;
        else if (body[j] == c && (!triple || (j + 2 < body.size() && body[j + 1] == c && body[j + 2] == c))) break;
      }
      if (j >= body.size()) return false;
      i = triple ? j + 2 : j;
      segment = i + 1;
    }
    return analysis::findBytes(body.substr(std::min(segment, body.size())), kName) != std::string_view::npos;
  }

 private:
  std::string_view code_;
  mutable bool made_ = false;
  mutable std::vector<std::pair<size_t, size_t>> lambdas_;
  mutable std::optional<std::vector<DefBlock>> defs_;
  mutable bool class_softmax_ = false;
};

// Could some `@` in `code` be the binary operator (or `@=`)? A `@` is a decorator's only when it
// is the first thing on a line that does not continue the previous one (no `\` before the line
// break, no open bracket) and an identifier follows it at once. Brackets are counted in the code
// view, where string contents are blanked; f-strings are kept (their literal parts may hold
// brackets: `rf"\[{lo}\)"`), so each string is stepped over whole, and a `@` inside an f-string
// (in its `{...}`, or not) counts. A count that goes negative is not trusted (the answer is yes).
bool mayHoldMatmulOperator(std::string_view code, const ProductSites& sites) {
  if (code.find('@') == std::string_view::npos) return false;
  int depth = 0;
  bool line_start = true;      // only blanks so far on this line
  bool continued = false;      // the previous line ended with `\`
  char last = '\n';            // the last non-blank byte of the line so far
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c == '\n') {
      continued = last == '\\';
      line_start = true;
      last = '\n';
      continue;
    }
    if (isBlank(c)) continue;
    if (c == '"' || c == '\'') {
      // A string: up to its closing quote (the code view holds no quote inside an f-string's
      // `{...}`; a backslash escapes the next byte, also in a raw string).
      bool triple = i + 2 < code.size() && code[i + 1] == c && code[i + 2] == c;
      size_t j = i + (triple ? 3 : 1);
      for (; j < code.size(); ++j) {
        if (code[j] == '\\') ++j;
        else if (code[j] == '@') return true;
        else if (code[j] == c && (!triple || (j + 2 < code.size() && code[j + 1] == c && code[j + 2] == c))) break;
      }
      if (j >= code.size()) return true;
      i = triple ? j + 2 : j;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return true;
    } else if (c == '@') {
      bool decorator = line_start && !continued && depth == 0 && i + 1 < code.size() &&
                       analysis::isIdentifierByte(code[i + 1]) && !(code[i + 1] >= '0' && code[i + 1] <= '9');
      if (!decorator && sites.mayCount(i)) return true;
    }
    line_start = false;
    last = c;
  }
  return false;
}

// Is some `matmul`, `bmm` or `einsum` in `code` called (`torch.matmul(`, `q.bmm (`), rather
// than only defined (`def bmm(`) or referred to (`torch.matmul,`)?
bool mayCallProduct(std::string_view code, const ProductSites& sites) {
  for (std::string_view word : {"matmul", "bmm", "einsum"}) {
    bool called = analysis::forEachWholeWord(code, word, [&](size_t at) {
      size_t after = at + word.size();
      while (after < code.size() && (isBlank(code[after]) || code[after] == '\n' || code[after] == '\\')) ++after;
      if (after >= code.size() || code[after] != '(') return false;
      size_t before = at;
      while (before > 0 && isBlank(code[before - 1])) --before;
      bool defined = before >= 3 && code.substr(before - 3, 3) == "def" &&
                     (before == 3 || !analysis::isIdentifierByte(code[before - 4]));
      return !defined && sites.mayCount(at);
    });
    if (called) return true;
  }
  return false;
}

}  // namespace

bool codeMayHoldCandidates(std::string_view code) {
  if (analysis::findBytes(code, "oftmax") == std::string_view::npos) return false;  // softmax, Softmax
  // A product inside a lambda has no function to own it, one in a function that names no softmax
  // is no candidate either.
  ProductSites sites(code);
  return mayCallProduct(code, sites) || mayHoldMatmulOperator(code, sites);
}

AttentionIndex::AttentionIndex(TSNode root, std::string_view source, std::string_view code) : source_(source) {
  owners_.reserve(64);
  std::vector<int> stack;  // owner index per open def; -1 for a class body or a lambda
  owners_.push_back({root, false, false, -1});
  stack.push_back(0);
  // A class that names `Softmax` anywhere (`self.attend = nn.Softmax(dim=-1)` in `__init__`) may
  // call that module from any of its methods under any attribute name: its methods are candidates,
  // and the matcher resolves what `self.<attr>(...)` is.
  std::vector<bool> class_softmax;
  std::vector<int> classes;  // open classes, innermost last
  std::vector<bool> scope_is_class;  // per open def / lambda / class: whether it is a class
  // Every fact the pass records sits on one of these words. A subtree without any records
  // nothing: its products are not in the text, and the defs inside have no products and set no
  // flag. Skipping it is exact, and leaves a few ancestors of each word to walk. Names, calls and
  // operators are code: the words are looked for outside strings and comments.
  static constexpr std::string_view kWords[] = {"@", "matmul", "bmm", "einsum", "softmax", "Softmax",
                                                "scaled_dot_product_attention"};
  static const analysis::WordSet word_set(kWords);
  analysis::WordPositions words;
  words.addAll(code, word_set);
  TSNode skipped{};
  analysis::walkTree(
      root,
      [&](TSNode node) {
        if (!words.anyWithin(ts_node_start_byte(node), ts_node_end_byte(node))) {
          skipped = node;  // its leave() follows at once: nothing was pushed for it
          return false;
        }
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::function_definition) {
          int parent = stack.back();
          // A method: the innermost open scope is a class body (not a lambda, not a def).
          int cls = stack.back() == -1 && !scope_is_class.empty() && scope_is_class.back() ? classes.back() : -1;
          owners_.push_back({node, false, false, parent, cls});
          stack.push_back(static_cast<int>(owners_.size()) - 1);
          scope_is_class.push_back(false);
        } else if (kind == kind::lambda || kind == kind::class_definition) {
          stack.push_back(-1);
          scope_is_class.push_back(kind == kind::class_definition);
          if (kind == kind::class_definition) {
            classes.push_back(static_cast<int>(class_softmax.size()));
            class_softmax.push_back(false);
          }
        } else if (kind == kind::identifier) {
          std::string_view name = analysis::textOf(node, source_);
          if (stack.back() >= 0) {
            Owner& owner = owners_[static_cast<size_t>(stack.back())];
            if (name.find("softmax") != std::string_view::npos || name.find("Softmax") != std::string_view::npos)
              owner.softmax = true;
            if (name.find("scaled_dot_product_attention") != std::string_view::npos) owner.sdpa = true;
          }
          if (name == "Softmax")
            if (!classes.empty()) class_softmax[static_cast<size_t>(classes.back())] = true;
          return false;
        } else if (kind == kind::binary_operator || kind == kind::call) {
          bool product = false;
          if (kind == kind::binary_operator) {
            product = analysis::textOf(fieldOf(node, "operator"), source_) == "@";
          } else {
            TSNode function = fieldOf(node, "function");
            std::string_view last =
                analysis::textOf(isKind(function, kind::attribute) ? fieldOf(function, "attribute") : function, source_);
            product = last == "matmul" || last == "bmm" || last == "einsum";
          }
          if (product) product_owner_[key(node)] = stack.back();
        }
        return true;
      },
      [&](TSNode node) {
        if (analysis::sameNode(node, skipped)) return;
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::class_definition && !classes.empty()) classes.pop_back();
        if (kind == kind::function_definition || kind == kind::lambda || kind == kind::class_definition) {
          int closed = stack.back();
          stack.pop_back();
          if (!scope_is_class.empty()) scope_is_class.pop_back();
          // What a nested def mentions counts for the enclosing one too.
          if (closed > 0) {
            const Owner& inner = owners_[static_cast<size_t>(closed)];
            for (int i = static_cast<int>(stack.size()) - 1; i >= 0; --i) {
              if (stack[static_cast<size_t>(i)] < 0) continue;
              Owner& outer = owners_[static_cast<size_t>(stack[static_cast<size_t>(i)])];
              outer.softmax = outer.softmax || inner.softmax;
              outer.sdpa = outer.sdpa || inner.sdpa;
              break;
            }
          }
        }
      });
  for (Owner& owner : owners_)
    if (owner.cls >= 0 && class_softmax[static_cast<size_t>(owner.cls)]) owner.softmax = true;
  for (const auto& [product, owner] : product_owner_)
    if (owner >= 0 && owners_[static_cast<size_t>(owner)].softmax && !owners_[static_cast<size_t>(owner)].sdpa)
      has_candidates_ = true;
}

const AttentionIndex::Owner* AttentionIndex::ownerOf(TSNode product) const {
  auto it = product_owner_.find(key(product));
  if (it == product_owner_.end() || it->second < 0) return nullptr;
  return &owners_[static_cast<size_t>(it->second)];
}

const FunctionFlow& AttentionIndex::flow(const Owner& owner) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = flows_[&owner];
  if (!slot) slot = std::make_unique<FunctionFlow>(owner.node, source_);
  return *slot;
}

const Definition* FunctionFlow::reaching(std::string_view name, uint32_t at) const {
  const Definition* found = nullptr;
  for (const auto& def : defs_) {
    if (endOf(def.node) > at) break;
    if (def.name == name) found = &def;
  }
  return found;
}

const Definition* FunctionFlow::previous(const Definition* def) const {
  const Definition* found = nullptr;
  for (const auto& candidate : defs_) {
    if (&candidate == def) return found;
    if (candidate.name == def->name) found = &candidate;
  }
  return nullptr;
}

bool FunctionFlow::definedBetween(std::string_view name, uint32_t from, uint32_t to) const {
  return std::any_of(defs_.begin(), defs_.end(), [&](const Definition& def) {
    return def.name == name && startOf(def.node) >= from && startOf(def.node) < to;
  });
}

}  // namespace ptlint::rules::attention

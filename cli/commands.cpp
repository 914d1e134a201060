#include "cli/commands.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

#include "cli/terminal.h"
#include "ptlint/version.h"

namespace ptlint::cli {
namespace {

struct ConfigKey {
  const char* name;
  const char* type;
  const char* default_value;
  const char* doc;
  const char* example;
};

// The keys of `ptlint.toml` (top level), `.ptlint.toml` and `pyproject.toml` (`[tool.ptlint]`).
const std::vector<ConfigKey>& configKeys() {
  static const std::vector<ConfigKey> kKeys{
      {"extend", "str", "none",
       "Another configuration file to merge this one onto: its settings apply, and a key set here replaces its "
       "value (`extend-select` and `extend-exclude` add up; `ignore` adds up unless `select` is set here). The path "
       "is relative to this file's folder; `~` is the home folder. A cycle is an error.",
       "extend = \"../ptlint.toml\""},
      {"select", "list[str]", "the default rule set",
       "Rule codes or prefixes to enable (`PTL1` selects PTL100-PTL199, `ALL` every rule).",
       "select = [\"PTL1\", \"PTL501\"]"},
      {"extend-select", "list[str]", "[]", "Rule codes or prefixes to enable on top of `select`.",
       "extend-select = [\"PTL6\"]"},
      {"ignore", "list[str]", "[]", "Rule codes or prefixes to disable.", "ignore = [\"PTL101\"]"},
      {"per-file-ignores", "dict[str, list[str]]", "{}",
       "Codes to disable in the files a glob matches (relative to this file's folder).",
       "[per-file-ignores]\n\"tests/*\" = [\"PTL501\"]"},
      {"fixable", "list[str]", "[\"ALL\"]", "Only these codes or prefixes get fixes.", "fixable = [\"PTL1\"]"},
      {"unfixable", "list[str]", "[]", "Codes or prefixes whose fixes are never shown or applied.",
       "unfixable = [\"PTL601\"]"},
      {"exclude", "list[str]", "[\".git\", \".venv\", \"build\", \"dist\", ...]",
       "Globs of files and folders the walk skips (replaces the default list).", "exclude = [\"generated\"]"},
      {"extend-exclude", "list[str]", "[]", "Globs skipped in addition to `exclude`.",
       "extend-exclude = [\"legacy/*\"]"},
      {"respect-gitignore", "bool", "true", "Skip what `.gitignore`, `.git/info/exclude` and the global ignore file "
                                            "exclude.",
       "respect-gitignore = false"},
      {"torch-version", "str", "the project's torch requirement, else \">=2.6\"",
       "The PyTorch releases the project runs on, a PEP 440 range (a bare \"2.1\" means \">=2.1\").",
       "torch-version = \">=2.4,<2.9\""},
      {"unsafe-fixes", "bool", "false", "Apply (and show as fixable) unsafe fixes too.", "unsafe-fixes = true"},
      {"compile-decorators", "list[str]", "[]",
       "Extra qualified names of decorators that mark code as compiled by torch.compile.",
       "compile-decorators = [\"mylib.compiled\"]"},
  };
  return kKeys;
}

// Every long option of a command, with its description (hidden ones included: they complete).
std::vector<std::pair<std::string, std::string>> longOptions(const CLI::App& app) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames()) out.emplace_back("--" + name, option->get_description());
    for (const auto& name : option->get_snames()) out.emplace_back("-" + name, option->get_description());
  }
  return out;
}

std::string shellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out + "'";
}

void writeBash(const CLI::App& app, std::ostream& out) {
  out << "# bash completion for ptlint (ptlint generate-shell-completion bash)\n_ptlint() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" sub=\"\" i\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    case \"${COMP_WORDS[i]}\" in -*) ;; *) sub=\"${COMP_WORDS[i]}\"; break ;; esac\n"
         "  done\n  local words\n  case \"$sub\" in\n";
  std::string top;
  for (const CLI::App* sub : app.get_subcommands({})) {
    top += sub->get_name() + " ";
    std::string words;
    for (const auto& [name, _] : longOptions(*sub)) words += name + " ";
    out << "    " << sub->get_name() << ") words=" << shellQuote(words) << " ;;\n";
  }
  for (const auto& [name, _] : longOptions(app)) top += name + " ";
  out << "    *) words=" << shellQuote(top) << " ;;\n  esac\n"
      << "  if [[ \"$cur\" == -* || -z \"$sub\" ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
         "  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\n"
         "complete -o default -F _ptlint ptlint\n";
}

void writeZsh(const CLI::App& app, std::ostream& out) {
  auto zshEscape = [](std::string text) {
    std::string o;
    for (char c : text) {
      if (c == '[' || c == ']' || c == ':' || c == '\\') o += '\\';
      if (c == '\'') o += "'\\''";
      else if (c == '\n') o += ' ';
      else o += c;
    }
    return o;
  };
  out << "#compdef ptlint\n# zsh completion for ptlint (ptlint generate-shell-completion zsh)\n_ptlint() {\n"
         "  local -a commands\n  commands=(\n";
  for (const CLI::App* sub : app.get_subcommands({}))
    out << "    '" << sub->get_name() << ":" << zshEscape(sub->get_description()) << "'\n";
  out << "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' commands\n";
  for (const auto& [name, desc] : longOptions(app)) out << "    compadd -- " << name << "\n";
  out << "    return\n  fi\n  case \"$words[2]\" in\n";
  for (const CLI::App* sub : app.get_subcommands({})) {
    out << "    " << sub->get_name() << ")\n      _arguments \\\n";
    for (const auto& [name, desc] : longOptions(*sub)) out << "        '" << name << "[" << zshEscape(desc) << "]' \\\n";
    out << "        '*:file:_files'\n      ;;\n";
  }
  out << "  esac\n}\ncompdef _ptlint ptlint\n";
}

void writeFish(const CLI::App& app, std::ostream& out) {
  out << "# fish completion for ptlint (ptlint generate-shell-completion fish)\n";
  std::string subs;
  for (const CLI::App* sub : app.get_subcommands({})) subs += sub->get_name() + " ";
  for (const CLI::App* sub : app.get_subcommands({}))
    out << "complete -c ptlint -n \"not __fish_seen_subcommand_from " << subs << "\" -f -a " << sub->get_name()
        << " -d " << shellQuote(sub->get_description()) << "\n";
  auto option = [&](const std::string& condition, const std::string& name, const std::string& desc) {
    out << "complete -c ptlint -n " << shellQuote(condition) << (name.starts_with("--") ? " -l " : " -s ")
        << name.substr(name.starts_with("--") ? 2 : 1) << " -d " << shellQuote(desc) << "\n";
  };
  for (const auto& [name, desc] : longOptions(app)) option("not __fish_seen_subcommand_from " + subs, name, desc);
  for (const CLI::App* sub : app.get_subcommands({}))
    for (const auto& [name, desc] : longOptions(*sub)) option("__fish_seen_subcommand_from " + sub->get_name(), name, desc);
}

}  // namespace

int runVersion(bool json, std::ostream& out) {
  if (json) out << nlohmann::json{{"version", kVersion}}.dump(2) << "\n";
  else out << "ptlint " << kVersion << "\n";
  return 0;
}

int runConfig(const std::string& key, std::ostream& out, std::ostream& err) {
  if (key.empty()) {
    for (const auto& k : configKeys()) out << k.name << "\n";
    return 0;
  }
  std::string name = key;
  if (name.starts_with("tool.ptlint.")) name = name.substr(12);
  std::vector<std::string> names;
  for (const auto& k : configKeys()) {
    names.push_back(k.name);
    if (name != k.name) continue;
    out << k.doc << "\n\nDefault value: " << k.default_value << "\nType: " << k.type
        << "\nExample usage (ptlint.toml; in pyproject.toml, under [tool.ptlint]):\n```toml\n" << k.example
        << "\n```\n";
    return 0;
  }
  err << fmt::format("error: invalid value '{}' for '[KEY]': unknown configuration key\n", key);
  if (auto near = closestMatch(name, names); !near.empty())
    err << fmt::format("\n  tip: a similar key exists: '{}'\n", near);
  err << "\nFor the list of keys, run `ptlint config`.\n";
  return 2;
}

int runShellCompletion(const CLI::App& app, const std::string& shell, std::ostream& out, std::ostream& err) {
  if (shell == "bash") writeBash(app, out);
  else if (shell == "zsh") writeZsh(app, out);
  else if (shell == "fish") writeFish(app, out);
  else {
    err << fmt::format("error: invalid value '{}' for '<SHELL>'\n  [possible values: bash, fish, zsh]\n", shell);
    return 2;
  }
  return 0;
}

}  // namespace ptlint::cli

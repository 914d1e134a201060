// Linking one project (project_link.h): listing its files, following every compile site to the
// functions it reaches (through helpers, instances and registries), and the project-wide facts
// (environment variables, training scripts, evaluation functions) each file's facts carry.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <vector>

#include "analysis/instrumentation.h"
#include "analysis/dynamo_config.h"
#include "analysis/parse.h"
#include "analysis/semantic_model.h"
#include "analysis/text_search.h"
#include "rules/common/grad_mode.h"
#include "workspace/notebook.h"
#include "workspace/project_link.h"
#include "workspace/training_scan.h"

namespace ptlint::workspace {

namespace {

bool skippedFolder(const fs::path& dir) {
  std::string name = dir.filename().string();
  if (name.empty() || name[0] == '.' || name == "__pycache__" || name == "node_modules" || name == "site-packages")
    return true;
  return isFile(dir / "pyvenv.cfg");  // a virtual environment
}

}  // namespace

void ProjectIndex::Project::ensureLinked() {
  std::call_once(linked_, [&] {
    started_.store(true, std::memory_order_release);
    try {
      link();
    } catch (const std::exception&) {
      facts_.clear();  // a project that cannot be linked gives no facts; the file is still linted
    }
    done_.store(true, std::memory_order_release);
  });
}

std::shared_ptr<const ProjectFacts> ProjectIndex::Project::factsFor(const fs::path& file) {
  ensureLinked();
  auto it = facts_.find(file.string());
  if (it != facts_.end()) return it->second;
  return isTestFile(file) && base_test_facts_ ? base_test_facts_ : base_facts_;
}

const CrossFileNote* ProjectIndex::Project::captureSetterFor(const fs::path& file) {
  if (capture_setters_.empty()) return nullptr;  // the common case: no import to follow
  if (auto own = capture_setters_.find(file.string()); own != capture_setters_.end()) return &own->second;
  auto it = modules_.find(file.string());
  if (it == modules_.end() || it->second == nullptr) return nullptr;
  for (const auto& [bound, qualified] : it->second->imports)
    if (auto imported = importedFile(file, qualified))
      if (auto setter = capture_setters_.find(imported->string()); setter != capture_setters_.end()) return &setter->second;
  return nullptr;
}

bool ProjectIndex::Project::isTestFile(const fs::path& file) const {
  std::string name = file.filename().string();
  if (name == "conftest.py" || name.rfind("test_", 0) == 0 ||
      (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.py") == 0))
    return true;
  return false;
}

bool ProjectIndex::Project::contains(const fs::path& file) const {
  if (std::find(beside_.begin(), beside_.end(), file.parent_path()) != beside_.end()) return true;
  if (!recursive_) return file.parent_path() == scan_;
  auto rel = file.lexically_relative(scan_);
  return !rel.empty() && *rel.begin() != "..";
}

bool ProjectIndex::Project::mayDependOn(const fs::path& file, std::optional<std::string_view> text) const {
  if (!done_.load(std::memory_order_acquire) || !text) return true;
  if (analysis::mayHoldCompileSite(*text, !isNotebookPath(file.string())) || analysis::mayHoldCaptureSetting(*text))
    return true;
  // A training word that comes or goes (a `for epoch` line typed in a script that had one is
  // no news).
  auto bits = training_bits_.find(file.string());
  if (trainingWordsOf(*text) != (bits == training_bits_.end() ? 0 : bits->second)) return true;
  for (const std::string& name : evaluation_names_)
    if (analysis::forEachWholeWord(*text, name, [](size_t) { return true; })) return true;
  return modules_.count(file.string()) != 0 || training_files_.count(file.string()) != 0;
}

std::vector<fs::path> ProjectIndex::Project::changedFacts(const Project& other) const {
  std::vector<fs::path> out;
  for (const auto& [path, facts] : other.facts_) {
    auto it = facts_.find(path);
    if (it == facts_.end() || it->second->digest != facts->digest) out.emplace_back(path);
  }
  for (const auto& [path, facts] : facts_)
    if (!other.facts_.count(path)) out.emplace_back(path);
  return out;
}

void ProjectIndex::Project::compileThroughHelper(const Symbol& helper, const std::string& name, int index, bool method,
                                                 const std::vector<CrossFileNote>& trail) {
  auto users = filesNaming(helper.name);
  if (!users) return;  // too many to summarise: left unresolved (the site is unknown already)
  auto isHelper = [&](const fs::path& file, const NameRef& ref) {
    auto r = resolveDefinition(file, ref);
    return r && r->path == helper.path && r->name == helper.name;
  };
  bool site_captured = captured_;
  for (const fs::path& file : *users) {
    const ModuleSummary* user = load(file);
    if (user == nullptr) continue;
    captured_ = site_captured || user->captures_scalars || captureSetterFor(file) != nullptr;  // the caller's process
    for (const auto& c : user->constructions) {
      if (!isHelper(file, c.callee)) continue;
      for (const auto& a : c.arguments) {
        if (!(a.keyword == name || (a.keyword.empty() && index >= 0 && a.index == index))) continue;
        for (const NameRef& ref : a.classes) {
          auto r = resolve(file, ref);
          auto classes = r ? classesOf(*r) : std::nullopt;
          for (const Symbol& cls : classes.value_or(std::vector<Symbol>{}))
            if (!method || isTorchModuleWith(cls, "compile"))
              compileInstance(cls, extend(trail, {file.string(), c.at,
                                                  fmt::format("`{}` is passed to `{}` here", cls.name, helper.name)}));
        }
      }
    }
    if (method) continue;
    auto decorated = [&](const std::vector<NameRef>& decorators) {
      return std::any_of(decorators.begin(), decorators.end(), [&](const NameRef& d) { return isHelper(file, d); });
    };
    for (const auto& f : user->functions)
      if (decorated(f.decorators))
        compile({file, f.name}, extend(trail, {file.string(), f.at, fmt::format("`{}` is decorated with `{}`", f.name, helper.name)}));
    for (const auto& k : user->classes)
      for (const auto& m : k.methods)
        if (decorated(m.decorators))
          compile({file, k.name + "." + m.name},
                  extend(trail, {file.string(), m.at, fmt::format("`{}.{}` is decorated with `{}`", k.name, m.name, helper.name)}));
  }
  captured_ = site_captured;
}

void ProjectIndex::Project::compile(const Symbol& fn, std::vector<CrossFileNote> trail) {
  const auto* summary = functionOf(fn);
  if (summary == nullptr || summary->disabled) return;
  std::string key = fn.path.string() + "\n" + fn.name;
  if (trail.size() > kMaxTrail) trail.resize(kMaxTrail);
  auto [it, added] = compiled_.try_emplace(key, captured_);
  if (!added) {
    // Reached again from a compile that does not capture scalars: so is what it reaches.
    if (!captured_ && it->second) {
      it->second = false;
      queue_.push_back({fn, std::move(trail), false});
    }
    return;
  }
  roots_[fn.path.string()].push_back({fn.name, false, trail});
  queue_.push_back({fn, std::move(trail), captured_});
}

void ProjectIndex::Project::compileInstance(const Symbol& cls, std::vector<CrossFileNote> trail) {
  if (classOf(cls) == nullptr) return;
  auto forward = findMethod(cls, "forward");
  if (!forward) forward = findMethod(cls, "__call__");
  if (forward) compile(*forward, std::move(trail));
}

std::vector<CrossFileNote> ProjectIndex::Project::extend(const std::vector<CrossFileNote>& trail, CrossFileNote note) {
  std::vector<CrossFileNote> out;
  out.reserve(trail.size() + 1);
  out.push_back(std::move(note));
  out.insert(out.end(), trail.begin(), trail.end());
  return out;
}

bool ProjectIndex::Project::isSourceFile(const fs::path& path) {
  return path.extension() == ".py" || path.extension() == ".ipynb";
}

std::vector<std::string> ProjectIndex::Project::listFiles(analysis::ProjectWideFacts& wide) {
  std::vector<std::string> files;
  std::error_code ec;
  auto incomplete = [&](std::string message, bool limit = false) {
    wide.compiles_unknown = true;
    index_.problem({std::move(message), limit});
  };
  std::vector<fs::path> stack{scan_};
  // The folders whose scripts may import the scanned ones (a package's parent, the folders up
  // to the working folder), without recursion.
  size_t next_beside = 0;
  while (!stack.empty() || next_beside < beside_.size()) {
    bool beside = stack.empty();
    if (beside) stack.push_back(beside_[next_beside++]);
    fs::path dir = std::move(stack.back());
    stack.pop_back();
    fs::directory_iterator it(dir, ec);
    if (ec) {
      incomplete(fmt::format("project index: cannot read folder {} ({}); cross-file findings may be missing",
                             dir.string(), ec.message()));
      continue;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      const fs::path& path = it->path();
      // The type the listing gave (no lstat per entry) where the file system gives one.
      bool is_dir = !it->is_symlink(ec) && !ec && it->is_directory(ec);
      if (ec) {
        if (isSourceFile(path) || !path.has_extension())
          incomplete(fmt::format("project index: cannot read {} ({}); cross-file findings may be missing",
                                 path.string(), ec.message()));
        ec.clear();
        continue;
      }
      if (is_dir) {
        if (recursive_ && !beside && !skippedFolder(path)) stack.push_back(path);
        continue;
      }
      if (!isSourceFile(path) || !it->is_regular_file(ec)) continue;  // a link to a file counts
      if (files.size() >= index_.max_files_) {
        incomplete(fmt::format("project index: more than {} source files under {}; the rest are not indexed and "
                               "cross-file findings may be missing",
                               index_.max_files_, scan_.string()),
                   true);
        return files;
      }
      files.push_back(path.native());
    }
    if (ec) {
      incomplete(fmt::format("project index: cannot read folder {} ({}); cross-file findings may be missing",
                             dir.string(), ec.message()));
      ec.clear();
    }
  }
  return files;
}

void ProjectIndex::Project::link() {
  analysis::timings::Scope timing("project link (with summaries)");
  // Compile sites can only be in files holding the word `compile`.
  wide_ = std::make_shared<analysis::ProjectWideFacts>();
  files_ = listFiles(*wide_);
  // In path order (by component): the separator sorts before every other byte.
  std::sort(files_.begin(), files_.end(), [](const std::string& a, const std::string& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
      auto key = [](char c) { return c == '/' ? -1 : static_cast<int>(static_cast<unsigned char>(c)); };
      return key(x) < key(y);
    });
  });
  const auto& wide = wide_;
  // Every file looked at, and the candidates summarised, on the index's threads; what they say
  // is then taken in path order, so the facts do not depend on which thread ran first.
  struct Scanned {
    ScanVerdict verdict;
    std::shared_ptr<const ModuleSummary> summary;
  };
  std::vector<Scanned> scanned(files_.size());
  index_.forEachFile(files_.size(), [&](size_t i, std::string& raw) {
    const fs::path file(files_[i]);
    // A raw look first: most files hold no site and are never decoded or parsed.
    Scanned& out = scanned[i];
    out.verdict = index_.scanFile(file, raw);
    if (out.verdict.too_large || (!out.verdict.may_compile && !out.verdict.may_set_environment)) return;
    if (auto text = index_.read(file)) out.summary = index_.summaryOf(*text);
  });
  std::vector<fs::path> compiling;  // summarised files holding the word `compile`
  for (size_t i = 0; i < files_.size(); ++i) {
    const fs::path file(files_[i]);
    const ScanVerdict& verdict = scanned[i].verdict;
    if (verdict.too_large) {
      // Not looked at, so not known to compile nothing: told, and the facts are incomplete.
      wide->compiles_unknown = true;
      size_t limit = index_.max_bytes_;
      index_.problem({fmt::format("project index: {} is larger than the {} limit and was not scanned; "
                                  "cross-file findings may be missing",
                                  file.string(),
                                  limit % (1u << 20) == 0 ? fmt::format("{} MB", limit >> 20)
                                                          : fmt::format("{} bytes", limit)),
                      true});
      continue;
    }
    noteTraining(file, verdict.training);
    if (!verdict.may_compile && !verdict.may_set_environment) continue;
    auto summary = std::move(scanned[i].summary);
    if (!summary) continue;  // unreadable
    modules_[file.string()] = summary;
    for (const std::string& variable : summary->environment)
      for (std::string_view wanted : analysis::indexedEnvironmentVariables())
        if (variable == wanted && wide->setsEnvironment(wanted) == nullptr)
          wide->environment.push_back({variable, {file.string(), {}, fmt::format("`{}` is set here", variable)}});
    if (summary->sets_capture) {
      CrossFileNote note{file.string(), summary->sets_capture_at, "`capture_scalar_outputs` may be turned on here"};
      auto& setter = isTestFile(file) ? wide->captures_scalars_in_tests : wide->captures_scalars;
      if (setter.path.empty()) setter = note;
      capture_setters_.emplace(file.string(), std::move(note));
    }
    if (verdict.may_compile) compiling.push_back(file);
  }
  // Sites are followed once every file that may turn the capture on is known.
  for (const fs::path& file : compiling) {
    auto summary = modules_[file.string()];
    if (!summary->unknown_compile_sites.empty()) wide->compiles_unknown = true;
    // Scalar capture possibly on in this file's process (it or a module it imports turns it on):
    // what its sites compile captures `.item()` (unless some other compile reaches it too).
    captured_ = summary->captures_scalars || captureSetterFor(file) != nullptr;
    for (const auto& site : summary->compile_sites) {
      bool on_self = site.kind == analysis::CompileSite::Kind::SelfAttr || site.kind == analysis::CompileSite::Kind::Parameter;
      std::string target = on_self ? site.owner + "." + site.attr : site.target.name;
      if (site.kind == analysis::CompileSite::Kind::Parameter) target = site.attr;
      if (site.kind == analysis::CompileSite::Kind::FunctionParameter)
        target = site.attr.empty() ? "the argument of `" + site.owner + "`" : site.attr;
      if (size_t dot = target.rfind('.'); dot != std::string::npos && !on_self)
        target = target.substr(dot + 1);
      if (site.kind == analysis::CompileSite::Kind::InstanceAttr) target += "." + site.attr;
      std::vector<CrossFileNote> trail{{file.string(), site.at, fmt::format("`{}` is compiled here", target)}};
      switch (site.kind) {
        case analysis::CompileSite::Kind::Instance:
          if (auto built = resolve(file, site.target)) {
            auto classes = classesOf(*built);
            if (!classes) wide->compiles_unknown = true;  // a factory the index cannot follow
            for (const Symbol& cls : classes.value_or(std::vector<Symbol>{}))
              if (!site.method || isTorchModuleWith(cls, "compile")) compileInstance(cls, trail);
          } else if (!site.target.name.starts_with("torch.")) {
            // A class the index cannot find, or another library's factory
            // (`instantiate(cfg.model)`), which may build any class of the project.
            wide->compiles_unknown = true;
          }
          break;
        case analysis::CompileSite::Kind::InstanceAttr:
          if (auto built = resolve(file, site.target)) {
            auto classes = classesOf(*built);
            if (!classes) wide->compiles_unknown = true;
            for (const Symbol& owner : classes.value_or(std::vector<Symbol>{})) {
              auto elements = attributeClasses(owner, site.attr);
              if (elements.empty()) wide->compiles_unknown = true;  // bound to what the index cannot name
              for (const Symbol& cls : elements)
                if (isTorchModuleWith(cls, "compile")) compileInstance(cls, trail);
            }
          } else if (!site.target.name.starts_with("torch.")) {
            wide->compiles_unknown = true;
          }
          break;
        case analysis::CompileSite::Kind::Function:
          if (auto fn = resolve(file, site.target)) {
            if (classOf(*fn) == nullptr) compile(*fn, trail);
          } else if (!isLibraryName(site.target)) {
            wide->compiles_unknown = true;
          }
          break;
        case analysis::CompileSite::Kind::FunctionParameter:
          // What every call passes is not always named: the facts stay incomplete, as for a
          // parameter the index cannot follow.
          wide->compiles_unknown = true;
          compileThroughHelper({file, site.owner}, site.attr, site.parameter_index, site.method, trail);
          break;
        case analysis::CompileSite::Kind::Parameter: {
          auto classes = constructorArgument({file, site.owner}, site.attr, site.parameter_index);
          if (!classes) wide->compiles_unknown = true;
          for (const Symbol& cls : classes.value_or(std::vector<Symbol>{}))
            if (!site.method || isTorchModuleWith(cls, "compile")) compileInstance(cls, trail);
          break;
        }
        case analysis::CompileSite::Kind::SelfAttr: {
          // `self._step = torch.compile(self._step)`: a method of the class.
          if (auto method = site.method ? std::nullopt : findMethod({file, site.owner}, site.attr)) {
            compile(*method, trail);
            break;
          }
          auto classes = attributeClasses({file, site.owner}, site.attr);
          if (classes.empty()) {
            // `self.model = model` in `__init__`: what the constructions pass.
            if (auto given = parameterAttributeClasses({file, site.owner}, site.attr)) classes = std::move(*given);
            else wide->compiles_unknown = true;
          }
          for (const Symbol& cls : classes)
            if (!site.method || isTorchModuleWith(cls, "compile")) compileInstance(cls, trail);
          break;
        }
      }
    }
  }
  // Grow along calls, breadth first.
  while (!queue_.empty()) {
    // Plain names, not a structured binding: the lambdas below capture them (clang 14
    // cannot capture structured bindings).
    auto front = std::move(queue_.front());
    queue_.pop_front();
    auto& fn = front.fn;
    auto& trail = front.trail;
    captured_ = front.captured;
    const auto* summary = functionOf(fn);
    if (summary == nullptr) continue;
    if (summary->calls_unknown) wide->compiles_unknown = true;
    std::string owner = fn.name.find('.') == std::string::npos ? std::string{} : fn.name.substr(0, fn.name.find('.'));
    for (const auto& call : summary->calls) {
      auto note = [&](std::string_view callee) {
        return extend(trail, {fn.path.string(), call.at,
                              fmt::format("`{}` is called from compiled `{}` here", callee, fn.name)});
      };
      if (call.kind == analysis::CallRef::Kind::Name) {
        auto target = resolve(fn.path, call.target);
        if (!target || classOf(*target) != nullptr) continue;  // unknown, or a construction
        compile(*target, note(target->name));
      } else if (call.kind == analysis::CallRef::Kind::Instance) {
        // `model(x)` / `model.decode(x)` for a parameter annotated `model: GPT`.
        auto cls = resolve(fn.path, call.target);
        if (!cls || classOf(*cls) == nullptr) {
          if (!isLibraryName(call.target)) wide->compiles_unknown = true;
          continue;
        }
        if (call.attr.empty()) {
          compileInstance(*cls, note(cls->name + ".forward"));
        } else if (auto method = findMethod(*cls, call.attr)) {
          compile(*method, note(method->name));
        }
      } else if (!owner.empty()) {
        Symbol cls{fn.path, owner};
        std::string_view attr = call.attr;
        size_t dot = attr.find('.');
        if (dot == std::string_view::npos || hasAttribute(cls, attr)) {
          if (dot == std::string_view::npos) {
            if (auto method = findMethod(cls, attr)) {
              compile(*method, note(method->name));
              continue;
            }
          }
          for (const Symbol& sub : attributeClasses(cls, attr)) compileInstance(sub, note(sub.name + ".forward"));
          if (dot == std::string_view::npos)
            if (auto given = parameterAttributeClasses(cls, attr))
              for (const Symbol& sub : *given) compileInstance(sub, note(sub.name + ".forward"));
          if (unknownAttribute(cls, attr)) wide->compiles_unknown = true;
          continue;
        }
        // `self.encoder.encode(x)`, `self.encoder.layers[i](x)`: a method or a submodule of
        // the submodule.
        std::string_view head = attr.substr(0, dot), member = attr.substr(dot + 1);
        if (unknownAttribute(cls, head)) wide->compiles_unknown = true;
        for (const Symbol& sub : attributeClasses(cls, head)) {
          if (auto method = findMethod(sub, member)) {
            compile(*method, note(method->name));
            continue;
          }
          for (const Symbol& inner : attributeClasses(sub, member)) compileInstance(inner, note(inner.name + ".forward"));
          if (unknownAttribute(sub, member)) wide->compiles_unknown = true;
        }
      }
    }
  }
  linkEvaluationUses();
  wide->linked = true;
  std::string wide_digest = fmt::format("linked;unknown={};", wide->compiles_unknown);
  for (const auto& [variable, where] : wide->environment) wide_digest += fmt::format("env={}@{};", variable, where.path);
  wide_digest += fmt::format("capture={}|{};", wide->captures_scalars.path, wide->captures_scalars_in_tests.path);
  wide_digest += fmt::format("epoch={}|{}|{};", wide->sets_epoch.path, wide->imports_trainer.path, wide->loops_epochs.path);
  {
    auto base = std::make_shared<ProjectFacts>();
    base->project = wide;
    base->digest = wide_digest;
    auto tests = std::make_shared<ProjectFacts>(*base);
    tests->in_tests = true;
    tests->digest += "tests;";
    base_facts_ = std::move(base);
    base_test_facts_ = std::move(tests);
  }
  std::set<std::string> with_facts;
  for (const auto& [path, roots] : roots_) with_facts.insert(path);
  for (const auto& [path, uses] : uses_) with_facts.insert(path);
  for (const auto& [path, summary] : modules_)
    if (captureSetterFor(path) != nullptr) with_facts.insert(path);
  for (const std::string& path : with_facts) {
    auto facts = std::make_shared<ProjectFacts>();
    facts->project = wide;
    facts->digest = wide_digest;
    facts->in_tests = isTestFile(path);
    if (facts->in_tests) facts->digest += "tests;";
    if (const CrossFileNote* setter = captureSetterFor(path)) {
      facts->capture_setter = *setter;
      facts->digest += fmt::format("capture-setter={};", setter->path);
    }
    if (auto it = roots_.find(path); it != roots_.end()) facts->compiled = std::move(it->second);
    for (auto& root : facts->compiled) {
      root.captures_scalars = compiled_[path + "\n" + root.function];
      facts->digest += root.function;
      if (root.captures_scalars) facts->digest += "[captured]";
      for (const auto& n : root.trail)
        facts->digest += fmt::format("|{}:{}:{}:{}", n.path, n.at.start, n.at.end, n.message);
      facts->digest += ";";
    }
    if (auto it = uses_.find(path); it != uses_.end()) facts->uses = std::move(it->second);
    for (const auto& use : facts->uses)
      facts->digest += fmt::format("use={}:{}:{}@{}:{};", use.function, use.called, use.grad_off_or_unknown,
                                   use.where.path, use.where.at.start);
    facts_[path] = std::move(facts);
  }
}

void ProjectIndex::Project::noteTraining(const fs::path& file, uint8_t training) {
  auto note = [&](analysis::CrossFileNote& slot, uint8_t bit, const char* message) {
    if ((training & bit) && slot.path.empty()) slot = {file.string(), {}, message};
  };
  note(wide_->sets_epoch, kSpellsSetEpoch, "`set_epoch` is called here");
  note(wide_->imports_trainer, kImportsTrainer, "a trainer that sets the sampler's epoch is imported here");
  note(wide_->loops_epochs, kLoopsOverEpochs, "epochs are looped over here");
  if (training & kSetsEvalMode) evaluating_files_.push_back(file.string());
  if (training != 0) training_bits_[file.string()] = training;
}

void ProjectIndex::Project::linkEvaluationUses() {
  struct Defined {
    std::string path, name;
  };
  // The files are read on the index's threads; their findings are taken in path order.
  std::vector<std::shared_ptr<const ProjectIndex::Strings>> defined_in(evaluating_files_.size());
  index_.forEachFile(evaluating_files_.size(), [&](size_t i, std::string&) {
    if (auto text = index_.read(evaluating_files_[i])) defined_in[i] = index_.evaluationFunctionsOf(*text);
  });
  std::vector<Defined> defined;
  std::vector<std::string> names;
  for (size_t i = 0; i < evaluating_files_.size(); ++i) {
    if (defined_in[i] == nullptr) continue;
    for (const std::string& name : *defined_in[i]) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      defined.push_back({evaluating_files_[i], name});
    }
  }
  if (defined.empty()) return;
  auto useFor = [&](const std::string& path, const std::string& name) -> analysis::ExternalUse& {
    auto& uses = uses_[path];
    for (auto& u : uses)
      if (u.function == name) return u;
    uses.push_back({name, false, false, {}});
    return uses.back();
  };
  // The files naming each function (one raw read of each project file for all names).
  std::vector<std::vector<char>> names_in(files_.size());
  index_.forEachFile(files_.size(), [&](size_t i, std::string& raw) {
    const std::string& file = files_[i];
    std::optional<std::string> overlaid = index_.overlay_ ? index_.overlay_(file) : std::nullopt;
    struct stat st {};
    if (!overlaid && !readRaw(file, index_.max_bytes_, raw, st)) return;
    std::string_view text = overlaid ? std::string_view(*overlaid) : std::string_view(raw);
    names_in[i].assign(names.size(), 0);
    for (size_t k = 0; k < names.size(); ++k)
      names_in[i][k] = analysis::forEachWholeWord(text, names[k], [](size_t) { return true; }) ? 1 : 0;
  });
  std::map<std::string, std::vector<std::string>> naming;
  for (size_t i = 0; i < files_.size(); ++i)
    for (size_t k = 0; k < names_in[i].size(); ++k)
      if (names_in[i][k]) naming[names[k]].push_back(files_[i]);
  evaluation_names_ = names;
  std::set<std::string> callers;
  for (const auto& [name, files] : naming) {
    if (files.size() > kMaxScannedUsers) {
      for (const Defined& d : defined)
        if (d.name == name) {
          auto& use = useFor(d.path, name);
          use.called = use.grad_off_or_unknown = true;  // too many users to read: unknown
        }
      continue;
    }
    callers.insert(files.begin(), files.end());
  }
  // Each caller's uses, found on the index's threads, then resolved here in path order (the
  // resolution loads summaries and fills this project's memos).
  std::vector<std::string> caller_files(callers.begin(), callers.end());
  std::vector<std::shared_ptr<const ProjectIndex::EvaluationUses>> found(caller_files.size());
  index_.forEachFile(caller_files.size(), [&](size_t i, std::string&) {
    if (auto text = index_.read(caller_files[i])) found[i] = index_.evaluationUsesOf(*text, names);
  });
  for (size_t i = 0; i < caller_files.size(); ++i) {
    const std::string& file = caller_files[i];
    training_files_.insert(file);
    if (found[i] == nullptr) continue;
    for (const auto& use : *found[i]) {
      auto target = resolveQualified(file, use.qualified, 0);
      if (!target || target->path.string() == file) continue;
      bool evaluating = std::any_of(defined.begin(), defined.end(), [&](const Defined& d) {
        return d.path == target->path.string() && d.name == target->name;
      });
      if (!evaluating) continue;
      auto& entry = useFor(target->path.string(), target->name);
      bool first_silencer = use.grad_off_or_unknown && !entry.grad_off_or_unknown;
      if (entry.where.path.empty() || first_silencer)
        entry.where = {file, use.at,
                       use.grad_off_or_unknown ? "used here with grad mode off, or passed on as a value"
                                               : "called here with grad mode on"};
      entry.called = entry.called || use.called;
      entry.grad_off_or_unknown = entry.grad_off_or_unknown || use.grad_off_or_unknown;
    }
  }
}

}  // namespace ptlint::workspace

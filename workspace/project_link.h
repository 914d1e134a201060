// One project of the project index (project_index.h), shared by the files that implement it:
// finding its files and reading their summaries, resolving names across its modules
// (project_resolve.cpp: imports, re-exports, classes, factories, registries, constructions) and
// linking (project_link.cpp: following compile sites to the functions they reach, the
// project-wide facts). Internal to workspace/.
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/module_summary.h"
#include "analysis/value_flow.h"
#include "workspace/project_index.h"

namespace ptlint::workspace {

namespace fs = std::filesystem;
using analysis::CrossFileNote;
using analysis::ModuleSummary;
using analysis::NameRef;
using analysis::ProjectFacts;

bool isFile(const fs::path& p);
// `a.b.c` -> {"a", "b", "c"} (an empty string gives one empty part).
std::vector<std::string> splitDotted(std::string_view dotted);
// The bytes of `path` into `out` (reused between calls); false when unreadable or too large.
bool readRaw(const fs::path& path, size_t max_bytes, std::string& out, struct stat& st);

class ProjectIndex::Project {
 public:
  Project(ProjectIndex& index, fs::path root, fs::path scan, bool recursive, std::vector<fs::path> beside)
      : index_(index), root_(std::move(root)), scan_(std::move(scan)), recursive_(recursive), beside_(std::move(beside)) {
    import_roots_.push_back(root_);
    std::error_code ec;
    if (fs::is_directory(root_ / "src", ec)) import_roots_.push_back(root_ / "src");
  }

  void ensureLinked();
  std::shared_ptr<const ProjectFacts> factsFor(const fs::path& file);
  // Another thread is linking this project now (its facts are not ready; asking waits).
  bool linkingElsewhere() const {
    return started_.load(std::memory_order_acquire) && !done_.load(std::memory_order_acquire);
  }

  // Is `file` among the files this project scans?
  bool contains(const fs::path& file) const;
  // Could a new text of `file` change the facts? Unknown (true) while the link is running.
  // `text`: the new text (nullopt: unknown); one that may hold a compile site, a training word
  // (workspace/training_scan.h) or an evaluation function's name may change them.
  bool mayDependOn(const fs::path& file, std::optional<std::string_view> text) const;
  // The files whose facts differ between this link and `other` (both finished).
  std::vector<fs::path> changedFacts(const Project& other) const;
  const fs::path& root() const { return root_; }
  // After linking, for value flow across files (project_functions.cpp): the top-level def or
  // class `qualified` names as `from` imports it, parsed; `consulted` gets the file read. Thread-safe.
  std::optional<analysis::ProjectFunctions::Definition> projectDefinition(const fs::path& from, std::string_view qualified,
                                                                     std::vector<analysis::ProjectFunctions::FileRead>& consulted);
  // A test file of the project by pytest's default names: `test_*.py`, `*_test.py`,
  // `conftest.py` (a folder named `tests` also holds fixtures, data and helpers).
  bool isTestFile(const fs::path& file) const;
  bool recursive() const { return recursive_; }
  const std::vector<fs::path>& beside() const { return beside_; }

 private:
  static constexpr int kMaxDepth = 8;             // re-export chains, base classes
  static constexpr size_t kMaxTrail = 8;          // notes kept per compiled function
  static constexpr size_t kMaxScannedUsers = 32;  // files summarised for one registry or constructor
  // Classes one walk over the bases visits (each once); a hierarchy past it is left incomplete.
  static constexpr size_t kMaxClassesWalked = 100000;

  struct Symbol {
    fs::path path;
    std::string name;  // `Cls`, `fn` or `Cls.method`
  };

  // ---- Files and summaries (only the linking thread touches these maps). ----
  const ModuleSummary* load(const fs::path& path);
  std::optional<fs::path> moduleFile(const fs::path& base, const std::vector<std::string>& parts, size_t count);
  // The folders an import of `qualified` (non-empty) from `from` is looked up in, in order, and
  // in `rest` the dotted name below them (a relative import's dots taken off).
  std::vector<fs::path> importBases(const fs::path& from, std::string_view qualified, std::string_view& rest);
  // The project file an import of `qualified` from `from` loads (a module, not a name in it).
  std::optional<fs::path> importedFile(const fs::path& from, std::string_view qualified);
  // Where `file`'s process may turn Dynamo's scalar capture on: the file itself, or a project
  // module it imports (one level: what a script imports to configure itself); null when nowhere.
  const CrossFileNote* captureSetterFor(const fs::path& file);
  std::unordered_map<std::string, CrossFileNote> capture_setters_;  // files that may turn it on

  // ---- Resolution ----
  std::optional<Symbol> resolve(const fs::path& from, const NameRef& ref, int depth = 0);

  // As resolve, also to a top-level name bound by assignment (`compiler = partial(torch.compile)`).
  std::optional<Symbol> resolveDefinition(const fs::path& from, const NameRef& ref);
  std::optional<Symbol> resolveQualified(const fs::path& from, std::string_view qualified, int depth);

  // The folder a module's absolute imports resolve from besides the project's roots: its own
  // folder when that is no package (a script run as `python train.py`), else the folder holding
  // its outermost package. Memoised per folder.
  const fs::path& localRoot(const fs::path& file);

  // `names` (one or two segments) defined in, or re-exported by, the module `file`.
  std::optional<Symbol> symbolIn(const fs::path& file, const std::vector<std::string>& names, int depth);
  const analysis::ClassSummary* classOf(const Symbol& s);
  const analysis::FunctionSummary* functionOf(const Symbol& s);

  // ---- The base-class graph ----
  // What a visit of one class tells the walk: go on into its bases, skip its bases (the class
  // answers for them), or stop with the answer.
  enum class Step { Continue, Prune, Stop };

  // The project classes of `cls`'s bases (top-level classes the index resolves), in order,
  // memoised per class.
  const std::vector<Symbol>& basesOf(const Symbol& cls);

  // Visits `cls` and the classes it derives from, depth first and left to right (the order the
  // lookups below answer in), each class once however many paths reach it: a lattice of W
  // classes on each of D levels costs W*D visits, not W^D. Bounded by kMaxClassesWalked; a walk
  // cut there reports it through `wide_->compiles_unknown` (its answer may be incomplete).
  template <typename Visit>
  void walkBases(const Symbol& cls, Visit&& visit) {
    std::unordered_set<std::string> seen;
    std::vector<Symbol> stack{cls};
    while (!stack.empty()) {
      Symbol s = std::move(stack.back());
      stack.pop_back();
      if (!seen.insert(s.path.string() + "\n" + s.name).second) continue;
      if (seen.size() > kMaxClassesWalked) {
        if (wide_) wide_->compiles_unknown = true;
        return;
      }
      const auto* summary = classOf(s);
      if (summary == nullptr) continue;
      Step step = visit(s, *summary);
      if (step == Step::Stop) return;
      if (step == Step::Prune) continue;
      const auto& bases = basesOf(s);
      for (auto it = bases.rbegin(); it != bases.rend(); ++it) stack.push_back(*it);
    }
  }

  // `Cls.method` where the class or one of its bases (in any file) defines it (memoised).
  std::optional<Symbol> findMethod(const Symbol& cls, std::string_view method);

  // The project classes an instance built by `s` may be: `s` itself for a class; for a factory
  // (`build(cfg)`, `Cls.from_pretrained(...)`), the classes its returns give. Library classes
  // (`nn.Linear`) give none. Nullopt when some return cannot be followed.
  std::optional<std::vector<Symbol>> classesOf(const Symbol& s, int depth = 0);
  std::optional<std::vector<Symbol>> factoryClasses(const Symbol& s, int depth);

  // The project files whose bytes hold `word` as a whole word, not yet known to be summarised
  // or not; nullopt past kMaxScannedUsers of them not summarised yet (a registry of hundreds of
  // model files is not worth parsing them all on a question's behalf).
  std::optional<std::vector<fs::path>> filesNaming(std::string_view word);

  // The registry `fn` looks its result up in: its own `return REGISTRY[name]`, or that of a
  // function it calls (`create_fn = model_entrypoint(name); return create_fn(**kwargs)`).
  std::optional<Symbol> registryOf(const Symbol& s, const analysis::FunctionSummary& fn);

  // The classes the factories (or classes) registered into `registry` build: every top-level
  // definition of the project decorated with a function of the registry's module that stores
  // its parameter into it (`@register_model`). The files naming the decorator are found by a raw
  // scan, and only those are summarised.
  std::optional<std::vector<Symbol>> registeredClasses(const Symbol& registry, int depth);

  // The classes the constructor of `cls` is given for its parameter `name` (position `index`),
  // over every construction in the project (`Trainer(UNet(), opt)` in main.py). The files naming
  // the class are found by a raw scan, and only those are summarised. Nullopt when none is found
  // or one passes something the summaries cannot name.
  std::optional<std::vector<Symbol>> constructorArgument(const Symbol& cls, const std::string& name, int index,
                                                         int depth = 0);

  // For `self.<attr>` bound to a constructor parameter in `__init__`: what the constructions
  // pass. Nullopt when `attr` is not such an attribute.
  std::optional<std::vector<Symbol>> parameterAttributeClasses(const Symbol& cls, std::string_view attr);

  // The classes `__init__` binds to `self.<attr>` in the class or its bases (factories followed;
  // one that cannot be makes the compiled code reach unknown code): the class itself when it
  // binds `attr`, else the first base (depth first) whose binding gives some class.
  std::vector<Symbol> attributeClasses(const Symbol& cls, std::string_view attr);

  // Does `__init__` of the class (or of a base) bind `self.<attr>` (`a.b` for a ModuleDict's
  // element) to module classes it records?
  bool hasAttribute(const Symbol& cls, std::string_view attr);

  // Does `__init__` of the class (or of a base) bind `self.<attr>` to something unresolved? A
  // class that binds it to something known answers for its own bases.
  bool unknownAttribute(const Symbol& cls, std::string_view attr);

  // Does the class derive from a `torch.nn` class (through project classes) without defining
  // `method` itself on the way? `obj.compile()` is nn.Module's only then.
  bool isTorchModuleWith(const Symbol& cls, std::string_view method);

  // `def maybe_compile(m): return torch.compile(m)` (or `compiler = partial(torch.compile)`):
  // what the project's calls of `helper` pass at parameter `name` (position `index`), and what
  // it decorates. The files naming it are found by a raw scan, and only those are summarised.
  void compileThroughHelper(const Symbol& helper, const std::string& name, int index, bool method,
                            const std::vector<CrossFileNote>& trail);

  // ---- Linking ----
  void compile(const Symbol& fn, std::vector<CrossFileNote> trail);
  void compileInstance(const Symbol& cls, std::vector<CrossFileNote> trail);
  static std::vector<CrossFileNote> extend(const std::vector<CrossFileNote>& trail, CrossFileNote note);

  // A name from outside the project's modules (`torch.nn.Linear`, `timm.create_model` when timm
  // is not part of the project): it cannot compile the project's code unless handed it, which
  // the site would show.
  bool isLibraryName(const NameRef& ref);

  // Python modules, and notebooks: a notebook imports the project's modules and compiles them
  // as a training script does (its reader hands over the joined code cells).
  static bool isSourceFile(const fs::path& path);

  // The project's source files. A folder or entry that cannot be read, and the file limit, are
  // told through `index_.problem` and make the facts incomplete (`compiles_unknown`), never
  // dropped in silence. Iterative: a tree thousands of folders deep costs no stack.
  // Native strings, not path objects: a path holds one object per level of its folder.
  std::vector<std::string> listFiles(analysis::ProjectWideFacts& wide);
  void link();

  // PTL406's project-wide facts: the first file (in path order) of each kind.
  void noteTraining(const fs::path& file, uint8_t training);

  // PTL707 across files: the top-level functions that set evaluation mode, and how the other
  // files of the project use them (found by a raw scan for their names; only the files naming
  // one are parsed). A name more files hold than kMaxScannedUsers is taken as used with grad
  // mode unknown.
  void linkEvaluationUses();

  // Files parsed for projectFunction, by path (null: unreadable); guarded by functions_mutex_,
  // which also guards the resolution memos (module_files_, local_roots_) once linked.
  struct Parsed;
  std::mutex functions_mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Parsed>> parsed_;
  std::shared_ptr<const Parsed> parsedFile(const fs::path& path);
  // The parse of `text` the index keeps for the lint (left kept), else a fresh one offered to it:
  // a helper module that value flow reads and the check lints is parsed once.
  std::shared_ptr<analysis::ParsedFile> parseOnce(const std::string& text);

  ProjectIndex& index_;
  fs::path root_, scan_;
  bool recursive_;
  // Folders scanned without recursion besides `scan_`: a marker-less package's parent (the
  // scripts beside it import it), the folders between the file and the working folder.
  std::vector<fs::path> beside_;
  std::atomic<bool> started_{false}, done_{false};
  std::vector<fs::path> import_roots_;
  std::once_flag linked_;
  std::unordered_map<std::string, std::shared_ptr<const ModuleSummary>> modules_;
  std::unordered_map<std::string, std::optional<fs::path>> module_files_;
  // Compiled functions (path, name) -> reached only from compiles that capture scalar outputs.
  std::unordered_map<std::string, bool> compiled_;
  bool captured_ = false;  // the compile being followed captures scalar outputs
  std::map<std::string, std::vector<analysis::ExternalCompileRoot>> roots_;
  std::map<std::string, std::vector<analysis::ExternalUse>> uses_;  // by the defining file
  std::vector<std::string> evaluating_files_;  // files that may set evaluation mode (`.eval()`)
  std::vector<std::string> evaluation_names_;  // the functions among them that do
  std::unordered_set<std::string> training_files_;  // callers of those functions, read for the facts
  std::unordered_map<std::string, uint8_t> training_bits_;  // the files with training words, and which
  struct Reached {
    Symbol fn;
    std::vector<CrossFileNote> trail;
    bool captured = false;
  };
  std::deque<Reached> queue_;
  std::unordered_map<std::string, std::shared_ptr<const ProjectFacts>> facts_;
  std::shared_ptr<analysis::ProjectWideFacts> wide_;  // filled while linking
  std::vector<std::string> files_;                      // the project's source files
  bool definitions_ = false;  // resolveDefinition in progress
  std::unordered_map<std::string, fs::path> local_roots_;  // folder -> localRoot
  std::unordered_map<std::string, std::optional<std::vector<Symbol>>> registries_;
  std::unordered_map<std::string, std::optional<std::vector<Symbol>>> arguments_;
  std::unordered_map<std::string, std::optional<std::vector<fs::path>>> naming_;  // by word
  std::unordered_map<std::string, std::vector<Symbol>> bases_;                     // by class
  std::unordered_map<std::string, std::optional<Symbol>> methods_;                 // by class and method
  // What classesOf gave, by symbol; nullopt while one is being resolved (a factory reached
  // again through its own returns is one the index cannot follow).
  std::unordered_map<std::string, std::optional<std::vector<Symbol>>> classes_;
  // What a file no compile site reaches is told (the project-wide facts only).
  // The same for the project's test files (ProjectWideFacts::captures_scalars_in_tests).
  std::shared_ptr<const ProjectFacts> base_test_facts_;
  std::shared_ptr<const ProjectFacts> base_facts_ = [] {
    auto facts = std::make_shared<ProjectFacts>();
    facts->project = std::make_shared<analysis::ProjectWideFacts>();  // not linked
    facts->digest = "unlinked;";
    return facts;
  }();
};

// `facts` with the project's functions (analysis::ProjectFunctions) as `file` imports them.
std::shared_ptr<const ProjectFacts> withProjectFunctions(std::shared_ptr<const ProjectFacts> facts,
                                                         std::shared_ptr<ProjectIndex::Project> project, const fs::path& file);

}  // namespace ptlint::workspace

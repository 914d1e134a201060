// What one module offers and asks across files, computed from its bytes alone: the imports, the
// top-level definitions, each class's bases and the module classes its `__init__` binds to
// `self.<attr>`, what each function calls, where `torch.compile` is applied and which environment
// variables the module sets. The project index (`workspace/project_index.*`) links summaries.
//
// Invariants: a pure function of the file's text (cacheable by content hash); names are recorded
// as the file spells them after import resolution (`pkg.model.GPT`, `.model.GPT` for a relative
// import, or a top-level name of the file itself), never resolved to other files here; anything
// the analysis cannot resolve is left out (precision over recall); no recursion on tree depth.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/semantic_model.h"

namespace ptlint::analysis {

class ProjectFunctions;  // analysis/value_flow.h

// A name as the module refers to it.
struct NameRef {
  enum class Kind : uint8_t { Local, Imported };
  Kind kind = Kind::Local;
  // Local: a top-level name of this module (`Block`). Imported: the qualified name the import
  // gives (`pkg.model.GPT`; relative imports keep their dots: `.model.GPT`).
  std::string name;
  bool operator==(const NameRef&) const = default;
};

// A position in the module, for related information in other files.
struct SourcePos {
  uint32_t start = 0, end = 0;  // bytes
  uint32_t line = 0;            // 0-based
  uint32_t column = 0;          // 1-based code points
  uint32_t column_utf16 = 0;    // 0-based UTF-16 units
  uint32_t column_bytes = 0;    // 0-based bytes
};

// One call made by a function's body (not by the defs nested in it).
struct CallRef {
  enum class Kind : uint8_t {
    Name,      // `f(x)`, `mod.f(x)`, `Cls.method(x)`: `target`
    SelfAttr,  // `self.<attr>(x)`, `self.<attr>[i](x)`, `block(x)` for `block` in `self.<attr>`
    // `model(x)` / `model.decode(x)` for a parameter annotated with a class (`model: GPT`):
    // `target` is the class, `attr` the method (empty: the instance's `forward`).
    Instance,
  };
  Kind kind = Kind::Name;
  NameRef target;    // Name
  std::string attr;  // SelfAttr
  SourcePos at;
};

struct FunctionSummary {
  std::string name;  // `forward`
  SourcePos at;      // the def's name
  bool disabled = false;  // `@torch.compiler.disable` / `@torch._dynamo.disable`
  std::vector<CallRef> calls;
  // The body calls something the summary cannot name: a parameter or a local bound to a value
  // (`fn(x)` for a parameter `fn`). What such a call runs is unknown.
  bool calls_unknown = false;
  // What its `return` statements give, when each is an instance the summary can name (`Cls(...)`,
  // `cls(...)` in a classmethod, a name bound to one, another factory's result): a factory the
  // linker follows. `returns_unknown` when some return gives anything else.
  std::vector<NameRef> returns;
  bool returns_unknown = false;
  // A registry: `return REGISTRY[name]` / `REGISTRY.get(name)` on a module-level dict gives its
  // name here; a decorator storing its parameter (`REGISTRY[fn.__name__] = fn`) gives it in
  // `registers`.
  std::string registry_lookup;
  std::string registers;
  std::vector<NameRef> decorators;  // top-level functions and methods: what decorates them
};

struct ClassSummary {
  std::string name;
  std::vector<NameRef> bases;
  std::vector<NameRef> decorators;
  std::vector<FunctionSummary> methods;
  // `self.<attr> = Cls(...)` in `__init__` (every element class for `nn.ModuleList([...])`,
  // `nn.Sequential(...)`, `nn.ModuleDict({...})`). An attribute bound to anything unresolved is
  // left out.
  std::vector<std::pair<std::string, std::vector<NameRef>>> attributes;
  // Attributes `__init__` binds to a value the summary cannot name (a parameter, a factory's
  // result, a container of those): calling one runs unknown code.
  std::vector<std::string> unknown_attributes;
  // `self.<attr> = <param>` in `__init__`: the attribute holds what the constructor is given
  // (`Trainer(model, ...)`): the parameter's name and position (after `self`; -1 keyword-only).
  struct ParameterAttribute {
    std::string attr, parameter;
    int index = -1;
  };
  std::vector<ParameterAttribute> parameter_attributes;
};

// A call that may construct a class of the project with module instances as arguments
// (`Trainer(UNet(), opt)`, `Trainer(model=model)` with `model = UNet()`).
struct Construction {
  NameRef callee;
  struct Argument {
    std::string keyword;  // empty for a positional argument
    int index = -1;       // positional index
    std::vector<NameRef> classes;
  };
  std::vector<Argument> arguments;  // only those whose classes the summary can name
  std::vector<std::pair<std::string, int>> unknown_arguments;  // (keyword, index) of the others
  SourcePos at;
};

struct CompileSite {
  enum class Kind : uint8_t {
    Instance,  // `torch.compile(Cls(...))`, `torch.compile(obj)`, `obj.compile()`: Cls.forward
    Function,  // `torch.compile(fn)`, `@torch.compile`
    SelfAttr,  // `torch.compile(self.<attr>)` in a method of `owner`
    Parameter,  // `torch.compile(<param>)` in `owner.__init__`: `attr` is the parameter's name
    InstanceAttr,  // `for block in model.blocks: block.compile()`: `target`'s `attr` elements
    // `def maybe_compile(m): return torch.compile(m)` (`m.compile()`): the top-level function
    // `owner` compiles its parameter `attr` (position `parameter_index`); also a top-level name
    // bound to `functools.partial(torch.compile, ...)` or to `torch._dynamo.optimize(...)`
    // (`owner`, position 0). What the project's calls pass there, and what it decorates, is compiled.
    FunctionParameter,
  };
  Kind kind = Kind::Instance;
  NameRef target;     // Instance, InstanceAttr: the class; Function: the function (`Cls.method` for a method)
  std::string owner;  // SelfAttr: the class whose method compiles
  std::string attr;   // SelfAttr, InstanceAttr
  bool method = false;  // `obj.compile()`: only nn.Module's own method compiles
  SourcePos at;
  int parameter_index = -1;  // Parameter: its position after `self` (-1 keyword-only)
};

struct ModuleSummary {
  // Every import binding at any scope: the bound name and what it refers to.
  std::vector<std::pair<std::string, std::string>> imports;
  std::vector<std::string> definitions;  // top-level defs, classes and assigned names
  std::vector<FunctionSummary> functions;  // top-level functions
  std::vector<ClassSummary> classes;       // top-level classes
  std::vector<CompileSite> compile_sites;
  std::vector<std::string> environment;  // variables set: os.environ[...] =, setdefault, update, putenv
  // `torch.compile(x)` / `x.compile()` whose target the summary cannot name (a parameter, a
  // factory's result): it may compile anything.
  std::vector<SourcePos> unknown_compile_sites;
  std::vector<Construction> constructions;
  // `torch._dynamo.config.capture_scalar_outputs = True` as a statement of the module itself
  // (not in a function, a `with`, or under a condition other than `__name__ == "__main__"`):
  // set for the whole run of this file as a script, and so for what its compile sites compile.
  bool captures_scalars = false;
  // Some statement, wherever it runs (a function, a condition), may turn
  // `capture_scalar_outputs` on for the whole process (analysis/dynamo_config.h): where.
  bool sets_capture = false;
  SourcePos sets_capture_at;

  const ClassSummary* findClass(std::string_view name) const;
  const FunctionSummary* findFunction(std::string_view name) const;
  // The qualified name a top-level import binds to `name`, or nullptr.
  const std::string* importOf(std::string_view name) const;
};

ModuleSummary summarizeModule(const SemanticModel& model);

// The position of the bytes [start, end) of `file`.
SourcePos sourcePosOf(const ParsedFile& file, uint32_t start, uint32_t end);

// What the project tells one file about itself: produced by the project index, read by the rules.
struct CrossFileNote {
  std::string path;  // the file the note points into (absolute)
  SourcePos at;
  std::string message;
};

// A function of the file (`helper`, or `Cls.method` for a method of a top-level class) that
// torch.compile reaches from another file.
struct ExternalCompileRoot {
  std::string function;
  // Every compile reaching it runs where `capture_scalar_outputs` is on (the files of its compile
  // sites set it at module level): Dynamo captures `.item()` there instead of breaking.
  bool captures_scalars = false;
  // From the call that reaches the function back to the compile site: innermost first.
  std::vector<CrossFileNote> trail;
};

// Facts about the whole project, the same for each of its files.
struct ProjectWideFacts {
  // True once the project index linked the project (facts made otherwise know nothing).
  bool linked = false;
  // Some compile site, or some function it reaches, runs code the index cannot resolve (a model
  // built by a factory, a submodule passed in as a parameter): any function of the project may
  // be compiled through it.
  bool compiles_unknown = false;
  // Environment variables some file of the project sets in code, among those the index looks
  // for (`CUBLAS_WORKSPACE_CONFIG`), with where.
  std::vector<std::pair<std::string, CrossFileNote>> environment;
  // The first file (in path order) that may turn `torch._dynamo.config.capture_scalar_outputs`
  // on for its process (analysis/dynamo_config.h); empty path when none. The setting is
  // process-wide: it holds in that file and in the files that import it (their process runs it);
  // see ProjectFacts::capture_setter.
  CrossFileNote captures_scalars;
  // The same set by a test file (`test_*.py`, `*_test.py`, `conftest.py`): that process is the
  // test runner's, which runs the project's test files, so it counts for them.
  CrossFileNote captures_scalars_in_tests;
  const CrossFileNote* setsEnvironment(std::string_view variable) const;
  // For PTL406, the first file (in path order) that spells `set_epoch`, that imports a trainer
  // which sets the sampler's epoch itself (Lightning, accelerate, ...), and that runs a loop over
  // epochs (`for epoch in ...`); empty paths when none does.
  CrossFileNote sets_epoch, imports_trainer, loops_epochs;
};

// A top-level function of a file that sets evaluation mode (`model.eval()`), as the other files
// of the project use it (PTL707): whether one calls it, and whether one runs it with grad mode
// off or passes it on as a value (its caller unknown), with the first such use.
struct ExternalUse {
  std::string function;
  bool called = false;
  bool grad_off_or_unknown = false;
  CrossFileNote where;
};

struct ProjectFacts {
  std::vector<ExternalCompileRoot> compiled;
  std::vector<ExternalUse> uses;  // of this file's evaluation functions by other files
  const ExternalUse* useOf(std::string_view function) const;
  // The file is one of the project's tests (see ProjectWideFacts::captures_scalars_in_tests).
  bool in_tests = false;
  // A project module this file imports that may turn Dynamo's scalar capture on: the file's
  // process runs that module. Empty path when none.
  CrossFileNote capture_setter;
  // The file that may turn Dynamo's scalar capture on in a process this file may run in; null
  // when none does.
  const CrossFileNote* scalarCaptureSetter() const;
  // Never null when the facts come from the project index.
  std::shared_ptr<const ProjectWideFacts> project;
  // The functions the project's other files define, for value flow across files; null when
  // the facts do not come from the project index.
  std::shared_ptr<const ProjectFunctions> functions;
  // Identifies the facts (for result caches): equal digests mean equal facts.
  std::string digest;
  bool empty() const { return compiled.empty() && uses.empty(); }
};

// Does the text hold a compile site another file's definitions could be compiled from (the whole
// word `compile` somewhere)? The byte-level filter that keeps most files unparsed.
// `code_view`: also test the text with strings and comments blanked (false for a notebook's
// JSON, whose code is all in strings).
bool mayHoldCompileSite(std::string_view text, bool code_view = true);

// The environment variables the project index looks for in every file (a raw byte scan first,
// then the summary of the files holding one): `CUBLAS_WORKSPACE_CONFIG`.
const std::vector<std::string_view>& indexedEnvironmentVariables();

}  // namespace ptlint::analysis

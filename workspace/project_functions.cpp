// Value flow across files (analysis/value_flow.h `ProjectFunctions`): the top-level def or class
// an import names in a file of the project, parsed on demand once per project and kept with it
// (the parse the index keeps for that file's lint, when there is one: the file is parsed once).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/parse.h"
#include "analysis/semantic_model.h"
#include "analysis/syntax.h"
#include "workspace/project_link.h"

namespace ptlint::workspace {

struct ProjectIndex::Project::Parsed {
  explicit Parsed(std::shared_ptr<const analysis::ParsedFile> parsed)
      : content_hash(XXH3_64bits(parsed->text().data(), parsed->text().size())), file(std::move(parsed)), model(*file) {}
  uint64_t content_hash;
  std::shared_ptr<const analysis::ParsedFile> file;  // shared with the lint of that file
  analysis::SemanticModel model;
};

std::shared_ptr<analysis::ParsedFile> ProjectIndex::Project::parseOnce(const std::string& text) {
  uint64_t hash = XXH3_64bits(text.data(), text.size());
  {
    std::lock_guard lock(index_.mutex_);
    if (auto it = index_.kept_.find(hash); it != index_.kept_.end() && it->second->text() == text) return it->second;
  }
  auto parsed = std::make_shared<analysis::ParsedFile>(analysis::ParsedFile::parse(text));
  index_.offerParsed(parsed);
  return parsed;
}

auto ProjectIndex::Project::parsedFile(const fs::path& path) -> std::shared_ptr<const Parsed> {
  if (auto it = parsed_.find(path.string()); it != parsed_.end()) return it->second;
  std::shared_ptr<const Parsed> out;
  if (auto text = index_.read(path); text && text->size() <= index_.max_bytes_) out = std::make_shared<const Parsed>(parseOnce(*text));
  parsed_.emplace(path.string(), out);
  return out;
}

std::optional<analysis::ProjectFunctions::Definition> ProjectIndex::Project::projectDefinition(
    const fs::path& from, std::string_view qualified, std::vector<analysis::ProjectFunctions::FileRead>& consulted) {
  ensureLinked();
  std::lock_guard lock(functions_mutex_);
  fs::path file = from;
  std::string name_in(qualified);
  // A name re-exported through another module's import (`from .impl import get_device` in
  // `pkg/__init__.py`) is followed a few steps.
  for (int step = 0; step < 4 && !name_in.empty(); ++step) {
    std::string_view rest;
    std::vector<fs::path> bases = importBases(file, name_in, rest);
    std::vector<std::string> parts = splitDotted(rest);
    if (parts.size() < 2 && name_in.front() != '.') return std::nullopt;
    // The module is every part but the last (`utils.get_device`); the last names the function.
    std::optional<fs::path> module;
    for (const fs::path& base : bases)
      if ((module = moduleFile(base, parts, parts.size() - 1))) break;
    if (!module || *module == from) return std::nullopt;
    auto parsed = parsedFile(*module);
    if (parsed == nullptr) return std::nullopt;
    consulted.push_back({module->string(), parsed->content_hash});
    const analysis::SemanticModel& model = parsed->model;
    const std::string& name = parts.back();
    const auto* bindings = model.bindingsOf(model.moduleScope(), name);
    if (bindings == nullptr || bindings->size() != 1) return std::nullopt;  // none, or rebound
    const analysis::Binding& b = *bindings->front();
    if ((b.kind == analysis::BindingKind::Function && analysis::isKind(b.statement, kind::function_definition)) ||
        (b.kind == analysis::BindingKind::Class && analysis::isKind(b.statement, kind::class_definition)))
      return analysis::ProjectFunctions::Definition{&model, b.statement, module->string()};
    if (b.kind != analysis::BindingKind::Import || b.qualified_name.empty()) return std::nullopt;
    file = *module;
    name_in = b.qualified_name;
  }
  return std::nullopt;
}

namespace {

// What one file asks: answers through its project, with the files they came from.
class FileFunctions final : public analysis::ProjectFunctions {
 public:
  FileFunctions(std::shared_ptr<ProjectIndex::Project> project, fs::path file)
      : project_(std::move(project)), file_(std::move(file)) {}
  std::optional<Definition> definition(std::string_view qualified) const override {
    std::vector<FileRead> read;
    auto out = project_->projectDefinition(file_, qualified, read);
    std::lock_guard lock(mutex_);
    for (FileRead& r : read)
      if (std::find(read_.begin(), read_.end(), r) == read_.end()) read_.push_back(std::move(r));
    return out;
  }
  std::vector<FileRead> filesRead() const override {
    std::lock_guard lock(mutex_);
    return read_;
  }

 private:
  std::shared_ptr<ProjectIndex::Project> project_;
  fs::path file_;
  mutable std::mutex mutex_;
  mutable std::vector<FileRead> read_;
};

}  // namespace

std::shared_ptr<const ProjectFacts> withProjectFunctions(std::shared_ptr<const ProjectFacts> facts,
                                                         std::shared_ptr<ProjectIndex::Project> project, const fs::path& file) {
  auto out = std::make_shared<ProjectFacts>(*facts);
  out->functions = std::make_shared<const FileFunctions>(std::move(project), file);
  return out;
}

}  // namespace ptlint::workspace

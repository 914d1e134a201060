#include "workspace/project_index.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>

#include "analysis/instrumentation.h"
#include "analysis/parse.h"
#include "analysis/semantic_model.h"
#include "rules/common/grad_mode.h"
#include "workspace/project_link.h"
#include "workspace/read_fd.h"

namespace ptlint::workspace {

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The bytes of `path` into `out` (reused between calls); false when unreadable or too large.
bool readRaw(const fs::path& path, size_t max_bytes, std::string& out, struct stat& st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) <= max_bytes;
  if (ok) {
    out.resize(static_cast<size_t>(st.st_size));
    readToFill(fd, out);
  }
  ::close(fd);
  return ok;
}

namespace {

bool hasMarker(const fs::path& dir) {
  std::error_code ec;
  for (const char* marker : {"pyproject.toml", "setup.py", "setup.cfg", ".git"})
    if (fs::exists(dir / marker, ec)) return true;
  return false;
}

}  // namespace

bool ProjectIndex::inOverlay(const fs::path& file) const { return overlay_ && overlay_(file).has_value(); }

std::optional<std::string> ProjectIndex::read(const fs::path& file) const {
  if (overlay_)
    if (auto text = overlay_(file)) return text;
  return reader_(file);
}

std::vector<fs::path> ProjectIndex::projectsAffectedBy(const fs::path& file, std::optional<std::string_view> text) {
  fs::path absolute = file.lexically_normal();
  std::vector<std::pair<fs::path, std::shared_ptr<Project>>> candidates;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [folder, project] : projects_)
      if (project->contains(absolute)) candidates.emplace_back(folder, project);
  }
  std::vector<fs::path> out;
  if (candidates.empty()) return out;  // no linked project holds the file: the text is not scanned
  for (const auto& [folder, project] : candidates)
    if (project->mayDependOn(absolute, text)) out.push_back(folder);
  return out;
}

std::vector<fs::path> ProjectIndex::relink(const fs::path& folder) {
  std::shared_ptr<Project> fresh, old;
  {
    std::lock_guard lock(mutex_);
    places_.clear();  // a marker file may have come or gone since
    project_by_folder_.clear();
    markers_.clear();
    packages_.clear();
    auto it = projects_.find(folder.string());
    if (it == projects_.end()) return {};
    old = it->second;
    fresh = std::make_shared<Project>(*this, old->root(), folder, old->recursive(), old->beside());
  }
  fresh->ensureLinked();  // no lock held: reads and parses
  {
    std::lock_guard lock(mutex_);
    projects_[folder.string()] = fresh;
    project_by_folder_.clear();
  }
  old->ensureLinked();  // waits for a link still running elsewhere
  return old->changedFacts(*fresh);
}

std::vector<fs::path> ProjectIndex::linkedProjects() const {
  std::vector<fs::path> out;
  std::lock_guard lock(mutex_);
  for (const auto& [folder, project] : projects_) out.emplace_back(folder);
  return out;
}


ProjectIndex::ProjectIndex(Reader reader, size_t max_bytes) : reader_(std::move(reader)), max_bytes_(max_bytes) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  const char* home = std::getenv("HOME");
  if (!ec && cwd.is_absolute() && cwd.has_relative_path() && !(home != nullptr && fs::path(home) == cwd))
    working_folder_ = cwd.lexically_normal();
}
ProjectIndex::~ProjectIndex() {
  if (scan_cache_loader_.joinable()) scan_cache_loader_.join();
}

fs::path ProjectIndex::projectRoot(const fs::path& file) {
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (hasMarker(dir)) return dir;
    if (dir == dir.root_path()) break;
  }
  fs::path dir = file.parent_path();
  while (isFile(dir / "__init__.py") && dir != dir.root_path()) dir = dir.parent_path();
  return dir;
}

std::shared_ptr<ProjectIndex::Project> ProjectIndex::projectOf(const fs::path& absolute) {
  // Where a folder's project is, found once per folder (a check asks for every file, and the
  // answer takes a few stat calls per level up to `/`).
  ProjectPlace place;
  std::string folder = absolute.parent_path().string();
  bool known = false;
  {
    std::lock_guard lock(mutex_);
    if (auto it = project_by_folder_.find(folder); it != project_by_folder_.end()) return it->second;
    if (auto it = places_.find(folder); it != places_.end()) {
      place = it->second;
      known = true;
    }
  }
  if (!known) {
    place = placeOf(absolute);
    std::lock_guard lock(mutex_);
    places_.emplace(folder, place);
  }
  std::lock_guard lock(mutex_);
  auto& slot = projects_[place.scan.string()];
  if (!slot) slot = std::make_shared<Project>(*this, place.root, place.scan, place.recursive, place.beside);
  project_by_folder_[std::move(folder)] = slot;
  return slot;
}

std::shared_ptr<const ProjectFacts> ProjectIndex::factsFor(const fs::path& file) {
  fs::path absolute = file.lexically_normal();
  std::shared_ptr<Project> project = projectOf(absolute);
  auto facts = project->factsFor(absolute);
  return withProjectFunctions(std::move(facts), std::move(project), absolute);
}

std::shared_ptr<const ProjectFacts> ProjectIndex::factsUnlessLinking(const fs::path& file) {
  fs::path absolute = file.lexically_normal();
  std::shared_ptr<Project> project = projectOf(absolute);
  if (project->linkingElsewhere()) return nullptr;
  auto facts = project->factsFor(absolute);
  return withProjectFunctions(std::move(facts), std::move(project), absolute);
}

namespace {

// `memo`'s answer for `dir`, else `ask(dir)` (run with no lock held) remembered there.
template <class Ask>
bool remembered(std::mutex& mutex, std::unordered_map<std::string, bool>& memo, const fs::path& dir, Ask ask) {
  std::string key = dir.string();
  {
    std::lock_guard lock(mutex);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  bool found = ask(dir);
  std::lock_guard lock(mutex);
  memo.emplace(std::move(key), found);
  return found;
}

}  // namespace

bool ProjectIndex::isPackageCached(const fs::path& dir) {
  return remembered(mutex_, packages_, dir, [](const fs::path& d) { return isFile(d / "__init__.py"); });
}

bool ProjectIndex::hasMarkerCached(const fs::path& dir) { return remembered(mutex_, markers_, dir, hasMarker); }

ProjectIndex::ProjectPlace ProjectIndex::placeOf(const fs::path& absolute) {
  fs::path root;
  for (fs::path dir = absolute.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (hasMarkerCached(dir)) {
      root = dir;
      break;
    }
    if (dir == dir.root_path()) break;
  }
  if (!root.empty()) return {root, root, true, {}};
  // No project marker: the outermost package around the file (scanned with the scripts of the
  // folder holding it, which import it as `python train.py` beside it does), else the file's
  // own folder. When that lies under the working folder (an unpacked archive, a notebook upload
  // checked from its folder), the folders up to it are scanned too (a script there imports
  // `models.net` from a subfolder without `__init__.py`), and the working folder is the import
  // root, as `python -m` makes it.
  ProjectPlace place;
  fs::path top = absolute.parent_path();
  if (isPackageCached(top)) {
    while (top.parent_path() != top && isPackageCached(top.parent_path())) top = top.parent_path();
    place = {top.parent_path(), top, true, {top.parent_path()}};
  } else {
    place = {top, top, false, {}};
  }
  auto rel = working_folder_.empty() ? fs::path{} : place.root.lexically_relative(working_folder_);
  if (!rel.empty() && *rel.begin() != "..") {
    fs::path dir = place.root;
    for (int depth = 0; depth < 256; ++depth, dir = dir.parent_path()) {
      if (dir != place.scan && std::find(place.beside.begin(), place.beside.end(), dir) == place.beside.end())
        place.beside.push_back(dir);
      if (dir == working_folder_ || !dir.has_relative_path()) break;
    }
    place.root = working_folder_;
  }
  return place;
}

namespace {

// The parse of `text` kept for the lint (it stays kept), else a fresh one: a file the link reads
// for several questions (its summary, PTL707's functions and uses) is parsed once.
std::shared_ptr<analysis::ParsedFile> keptOrParsed(std::mutex& mutex,
                                                   const std::unordered_map<uint64_t, std::shared_ptr<analysis::ParsedFile>>& kept,
                                                   uint64_t hash, const std::string& text) {
  {
    std::lock_guard lock(mutex);
    if (auto it = kept.find(hash); it != kept.end() && it->second->text() == text) return it->second;
  }
  return std::make_shared<analysis::ParsedFile>(analysis::ParsedFile::parse(text));
}

}  // namespace

std::shared_ptr<const ModuleSummary> ProjectIndex::summaryOf(const std::string& text) {
  uint64_t hash = XXH3_64bits(text.data(), text.size());
  awaitScanCache();
  {
    std::lock_guard lock(mutex_);
    if (auto it = summaries_.find(hash); it != summaries_.end()) return it->second;
    // Only the summaries used in this run are written back (see saveScanCache).
    if (auto it = stored_summaries_.find(hash); it != stored_summaries_.end())
      return summaries_.emplace(hash, it->second).first->second;
  }
  uint64_t start = analysis::timings::enabled() ? analysis::timings::nowNs() : 0;
  auto parsed = keptOrParsed(mutex_, kept_, hash, text);
  std::shared_ptr<const ModuleSummary> summary;
  {
    analysis::SemanticModel model(*parsed);
    summary = std::make_shared<const ModuleSummary>(analysis::summarizeModule(model));
  }
  if (analysis::timings::enabled())
    analysis::timings::add("project summary (with parse)", text.size(), analysis::timings::nowNs() - start);
  std::lock_guard lock(mutex_);
  ++built_;
  scan_cache_dirty_ = true;
  keepLocked(hash, std::move(parsed));
  return summaries_.try_emplace(hash, summary).first->second;
}

auto ProjectIndex::evaluationFunctionsOf(const std::string& text) -> std::shared_ptr<const Strings> {
  uint64_t hash = XXH3_64bits(text.data(), text.size());
  awaitScanCache();
  {
    std::lock_guard lock(mutex_);
    if (auto it = evaluations_.find(hash); it != evaluations_.end()) return it->second;
    if (auto it = stored_evaluations_.find(hash); it != stored_evaluations_.end())
      return evaluations_.emplace(hash, it->second).first->second;
  }
  auto parsed = keptOrParsed(mutex_, kept_, hash, text);
  std::shared_ptr<const Strings> functions;
  {
    analysis::SemanticModel model(*parsed);
    functions = std::make_shared<const Strings>(rules::evaluationModeFunctions(model));
  }
  std::lock_guard lock(mutex_);
  scan_cache_dirty_ = true;
  keepLocked(hash, std::move(parsed));
  return evaluations_.try_emplace(hash, std::move(functions)).first->second;
}

auto ProjectIndex::evaluationUsesOf(const std::string& text, const Strings& names) -> std::shared_ptr<const EvaluationUses> {
  uint64_t hash = XXH3_64bits(text.data(), text.size());
  std::string key = fmt::format("{:016x}", hash);
  for (const std::string& name : names) key += " " + name;
  awaitScanCache();
  {
    std::lock_guard lock(mutex_);
    if (auto it = evaluation_uses_.find(key); it != evaluation_uses_.end()) return it->second;
    if (auto it = stored_evaluation_uses_.find(key); it != stored_evaluation_uses_.end())
      return evaluation_uses_.emplace(key, it->second).first->second;
  }
  auto parsed = keptOrParsed(mutex_, kept_, hash, text);
  auto uses = std::make_shared<EvaluationUses>();
  {
    analysis::SemanticModel model(*parsed);
    for (auto& use : rules::importedUses(model, names))
      uses->push_back({std::move(use.qualified), use.use.called, use.use.grad_off_or_unknown,
                       analysis::sourcePosOf(*parsed, use.start, use.end)});
  }
  std::lock_guard lock(mutex_);
  scan_cache_dirty_ = true;
  keepLocked(hash, std::move(parsed));
  return evaluation_uses_.try_emplace(key, std::move(uses)).first->second;
}

void ProjectIndex::keepLocked(uint64_t hash, std::shared_ptr<analysis::ParsedFile> parsed) {
  size_t bytes = parsed->text().size();
  if (keep_parsed_ && kept_bytes_ + bytes <= kMaxKeptBytes && !asked_.count(hash) &&
      kept_.try_emplace(hash, std::move(parsed)).second)
    kept_bytes_ += bytes;
}

void ProjectIndex::offerParsed(std::shared_ptr<analysis::ParsedFile> parsed) {
  if (!keep_parsed_) return;
  uint64_t hash = XXH3_64bits(parsed->text().data(), parsed->text().size());
  std::lock_guard lock(mutex_);
  keepLocked(hash, std::move(parsed));
}

std::shared_ptr<analysis::ParsedFile> ProjectIndex::takeParsed(const std::string& text) {
  if (!keep_parsed_) return nullptr;
  uint64_t hash = XXH3_64bits(text.data(), text.size());
  std::shared_ptr<analysis::ParsedFile> parsed;
  {
    std::lock_guard lock(mutex_);
    asked_.insert(hash);
    auto it = kept_.find(hash);
    if (it == kept_.end()) return nullptr;
    parsed = std::move(it->second);
    kept_.erase(it);
    kept_bytes_ -= parsed->text().size();
  }
  if (parsed->text() != text) return nullptr;  // another text with the same hash
  return parsed;
}

void ProjectIndex::forEachFile(size_t count, const std::function<void(size_t, std::string&)>& fn) {
  // Below this many files, a thread costs more than it saves.
  constexpr size_t kFilesPerThread = 32;
  unsigned threads = static_cast<unsigned>(std::min<size_t>(threads_, std::max<size_t>(1, count / kFilesPerThread)));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto worker = [&] {
    std::string buffer;
    try {
      for (size_t i = next++; i < count && !failed.load(std::memory_order_relaxed); i = next++) fn(i, buffer);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // out of threads: the ones started share the work
    }
  }
  worker();
  for (auto& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

void ProjectIndex::problem(Problem problem) {
  constexpr size_t kMaxProblemsTold = 20;  // then counted
  std::lock_guard lock(mutex_);
  if (std::find(problems_.begin(), problems_.end(), problem) != problems_.end()) return;
  if (problems_.size() < kMaxProblemsTold || problem.limit) problems_.push_back(std::move(problem));
  else ++problems_untold_;
}

std::vector<ProjectIndex::Problem> ProjectIndex::problems() const {
  std::lock_guard lock(mutex_);
  auto out = problems_;
  if (problems_untold_ > 0)
    out.push_back({fmt::format("project index: {} more entries could not be read", problems_untold_), false});
  return out;
}

size_t ProjectIndex::summariesBuilt() const {
  std::lock_guard lock(mutex_);
  return built_;
}

}  // namespace ptlint::workspace

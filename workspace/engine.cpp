#include "workspace/engine.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <deque>
#include <set>
#include <system_error>
#include <thread>

#include "analysis/instrumentation.h"
#include "analysis/module_summary.h"
#include "analysis/value_flow.h"
#include "rules/linter.h"
#include "workspace/cache.h"
#include "workspace/pipeline.h"
#include "workspace/project_index.h"

namespace fs = std::filesystem;

namespace ptlint::workspace {
namespace {

// Cross-file facts are read through the same reader as the checked files.
std::optional<std::string> readForIndex(const fs::path& path) {
  std::string error;
  auto source = readLintSource(path, error);
  if (!source) return std::nullopt;
  return std::optional<std::string>(std::move(source->text));
}

// The stored findings lost the fixes `fixable` / `unfixable` dropped: the selection is part of
// the key (a prefix: the key ends with the content size).
std::string cacheKey(std::string key, const ResolvedConfig& config) {
  if (!config.fixable && config.unfixable.empty()) return key;
  std::string selection = "fixable:";
  for (const auto& code : config.fixable.value_or(std::vector<std::string>{"ALL"})) selection += code + ",";
  selection += "unfixable:";
  for (const auto& code : config.unfixable) selection += code + ",";
  return selection + "|" + key;
}

std::vector<std::string> dependenciesOf(const analysis::ProjectFacts* facts, const fs::path& self) {
  // As strings: a path object per note would split every one into components.
  std::set<std::string> named;
  auto add = [&](const std::string& path) {
    if (!path.empty() && path != self.native()) named.insert(path);
  };
  if (facts) {
    for (const auto& root : facts->compiled)
      for (const auto& note : root.trail) add(note.path);
    // PTL702 stays quiet because another file sets CUBLAS_WORKSPACE_CONFIG: that file counts too.
    if (facts->project) {
      for (const auto& [variable, where] : facts->project->environment) add(where.path);
      // PTL406 quiet, or reporting, because of another file; PTL501 quiet because another file
      // may turn Dynamo's scalar capture on.
      for (const auto* note : {&facts->project->sets_epoch, &facts->project->imports_trainer, &facts->project->loops_epochs})
        add(note->path);
      if (const auto* setter = facts->scalarCaptureSetter(); setter != nullptr) add(setter->path);
    }
    // PTL707: how other files use this file's evaluation functions.
    for (const auto& use : facts->uses) add(use.where.path);
  }
  return {named.begin(), named.end()};
}

}  // namespace

Engine::Engine(EngineOptions options)
    : options_(std::move(options)),
      resolver_(options_.overrides, options_.explicit_config),
      project_(std::make_unique<ProjectIndex>(readForIndex, kMaxFileBytes)) {
  if (options_.overlay) project_->setOverlay(options_.overlay);
  project_->keepParsedFiles();  // the files it summarises are linted here: parsed once
  // A link runs while the other threads wait for its facts: it uses them all.
  project_->setThreads(options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency()));
  if (options_.cache_folder && !options_.fix) {
    fs::path dir = options_.cache_dir ? *options_.cache_dir : *options_.cache_folder / ".ptlint_cache";
    cache_ = std::make_unique<ResultsCache>(ResultsCache::Dir{dir});
    if (!cache_->problem()) project_->useScanCache(dir);
  }
}

Engine::~Engine() = default;

std::optional<std::string> Engine::cacheProblem() const {
  return cache_ ? cache_->problem() : std::nullopt;
}

std::vector<Engine::IndexProblem> Engine::projectProblems() const {
  std::vector<IndexProblem> out;
  for (auto& p : project_->problems()) out.push_back({std::move(p.message), p.limit});
  return out;
}

std::shared_ptr<const ResolvedConfig> Engine::configFor(const fs::path& path) {
  return options_.resolve ? std::make_shared<const ResolvedConfig>(options_.resolve(path)) : resolver_.sharedForFile(path);
}

Engine::Started Engine::start(const FileInput& input, const CancellationToken& cancel) {
  Started started;
  FileResult& result = started.result;
  const fs::path path(input.path);  // one path object per file being checked, not per file listed
  result.path = path;
  result.version = input.version;
  if (cancel.cancelled()) return started;
  try {
    std::shared_ptr<const ResolvedConfig> config = configFor(path);
    result.config = config;
    result.settings = settingsForFile(*config, path);
  } catch (const ConfigError& e) {
    result.status = FileStatus::ConfigError;
    result.error = e.what();
    return started;
  }
  rules::Settings& settings = result.settings;
  result.unsafe_fixes = settings.unsafe_fixes;
  if (options_.runtime) {
    settings.compile_log_given = true;
    settings.runtime = options_.runtime(path);
  }
  if (!input.content && takeStamped(started)) return started;
  std::string error;
  auto source = input.content ? prepareSource(path, *input.content, error) : readLintSource(path, error);
  if (!source) {
    result.status = FileStatus::ReadError;
    result.error = error;
    return started;
  }
  result.form.had_bom = source->had_bom;
  result.form.endings = source->endings;
  result.identity = source->identity;
  if (source->notebook) {
    result.form.notebook = std::make_shared<const Notebook>(std::move(*source->notebook));
    result.form.notebook_bytes = std::move(source->notebook_bytes);
  }
  started.asks_project = rules::asksProject(source->text, settings);
  started.from_buffer = input.content.has_value();
  started.text = std::move(source->text);
  started.ready = true;
  return started;
}

bool Engine::takeStamped(Started& started) {
  analysis::timings::Scope timing("cached result taken by stat");
  FileResult& result = started.result;
  if (!cache_ || options_.fix) return false;
  struct stat st {};
  if (::stat(result.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  ResultsCache::Stamp now{static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_ino),
                          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                          static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
  auto known = cache_->stamped(result.path, now);
  if (!known) return false;
  // The same key the text would give, from what the entry says of it.
  rules::Settings settings = result.settings;
  if (known->asks_project) settings.project = project_->factsFor(result.path);
  std::string key = cacheKey(ResultsCache::keyFor(known->content_hash, known->size, settings), *result.config);
  auto still_read = [this](const std::string& file, uint64_t hash) { return textHash(file) == hash; };
  std::vector<std::string> dependencies;
  auto hit = cache_->lookup(result.path, key, still_read, &dependencies);
  // Findings are printed with their lines: those files are read as usual.
  if (!hit || !hit->empty()) return false;
  result.status = FileStatus::Cached;
  // As stored with the result: the key holds the digest of the facts that named them.
  result.dependencies = std::move(dependencies);
  result.settings = std::move(settings);
  return true;
}

void Engine::parseWhileWaiting(Started& started) {
  // The project index's parse, if it summarised the file already; else a parse of our own when
  // the lint will parse the file whatever the facts say (some rule's words and shape are in it).
  if (analysis::timings::enabled()) analysis::timings::add("waiting for a link", started.text.size());
  if (options_.fix) return;  // fixes change the text first: the parse would be lost
  // The link parses such a file for its summary and keeps that parse for the lint.
  if (started.result.form.notebook == nullptr && ProjectIndex::summarisedByLink(started.text)) return;
  started.parsed = project_->takeParsed(started.text);
  if (started.parsed) return;
  if (cache_ && !started.from_buffer && cache_->holds(started.result.path)) return;  // likely a cached result
  std::vector<const rules::Rule*> candidates = rules::rulesThatMayMatch(started.text, started.result.settings);
  if (rules::cannotMatch(started.text, started.result.settings, candidates)) return;
  started.parsed = std::make_shared<const analysis::ParsedFile>(analysis::ParsedFile::parse(started.text));
  if (analysis::timings::enabled()) analysis::timings::add("parsed while waiting for a link", started.text.size());
}

FileResult Engine::finish(Started started, std::shared_ptr<const analysis::ProjectFacts> facts) {
  FileResult result = std::move(started.result);
  const bool started_asks = started.asks_project;
  rules::Settings& settings = result.settings;
  const fs::path& path = result.path;
  if (facts) {
    settings.project = std::move(facts);
    result.dependencies = dependenciesOf(settings.project.get(), path);
  }
  // The project index's parse of this text, if it summarised the file (freed here when unused).
  std::shared_ptr<const analysis::ParsedFile> parsed_before = project_->takeParsed(started.text);
  if (!parsed_before) parsed_before = std::move(started.parsed);
  // Buffers are not what the cache describes (it is keyed by path): only files on disk use it.
  bool use_cache = cache_ && !started.from_buffer;
  std::string key;
  if (use_cache) {
    key = cacheKey(ResultsCache::keyFor(started.text, settings), *result.config);
    auto still_read = [this](const std::string& file, uint64_t hash) { return textHash(file) == hash; };
    if (auto hit = cache_->lookup(path, key, still_read)) {
      result.status = FileStatus::Cached;
      result.diagnostics = std::move(*hit);
      dropUnfixable(result.diagnostics, *result.config);
      result.text = std::move(started.text);
      return result;
    }
  }
  if (options_.fix) result.original = started.text;
  LintRequest request{settings, fixSelectionOf(*result.config), options_.fix, nullptr, false, {}};
  request.parsed_before = std::move(parsed_before);
  LintOutcome outcome = lintSource(std::move(started.text), request, result.form.endings, result.form.notebook.get());
  result.status = FileStatus::Checked;
  result.diagnostics = std::move(outcome.diagnostics);
  result.text = std::move(outcome.text);
  result.changed = outcome.changed;
  result.history = std::move(outcome.history);
  result.findings_fixed = outcome.findings_fixed;
  result.notice = std::move(outcome.notice);
  // A result that used what another file's function returns holds while that file has the text
  // it read (the key does not describe that file); the files it read count as dependencies.
  ResultsCache::Reads reads;
  if (settings.project != nullptr && settings.project->functions != nullptr) {
    for (auto& r : settings.project->functions->filesRead()) {
      if (std::find(result.dependencies.begin(), result.dependencies.end(), r.path) == result.dependencies.end())
        result.dependencies.emplace_back(r.path);
      reads.emplace_back(std::move(r.path), r.content_hash);
    }
  }
  if (use_cache) {
    // The stamp fstat gave before the read: a write since (or during) it changes it.
    std::optional<ResultsCache::Stamp> stamp;
    if (result.identity.inode != 0)
      stamp = ResultsCache::Stamp{result.identity.size, static_cast<uint64_t>(result.identity.inode),
                                  result.identity.mtime_ns, result.identity.ctime_ns};
    cache_->store(path, key, result.diagnostics, result.dependencies, std::move(reads), stamp, started_asks);
  }
  return result;
}

FileResult Engine::check(const FileInput& input, const CancellationToken& cancel) {
  Started started = start(input, cancel);
  if (!started.ready) return std::move(started.result);
  std::shared_ptr<const analysis::ProjectFacts> facts;
  if (started.asks_project) facts = project_->factsFor(started.result.path);
  return finish(std::move(started), std::move(facts));
}

std::vector<FileResult> Engine::run(const std::vector<FileInput>& inputs, const RunHooks& hooks) {
  std::vector<FileResult> results(inputs.size());
  unsigned threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, inputs.size())));
  std::atomic<size_t> next{0}, finished{0};
  // A file whose project another thread is linking waits (parsed meanwhile) while this thread
  // goes on to the next files, up to this much text; then the thread waits for the link too.
  constexpr size_t kMaxWaitingBytes = 4u << 20;
  constexpr size_t kMaxWaitingFiles = 256;
  auto worker = [&] {
    auto guarded = [&](size_t i, const auto& step) {
      FileResult& result = results[i];
      auto fail = [&](const char* message) {
        // What the failed check held is freed by now, so this small result fits.
        try {
          result = FileResult{};
          result.path = inputs[i].path;
          result.version = inputs[i].version;
          result.status = FileStatus::ReadError;
          result.error = message;
        } catch (const std::bad_alloc&) {
          result.status = FileStatus::ReadError;  // not even that: told as not checked
        }
      };
      try {
        step(result);
      } catch (const std::bad_alloc&) {
        // A file too large for the memory left (`ulimit -v`): reported against it; the others,
        // smaller, go on.
        fail("out of memory while checking the file");
      } catch (const std::exception& e) {
        // An I/O failure on one file: reported against it; the others go on.
        fail(e.what());
      }
    };
    auto done = [&](size_t i) {
      FileResult& result = results[i];
      if (hooks.on_result && result.status != FileStatus::Cancelled) {
        try {
          hooks.on_result(i, result);
        } catch (const std::exception&) {
          // The callback's own failure (memory) stays with this file; the worker goes on.
        }
      }
      size_t count = ++finished;
      if (hooks.progress) hooks.progress(count, inputs.size());
    };
    std::deque<std::pair<size_t, Started>> waiting;  // in input order
    size_t waiting_bytes = 0;
    // The waiting files whose facts are ready, in order (all of them, waiting for the links,
    // when `all`).
    auto finishWaiting = [&](bool all) {
      while (!waiting.empty()) {
        // Not a structured binding: clang 14 cannot capture one in the lambda below.
        size_t index = waiting.front().first;
        Started& started = waiting.front().second;
        if (hooks.cancel.cancelled()) {
          // Parked before the cancel, not checked yet: told as cancelled, as the files not started.
          waiting_bytes -= started.text.size();
          results[index] = std::move(started.result);  // its status is still Cancelled, the default
          waiting.pop_front();
          done(index);
          continue;
        }
        std::shared_ptr<const analysis::ProjectFacts> facts =
            all ? project_->factsFor(started.result.path) : project_->factsUnlessLinking(started.result.path);
        if (!facts) return;
        waiting_bytes -= started.text.size();
        guarded(index, [&](FileResult& result) { result = finish(std::move(started), std::move(facts)); });
        waiting.pop_front();
        done(index);
      }
    };
    for (size_t i = next++; i < inputs.size(); i = next++) {
      bool parked = false;
      guarded(i, [&](FileResult& result) {
        Started started = start(inputs[i], hooks.cancel);
        if (!started.ready) {
          result = std::move(started.result);
          return;
        }
        std::shared_ptr<const analysis::ProjectFacts> facts;
        if (started.asks_project) {
          facts = project_->factsUnlessLinking(started.result.path);
          if (!facts && waiting.size() < kMaxWaitingFiles && waiting_bytes + started.text.size() <= kMaxWaitingBytes) {
            parseWhileWaiting(started);
            waiting_bytes += started.text.size();
            waiting.emplace_back(i, std::move(started));
            parked = true;
            return;
          }
          if (!facts) facts = project_->factsFor(started.result.path);
        }
        result = finish(std::move(started), std::move(facts));
      });
      if (!parked) done(i);
      finishWaiting(false);
    }
    finishWaiting(true);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error& e) {
      // Out of threads (`ulimit -u`, memory): the ones started share the work.
      if (hooks.warn)
        hooks.warn(fmt::format("could start only {} of {} threads ({}); continuing with {}", t, threads, e.what(), t));
      break;
    }
  }
  worker();
  for (auto& t : pool) t.join();
  return results;
}

std::optional<uint64_t> Engine::textHash(const std::string& path) {
  {
    std::lock_guard lock(text_hashes_mutex_);
    if (auto it = text_hashes_.find(path); it != text_hashes_.end()) return it->second;
  }
  // Read as the project index reads it (the overlay first), with no lock held.
  std::optional<std::string> text = options_.overlay ? options_.overlay(path) : std::nullopt;
  if (!text) text = readForIndex(path);
  std::optional<uint64_t> hash;
  if (text) hash = XXH3_64bits(text->data(), text->size());
  std::lock_guard lock(text_hashes_mutex_);
  return text_hashes_.emplace(path, hash).first->second;
}

void Engine::save() {
  if (!cache_) return;
  cache_->save();
  project_->saveScanCache();
}

std::vector<rules::Diagnostic> lintOriginal(const FileResult& result) {
  LintRequest request{result.settings, result.config ? fixSelectionOf(*result.config) : FixSelection{}, false, nullptr,
                      false, {}};
  return lintAsIs(result.original, request, result.form.notebook.get());
}

}  // namespace ptlint::workspace

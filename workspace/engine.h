// The engine both front ends drive: files on disk or open buffers → settings per file (config
// discovery) → source (workspace/source_reader.h: the 16 MB limit, BOM, UTF-8, lone '\r',
// notebooks) → project facts (workspace/project_index.h) → lint and fixes
// (workspace/pipeline.h) → results per file, cached (workspace/cache.h) for plain checks.
//
// `ptlint check` makes one Engine per run; the server can do the same for a pass over the
// workspace (workspace diagnostics, fix-all over files on disk):
//
//   workspace::EngineOptions options;
//   options.resolve = [&](const fs::path& p) { return resolver_for(p)->forPath(p); };  // editor settings
//   options.fix = false;                       // true: texts fixed to a fixpoint (nothing is written)
//   workspace::Engine engine(std::move(options));
//   std::vector<workspace::FileInput> inputs;  // walk.files, plus open documents:
//   inputs.push_back({path, std::string(editor_text), version});  // a buffer: its text + version
//   workspace::RunHooks hooks;
//   hooks.cancel = token;                      // token.cancel() from any thread: the rest are skipped
//   hooks.progress = [&](size_t done, size_t total) { work_done->report(...); };  // no lock held
//   for (auto& r : engine.run(inputs, hooks))  // in input order
//     r.status == FileStatus::Checked/Cached: r.diagnostics are byte ranges on r.text, each with
//     its fix; r.error otherwise (a read error, an invalid config: data, never an exception).
//
// A result's `text` is the text the linter saw (a notebook's joined code cells, lone '\r' made
// '\n'); convert positions with that text. The engine writes nothing but its cache: writing fixed
// files back (the CLI's compare-and-swap) is the caller's.
//
// Invariants: one configuration error fails only the files under it (their results carry it;
// every other file is still linted); callbacks (`progress`, `on_result`, `warn`) run with no
// engine lock held, on the worker that finished the file; the project index is linked once per
// Engine (make a new Engine to see files changed on disk since); a cached result is used only
// when the file's bytes, its settings, the build and the digest of the facts other files gave it
// are all unchanged — so a warm run re-lints exactly the edited files and the files whose
// cross-file facts (`dependencies`) the edit changed.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "rules/rule.h"
#include "rules/runtime_findings.h"
#include "rules/settings.h"
#include "workspace/config.h"
#include "workspace/notebook_edits.h"
#include "workspace/pipeline.h"
#include "workspace/source_reader.h"

namespace ptlint::workspace {

class ProjectIndex;
class ResultsCache;

// Shared by copies: cancel() on any copy is seen by all, from any thread.
class CancellationToken {
 public:
  CancellationToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const { flag_->store(true); }
  bool cancelled() const { return flag_->load(); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

struct EngineOptions {
  Overrides overrides;                                  // flags or editor settings
  std::optional<std::filesystem::path> explicit_config;  // `--config PATH`
  // Replaces config discovery (the server's resolvers per workspace folder); may throw ConfigError.
  std::function<ResolvedConfig(const std::filesystem::path&)> resolve;
  bool fix = false;  // fix each text to a fixpoint (`--fix`, `--diff`, fix-all); never cached
  // The results cache's folder (`<folder>/.ptlint_cache`); nullopt: no cache. Plain checks only.
  std::optional<std::filesystem::path> cache_folder;
  std::optional<std::filesystem::path> cache_dir;  // `--cache-dir`: the cache's own folder, if not the default
  unsigned threads = 0;  // 0: the machine's cores
  // Texts that take precedence over the files on disk for cross-file facts (the server's open
  // buffers, unsaved edits included); nullopt for a file: read it from disk.
  std::function<std::optional<std::string>(const std::filesystem::path&)> overlay;
  // A compile log's findings per file (`--compile-log`, the server's `compileLog`): given, the
  // runtime rules are on and each file's settings carry what the log says about it (null: nothing).
  std::function<std::shared_ptr<const rules::RuntimeFindings>(const std::filesystem::path&)> runtime;
};

struct FileInput {
  std::string path;                    // absolute (a string: see WalkResult::files)
  std::optional<std::string> content;  // an open buffer or standard input (bytes); nullopt: read the file
  std::optional<int64_t> version;      // the buffer's version, handed back in the result
};

enum class FileStatus { Checked, Cached, ReadError, ConfigError, Cancelled };

struct FileResult {
  std::filesystem::path path;
  std::optional<int64_t> version;
  FileStatus status = FileStatus::Cancelled;
  std::optional<std::string> error;             // ReadError / ConfigError: a sentence naming the reason
  std::optional<std::string> notice;            // a warning about the file (a fix reverted, ...)
  std::vector<rules::Diagnostic> diagnostics;   // byte ranges on `text`, with fixes
  std::string text;                             // the text the diagnostics are on (fixed, when fixing)
  std::string original;                         // with `fix`: the text before fixes (as `text` is)
  bool changed = false;                         // fixes changed the text
  EditHistory history;                          // the fixes' edits, pass by pass, from `original`
  int findings_fixed = 0;
  bool unsafe_fixes = false;                    // the file's settings allow unsafe fixes
  // The other files whose facts this result depends on (where its functions are compiled):
  // editing one of them re-lints this file on the next warm run.
  std::vector<std::string> dependencies;
  // To give a text back in the file's own form (renderText); form.notebook is set for notebooks.
  SourceForm form;
  FileIdentity identity;
  // What the file was linted under (for lintOriginal after a failed write).
  std::shared_ptr<const ResolvedConfig> config;
  rules::Settings settings;
};

struct RunHooks {
  CancellationToken cancel;
  // After each file: (files finished, files in the run). Any worker thread, no lock held.
  std::function<void(size_t, size_t)> progress;
  // Each finished result with its index in the inputs, before it is stored for `run`'s return
  // (it may be trimmed or moved from). Any worker thread, concurrently, no lock held.
  std::function<void(size_t, FileResult&)> on_result;
  // Warnings about the run (threads that could not start). No lock held.
  std::function<void(const std::string&)> warn;
};

class Engine {
 public:
  explicit Engine(EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Why the cache is not used, once (a symlinked `.ptlint_cache`, ...); nullopt when fine or off.
  std::optional<std::string> cacheProblem() const;
  // What left the project index incomplete in this run (see ProjectIndex::problems); `limit`:
  // a limit was reached, so the check is incomplete.
  struct IndexProblem {
    std::string message;
    bool limit = false;
  };
  std::vector<IndexProblem> projectProblems() const;
  // The resolver behind config discovery (for walking with `collectFiles`).
  ConfigResolver& resolver() { return resolver_; }
  // The configuration for `path` (throws ConfigError).
  std::shared_ptr<const ResolvedConfig> configFor(const std::filesystem::path& path);

  // One file on the calling thread.
  FileResult check(const FileInput& input, const CancellationToken& cancel = {});
  // Many files on a pool of threads; results in input order.
  std::vector<FileResult> run(const std::vector<FileInput>& inputs, const RunHooks& hooks = {});

  // Sets EngineOptions::runtime (the CLI knows the findings once it has walked the files).
  void setRuntime(std::function<std::shared_ptr<const rules::RuntimeFindings>(const std::filesystem::path&)> runtime) {
    options_.runtime = std::move(runtime);
  }

  // Writes the cache and the project scan cache, if used (failure is not an error).
  void save();

 private:
  // A file read and configured: what check() does before it asks for the project's facts.
  struct Started {
    FileResult result;  // final unless `ready`
    bool ready = false;
    bool asks_project = false;
    bool from_buffer = false;
    std::string text;
    std::shared_ptr<const analysis::ParsedFile> parsed;  // parsed while its project was linked
  };
  Started start(const FileInput& input, const CancellationToken& cancel);
  void parseWhileWaiting(Started& started);
  // A file on disk whose cache entry still holds (the stamp, the key, the helpers it read) and
  // has no findings: made a Cached result without reading the file. False: read it as usual.
  bool takeStamped(Started& started);
  FileResult finish(Started started, std::shared_ptr<const analysis::ProjectFacts> facts);

  // The hash of `path`'s text as the project index reads it, once per engine (nullopt: unreadable).
  std::optional<uint64_t> textHash(const std::string& path);
  std::mutex text_hashes_mutex_;
  std::unordered_map<std::string, std::optional<uint64_t>> text_hashes_;

  EngineOptions options_;
  ConfigResolver resolver_;
  std::unique_ptr<ProjectIndex> project_;
  std::unique_ptr<ResultsCache> cache_;
};

// The findings on `result`'s text before fixes (`original`), as a plain check reports them.
std::vector<rules::Diagnostic> lintOriginal(const FileResult& result);

}  // namespace ptlint::workspace

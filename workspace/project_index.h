// The project index: links module summaries (analysis/module_summary.h) across the files of a
// project to answer cross-file questions: "which functions of this file does torch.compile reach
// from elsewhere in the project?" (PTL501 and every rule on compiled regions), "may a compile
// reach code the index cannot resolve?" (PTL603) and "does some file set
// CUBLAS_WORKSPACE_CONFIG?" (PTL702).
//
// The project of a file is found from the file itself: the nearest folder above it holding
// `pyproject.toml`, `setup.py`, `setup.cfg` or `.git` (so one file checked alone, as a pre-commit
// hook does, still sees its project); without one, the outermost package (`__init__.py`) around
// the file. Modules resolve from that root and from `<root>/src`: packages with `__init__.py`,
// namespace packages (folders without one), relative imports, and names re-exported through
// another module's imports (`pkg/__init__.py`).
//
// Invariants: demand-driven — nothing is read before a rule asks; then every project file is
// scanned (raw bytes, then the code of the few that pass, strings and comments blanked) for a
// call or decorator spelled `compile` other than Python's builtin (`analysis::mayHoldCompileSite`),
// a write of an indexed environment variable (`CUBLAS_WORKSPACE_CONFIG`,
// `workspace::mayWriteVariable`) or the name of Dynamo's process-wide `capture_scalar_outputs`
// (analysis/dynamo_config.h), and only those holding one are read, parsed and summarised, plus the
// modules their compile sites reach; a file no question reaches and without that word is never
// parsed. Files are read through the caller's reader (the CLI's size limit and UTF-8 handling).
// Summaries are cached by content hash. Thread-safe: the summary map has its own mutex, never
// held while reading, parsing or calling back; each project is linked once.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/module_summary.h"
#include "analysis/parse.h"

namespace ptlint::workspace {

class ProjectIndex {
 public:
  // Reads a file's text (UTF-8, without BOM), or nullopt when it cannot or should not be read.
  using Reader = std::function<std::optional<std::string>(const std::filesystem::path&)>;

  // `max_bytes`: files above this size are never scanned (the reader's own limit).
  explicit ProjectIndex(Reader reader, size_t max_bytes = 16u * 1024 * 1024);
  ~ProjectIndex();
  ProjectIndex(const ProjectIndex&) = delete;
  ProjectIndex& operator=(const ProjectIndex&) = delete;

  // What the project says about `file` (absolute): the functions other files compile. Never
  // null. The first call for a project links it (reading what it must); later ones are lookups.
  std::shared_ptr<const analysis::ProjectFacts> factsFor(const std::filesystem::path& file);
  // The same, except that while another thread links `file`'s project it returns null at once
  // instead of waiting (the caller may do other work and ask again).
  std::shared_ptr<const analysis::ProjectFacts> factsUnlessLinking(const std::filesystem::path& file);

  // The folder whose imports resolve `file`'s project, as described above.
  static std::filesystem::path projectRoot(const std::filesystem::path& file);

  // For the language server. `overlay`: texts that take precedence over the files on disk (open
  // editor buffers); a file it answers for is never read from disk. Set before the first question.
  void setOverlay(Reader overlay) { overlay_ = std::move(overlay); }
  // The linked projects (by the folder they scan) whose facts a new text of `file` may change:
  // `file` is one of the modules their link read, or `text` may hold a compile site (nullopt
  // `text`: unknown, e.g. a buffer closed in favour of the file on disk). Cheap: no file is read.
  std::vector<std::filesystem::path> projectsAffectedBy(const std::filesystem::path& file,
                                                        std::optional<std::string_view> text);
  // Links the project scanned from `folder` again (the overlay and the files as they are now)
  // and answers later questions from the new link; questions asked meanwhile get the previous
  // link's facts. Returns the files whose facts changed (all of them when the previous link had
  // not finished).
  std::vector<std::filesystem::path> relink(const std::filesystem::path& folder);
  // The folders of every project linked so far.
  std::vector<std::filesystem::path> linkedProjects() const;

  // Remembers across runs which files hold no compile call, by size, inode, mtime and ctime, and the
  // summaries used, by content hash, in `<folder>/project-scan.json` (the results cache's
  // folder): a warm run then reads only the files that changed and parses none it summarised. Call before the first question; `saveScanCache` writes it back
  // atomically (false when it could not; never an error). The file is read on a thread of its
  // own (while the caller walks the paths to check); the first question waits for it.
  void useScanCache(std::filesystem::path folder);
  bool saveScanCache();

  // Summaries built so far (for tests and the performance notes).
  size_t summariesBuilt() const;

  // What made some link incomplete, each once, in the order met, for the caller to report: the
  // file limit (`limit`: the CLI warns and exits 2), a folder or entry of the project that
  // cannot be read (a warning: the index does not know which folders the user excludes).
  struct Problem {
    std::string message;
    bool limit = false;
    bool operator==(const Problem&) const = default;
  };
  std::vector<Problem> problems() const;
  // Source files one project lists at most (its memory bound); past it the rest are not
  // indexed, and that is one of the problems above.
  static constexpr size_t kMaxProjectFiles = 500000;
  void setMaxProjectFiles(size_t count) { max_files_ = count; }  // for tests
  // Threads a link may use to look at and summarise a project's files (default 1: the caller's).
  void setThreads(unsigned threads) { threads_ = std::max(1u, threads); }

  class Project;

  // The summary of `text` (cached by content hash); `path` only names the file in errors.
  std::shared_ptr<const analysis::ModuleSummary> summaryOf(const std::string& text);
  // PTL707 across files, by content hash as summaries are (and kept in the scan cache with
  // them): the top-level functions of `text` that set evaluation mode and then call a model
  // (rules/common/grad_mode.h `evaluationModeFunctions`), and its imported uses of `names`
  // (`importedUses`), each with where it is.
  using Strings = std::vector<std::string>;
  std::shared_ptr<const Strings> evaluationFunctionsOf(const std::string& text);
  struct EvaluationUse {
    std::string qualified;
    bool called = false, grad_off_or_unknown = false;
    analysis::SourcePos at;
  };
  using EvaluationUses = std::vector<EvaluationUse>;
  std::shared_ptr<const EvaluationUses> evaluationUsesOf(const std::string& text, const Strings& names);

  // For a run that lints the files it summarises (the engine): each summarised file's parse is
  // kept until `takeParsed` asks for its text, so that the file is parsed once. A text asked for
  // before it was summarised is not kept afterwards; at most kMaxKeptBytes of text are kept.
  void keepParsedFiles() { keep_parsed_ = true; }
  // The kept parse of exactly `text`, handed over (null when none); it is forgotten either way.
  std::shared_ptr<analysis::ParsedFile> takeParsed(const std::string& text);
  // A parse made for the project's facts, kept as summaryOf keeps its own (when keeping).
  void offerParsed(std::shared_ptr<analysis::ParsedFile> parsed);
  static constexpr size_t kMaxKeptBytes = 16u << 20;

 private:
  Reader reader_;
  Reader overlay_;
  size_t max_bytes_;
  size_t max_files_ = kMaxProjectFiles;
  unsigned threads_ = 1;
  std::vector<Problem> problems_;      // guarded by mutex_
  size_t problems_untold_ = 0;         // guarded by mutex_
  void problem(Problem problem);
  mutable std::mutex mutex_;  // guards projects_ and summaries_; never held while parsing
  std::unordered_map<std::string, std::shared_ptr<Project>> projects_;
  std::unordered_map<uint64_t, std::shared_ptr<const analysis::ModuleSummary>> summaries_;
  size_t built_ = 0;
  bool keep_parsed_ = false;
  // Kept parses by content hash, their texts' bytes, and the hashes already asked for (guarded by mutex_).
  std::unordered_map<uint64_t, std::shared_ptr<analysis::ParsedFile>> kept_;
  size_t kept_bytes_ = 0;
  std::unordered_set<uint64_t> asked_;
  void keepLocked(uint64_t hash, std::shared_ptr<analysis::ParsedFile> parsed);  // mutex_ held
  struct ScanEntry {
    uint64_t size = 0, inode = 0;
    int64_t mtime_ns = 0;
    int64_t ctime_ns = 0;  // changes on every write, and `touch`/`utime` cannot set it back
    bool may_compile = false;
    // Holds an indexed variable's name (CUBLAS_WORKSPACE_CONFIG) or Dynamo's capture setting.
    bool may_set_environment = false;
    uint8_t training = 0;              // workspace/training_scan.h's TrainingWords
  };
  std::filesystem::path scan_cache_dir_;
  std::unordered_map<std::string, ScanEntry> scan_cache_;  // guarded by mutex_
  // Summaries read from the scan cache, by content hash (guarded by mutex_).
  std::unordered_map<uint64_t, std::shared_ptr<const analysis::ModuleSummary>> stored_summaries_;
  // The same for evaluationFunctionsOf and evaluationUsesOf (the latter by content hash and names).
  std::unordered_map<uint64_t, std::shared_ptr<const Strings>> evaluations_, stored_evaluations_;
  std::unordered_map<std::string, std::shared_ptr<const EvaluationUses>> evaluation_uses_, stored_evaluation_uses_;
  bool scan_cache_dirty_ = false;
  // When the loaded cache file was written: an entry whose file changed within a timestamp tick
  // of it may describe a version that changed again in that tick (git's "racily clean" entries),
  // so it is not trusted.
  int64_t scan_cache_written_ns_ = 0;
  std::unordered_set<std::string> scan_seen_;  // files looked at in this run (guarded by mutex_)
  void loadScanCache();
  void awaitScanCache();  // every reader of the two tables above calls this first
  std::once_flag scan_cache_loaded_;
  std::thread scan_cache_loader_;  // joined by the destructor

  // Where the project of a folder's files is: its root, the folder scanned, and whether the scan
  // goes down into subfolders. Remembered per folder until the next relink.
  struct ProjectPlace {
    std::filesystem::path root, scan;
    bool recursive = true;
    std::vector<std::filesystem::path> beside;  // folders scanned without recursion too
  };
  ProjectPlace placeOf(const std::filesystem::path& absolute_file);
  std::shared_ptr<Project> projectOf(const std::filesystem::path& absolute);  // made on first use
  bool hasMarkerCached(const std::filesystem::path& dir);
  bool isPackageCached(const std::filesystem::path& dir);  // holds __init__.py
  std::unordered_map<std::string, ProjectPlace> places_;  // guarded by mutex_
  // The project each folder's files belong to (projectOf, per file, is then one lookup).
  std::unordered_map<std::string, std::shared_ptr<Project>> project_by_folder_;  // guarded by mutex_
  std::unordered_map<std::string, bool> markers_;         // folder -> holds a project marker; guarded by mutex_
  std::unordered_map<std::string, bool> packages_;        // folder -> holds __init__.py; guarded by mutex_
  // The working folder when the index was made (empty when it is `/` or the home folder): the
  // project of a file under it that no marker claims.
  std::filesystem::path working_folder_;

  friend class Project;
  // The overlay's text of `file`, else the reader's.
  std::optional<std::string> read(const std::filesystem::path& file) const;
  bool inOverlay(const std::filesystem::path& file) const;
  struct ScanVerdict {
    bool may_compile = false;          // a call or decorator spelled `compile`
    bool may_set_environment = false;  // an indexed environment variable's name, the capture setting
    uint8_t training = 0;              // workspace/training_scan.h's TrainingWords
    bool too_large = false;            // past the size limit: not looked at
  };
  // What a raw look at `file` (the overlay's text first) says (`raw` is a reusable buffer); all
  // false when unreadable.
  ScanVerdict scanFile(const std::filesystem::path& file, std::string& raw);
 public:
  // Whether a link summarises a file of this text (it may hold a compile site, set an indexed
  // environment variable or Dynamo's capture setting): its parse is then kept for the lint.
  static bool summarisedByLink(std::string_view text) {
    ScanVerdict verdict = scanText(text, true);
    return verdict.may_compile || verdict.may_set_environment;
  }

 private:
  static ScanVerdict scanText(std::string_view text, bool code_view);
  // Calls `fn(i, buffer)` for every i < count, on up to `threads_` threads (the caller's among
  // them), each with a reusable buffer of its own; the first exception thrown is rethrown here
  // once every thread has stopped.
  void forEachFile(size_t count, const std::function<void(size_t, std::string&)>& fn);
  bool racy(const ScanEntry& entry) const;  // mutex_ held
};

}  // namespace ptlint::workspace

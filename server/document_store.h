// Open documents and their incremental synchronisation. Each `didChange` range is applied to
// the text at once (in arrival order, on the I/O thread) and folded into one pending
// tree-sitter edit; the tree is brought up to date lazily, by `snapshot()`, with `ts_tree_edit`
// and a re-parse that reuses the previous tree. Bursts of edits thus cost one re-parse.
//
// Thread-safe. Snapshots are immutable and shared: a worker keeps analysing its snapshot while
// newer edits arrive.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analysis/parse.h"
#include "server/position_encoding.h"
#include "server/protocol.h"

namespace ptlint::server {

// One version of one document, parsed.
struct DocumentSnapshot {
  std::string uri;
  int version = 0;
  uint64_t revision = 0;  // internal, strictly increasing on every change (clients may repeat versions)
  std::shared_ptr<const analysis::ParsedFile> file;
  LineTable lines;        // LSP lines of file->text()
  bool in_sync = true;    // false: a change was lost, this text is not the editor's

  std::string_view text() const { return file->text(); }
};

class DocumentStore {
 public:
  void open(const std::string& uri, int version, std::string text);
  enum class ChangeResult { Applied, NotOpen, IgnoredOutOfSync };
  // Applies `changes` in order. While the document is out of sync, changes with a range are
  // ignored (they would land on the wrong text); a whole-text change brings it back in sync.
  ChangeResult change(const std::string& uri, int version, const std::vector<TextDocumentContentChangeEvent>& changes,
                      PositionEncoding encoding);
  // Records that a change to `uri` was lost. Returns false when it is not open or already marked.
  bool markOutOfSync(const std::string& uri);
  void close(const std::string& uri);

  bool isOpen(const std::string& uri) const;
  std::vector<std::string> openUris() const;
  // The current text (a copy; no parse); nullopt when not open.
  std::optional<std::string> text(const std::string& uri) const;
  // Revision of the current text; nullopt when not open.
  std::optional<uint64_t> revision(const std::string& uri) const;

  // The current text, parsed (incrementally when possible). nullptr when not open.
  std::shared_ptr<const DocumentSnapshot> snapshot(const std::string& uri);

 private:
  // The change since `parsed`, as one edit covering every range touched (bytes).
  struct PendingEdit {
    uint32_t start = 0, old_end = 0, new_end = 0;
  };
  struct Entry {
    std::string text;
    int version = 0;
    uint64_t revision = 0;
    LineTable lines;
    std::shared_ptr<const DocumentSnapshot> parsed;  // may be older than `text`
    std::optional<PendingEdit> pending;
    bool in_sync = true;
  };

  mutable std::mutex mutex_;
  std::map<std::string, Entry> docs_;
  uint64_t next_revision_ = 1;
};

}  // namespace ptlint::server

#include "server/document_store.h"

#include <algorithm>

namespace ptlint::server {
namespace {

TSPoint pointFromIndex(const analysis::LineIndex& lines, uint32_t offset) {
  auto rc = lines.byteRowColumn(offset);
  return {rc.row, rc.column};
}

// `start` advanced by the text `inserted` (for the new end point of an edit).
TSPoint advance(TSPoint start, std::string_view inserted) {
  size_t last = inserted.rfind('\n');
  if (last == std::string_view::npos) return {start.row, start.column + static_cast<uint32_t>(inserted.size())};
  uint32_t rows = static_cast<uint32_t>(std::count(inserted.begin(), inserted.end(), '\n'));
  return {start.row + rows, static_cast<uint32_t>(inserted.size() - last - 1)};
}

}  // namespace

void DocumentStore::open(const std::string& uri, int version, std::string text) {
  std::lock_guard lock(mutex_);
  Entry& entry = docs_[uri];
  entry = Entry{};
  entry.lines = LineTable(text);
  entry.text = std::move(text);
  entry.version = version;
  entry.revision = next_revision_++;
}

DocumentStore::ChangeResult DocumentStore::change(const std::string& uri, int version,
                                                 const std::vector<TextDocumentContentChangeEvent>& changes,
                                                 PositionEncoding encoding) {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return ChangeResult::NotOpen;
  Entry& entry = it->second;
  auto first = changes.begin();
  if (!entry.in_sync) {
    // Only what follows the last whole-text change can be applied.
    auto last_full = std::find_if(changes.rbegin(), changes.rend(), [](const auto& c) { return !c.range; });
    if (last_full == changes.rend()) return ChangeResult::IgnoredOutOfSync;
    first = std::prev(last_full.base());
    entry.in_sync = true;
    entry.parsed.reset();  // parse from scratch: the old tree is of a text the editor never had
    entry.pending.reset();
  }
  for (auto change_it = first; change_it != changes.end(); ++change_it) {
    const auto& change = *change_it;
    uint32_t start = 0, end = static_cast<uint32_t>(entry.text.size());
    if (change.range) {
      start = toOffset(entry.text, entry.lines, change.range->start, encoding);
      end = toOffset(entry.text, entry.lines, change.range->end, encoding);
      if (end < start) std::swap(start, end);  // a reversed range still names the same span
    }
    entry.text.replace(start, end - start, change.text);
    entry.lines = LineTable(entry.text);
    uint32_t new_end = start + static_cast<uint32_t>(change.text.size());
    // Fold into the pending edit (a bounding edit: bytes outside it are unchanged since the
    // last parse, shifted by the total length difference).
    if (!entry.pending) {
      entry.pending = PendingEdit{start, end, new_end};
    } else {
      PendingEdit& p = *entry.pending;
      int64_t delta = static_cast<int64_t>(change.text.size()) - (static_cast<int64_t>(end) - start);
      uint32_t old_end = end > p.new_end ? static_cast<uint32_t>(end + (static_cast<int64_t>(p.old_end) - p.new_end)) : p.old_end;
      uint32_t composed_new_end = static_cast<uint32_t>(std::max(p.new_end, end) + delta);
      p.start = std::min(p.start, start);
      p.old_end = old_end;
      p.new_end = std::max(composed_new_end, new_end);
    }
  }
  entry.version = version;
  entry.revision = next_revision_++;
  return ChangeResult::Applied;
}

bool DocumentStore::markOutOfSync(const std::string& uri) {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end() || !it->second.in_sync) return false;
  it->second.in_sync = false;
  it->second.revision = next_revision_++;  // analyses of the old text are stale now
  return true;
}

void DocumentStore::close(const std::string& uri) {
  std::lock_guard lock(mutex_);
  docs_.erase(uri);
}

bool DocumentStore::isOpen(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  return docs_.count(uri) != 0;
}

std::vector<std::string> DocumentStore::openUris() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> uris;
  for (const auto& [uri, entry] : docs_) uris.push_back(uri);
  return uris;
}

std::optional<std::string> DocumentStore::text(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return it->second.text;
}

std::optional<uint64_t> DocumentStore::revision(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return it->second.revision;
}

std::shared_ptr<const DocumentSnapshot> DocumentStore::snapshot(const std::string& uri) {
  std::shared_ptr<const DocumentSnapshot> base;
  std::optional<PendingEdit> pending;
  std::string text;
  int version = 0;
  uint64_t revision = 0;
  bool in_sync = true;
  LineTable lines;
  {
    std::lock_guard lock(mutex_);
    auto it = docs_.find(uri);
    if (it == docs_.end()) return nullptr;
    Entry& entry = it->second;
    if (entry.parsed && entry.parsed->revision == entry.revision) return entry.parsed;
    base = entry.parsed;
    pending = entry.pending;
    text = entry.text;
    version = entry.version;
    revision = entry.revision;
    in_sync = entry.in_sync;
    lines = entry.lines;
  }
  // Parse outside the lock: edits keep arriving meanwhile.
  auto snap = std::make_shared<DocumentSnapshot>();
  snap->uri = uri;
  snap->version = version;
  snap->revision = revision;
  snap->in_sync = in_sync;
  snap->lines = std::move(lines);
  if (base && pending) {
    const analysis::ParsedFile& old_file = *base->file;
    TSInputEdit edit{};
    edit.start_byte = pending->start;
    edit.old_end_byte = pending->old_end;
    edit.new_end_byte = pending->new_end;
    edit.start_point = pointFromIndex(old_file.lines(), pending->start);
    edit.old_end_point = pointFromIndex(old_file.lines(), pending->old_end);
    edit.new_end_point = advance(edit.start_point, std::string_view(text).substr(pending->start, pending->new_end - pending->start));
    snap->file = std::make_shared<const analysis::ParsedFile>(old_file.reparse(std::move(text), edit));
  } else {
    snap->file = std::make_shared<const analysis::ParsedFile>(analysis::ParsedFile::parse(std::move(text)));
  }
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it != docs_.end() && it->second.revision == revision) {
    it->second.parsed = snap;
    it->second.pending.reset();
  }
  return snap;
}

}  // namespace ptlint::server

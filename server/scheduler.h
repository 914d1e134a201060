// The analysis scheduler: owns the worker threads, the analysis state of each open document
// (its newest result, whether an analysis is queued or running, who waits for it) and the
// numbering of publications.
//
// Publication rule: after every applied change the result for the newest applied text is
// handed to `Publish` (edits that arrive while an analysis runs are coalesced into the next
// one), and a result is never handed over after a result of a newer text. "Newer" is the order
// in which the server applied the texts, not the client's version numbers. Each publication is
// numbered under the scheduler's lock; the outbox drops one that arrives after a
// higher-numbered one for the same document.
//
// Threads: two pools, so that no request waits behind another kind of work: `Pool::Analysis`
// analyses documents and answers cheap requests, `Pool::Heavy` runs what may take seconds on a
// big file (fix-all, workspace diagnostics). The scheduler's lock is never held while an
// analysis, a callback or a publication runs.
#pragma once

#include <asio/thread_pool.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/document_analysis.h"
#include "server/document_store.h"
#include "server/requests.h"

namespace ptlint::server {

class Scheduler {
 public:
  enum class Pool { Analysis, Heavy };
  // Analyses a snapshot; `previous` is the document's last result (may be returned as is).
  using Analyze = std::function<ResultPtr(const std::shared_ptr<const DocumentSnapshot>&, const ResultPtr& previous)>;
  // A new result for an open document, numbered `seq`; called with no lock held, never for a
  // result older than one already handed over.
  using Publish = std::function<void(const std::string& uri, uint64_t seq, const ResultPtr& result)>;

  Scheduler(DocumentStore& docs, Analyze analyze, Publish publish, std::function<uint64_t()> generation,
            size_t analysis_threads);
  ~Scheduler() { shutdown(); }
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Whether new results are published (push diagnostics) or only kept for requests (pull).
  void setPublishing(bool on) { publishing_ = on; }

  // A document was opened (a re-open drops the previous session's work and its waiters).
  void opened(const std::string& uri);
  // A document was closed: its work is dropped, its waiters get nullptr. Returns the number of
  // the empty publication that clears it (taken after the close, so that no earlier result can
  // overwrite it).
  uint64_t closed(const std::string& uri);
  // A number for a publication that is not an analysis result (cells leaving a notebook).
  uint64_t nextSequence();

  // (Re-)analyses the document's newest text.
  void schedule(const std::string& uri);
  void scheduleAll();

  // Runs `callback` on `pool` with the result for the document's current text (nullptr when it
  // is not open or the analysis failed). Never on the calling (I/O) thread.
  void whenAnalyzed(const std::string& uri, Pool pool, std::function<void(ResultPtr)> callback);
  // The newest result of every open document (null entries left out).
  std::vector<ResultPtr> latestResults() const;

  void post(Pool pool, std::function<void()> work);
  // Runs `work` for a request on `pool` (unless already cancelled), answering errors it throws.
  template <typename T>
  void run(Pool pool, Reply<T> reply, std::function<void()> work) {
    post(pool, [reply, work = std::move(work)] {
      if (!reply.cancelled()) answerErrors(reply, work);
    });
  }
  // Wraps a callback so that exceptions answer the request instead of escaping a worker.
  template <typename T>
  static std::function<void(ResultPtr)> guarded(Reply<T> reply, std::function<void(ResultPtr)> body) {
    return [reply, body = std::move(body)](ResultPtr result) {
      if (!reply.cancelled()) answerErrors(reply, [&] { body(std::move(result)); });
    };
  }

  bool shuttingDown() const { return shutting_down_; }
  // Why the document's last analysis failed (its waiters got no result), or empty.
  std::string failureOf(const std::string& uri) const;
  // Stops taking work, waits for the workers, answers every waiter (nullptr). Idempotent.
  void shutdown();

 private:
  struct DocState {
    bool scheduled = false;  // an analysis job is queued or running
    bool dirty = false;      // something changed since that job took its snapshot
    bool closed = false;
    ResultPtr latest;
    std::vector<std::function<void(ResultPtr)>> waiters;  // run with the next fresh result
    std::string failure;  // why the last analysis gave no result (out of memory, ...); empty if it did
  };

  void analyzeLoop(const std::string& uri, const std::shared_ptr<DocState>& state);
  asio::thread_pool& pool(Pool p) { return p == Pool::Heavy ? heavy_ : workers_; }

  DocumentStore& docs_;
  Analyze analyze_;
  Publish publish_;
  std::function<uint64_t()> generation_;
  std::atomic<bool> publishing_{true}, shutting_down_{false};
  asio::thread_pool workers_;
  asio::thread_pool heavy_;

  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<DocState>> states_;
  uint64_t publish_seq_ = 0;  // numbers every publication, under mutex_
};

}  // namespace ptlint::server

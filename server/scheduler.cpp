#include "server/scheduler.h"

#include <asio/post.hpp>

#include "server/log.h"

namespace ptlint::server {

Scheduler::Scheduler(DocumentStore& docs, Analyze analyze, Publish publish, std::function<uint64_t()> generation,
                     size_t analysis_threads)
    : docs_(docs),
      analyze_(std::move(analyze)),
      publish_(std::move(publish)),
      generation_(std::move(generation)),
      workers_(analysis_threads),
      heavy_(2) {}

void Scheduler::shutdown() {
  shutting_down_ = true;
  workers_.join();
  heavy_.join();
  std::map<std::string, std::shared_ptr<DocState>> states;
  {
    std::lock_guard lock(mutex_);
    states.swap(states_);
  }
  // Requests still waiting for an analysis are answered (nullptr; their handles then answer
  // InternalError as they go) with no lock held.
  for (auto& [uri, state] : states) {
    std::vector<std::function<void(ResultPtr)>> waiters;
    {
      std::lock_guard lock(mutex_);
      state->closed = true;
      waiters.swap(state->waiters);
    }
    waiters.clear();
  }
}

void Scheduler::opened(const std::string& uri) {
  std::vector<std::function<void(ResultPtr)>> waiters;
  {
    std::lock_guard lock(mutex_);
    auto& state = states_[uri];
    if (state) {  // a re-open without a close: drop the previous session's work
      state->closed = true;
      waiters = std::move(state->waiters);
    }
    state = std::make_shared<DocState>();
  }
  for (auto& waiter : waiters) waiter(nullptr);  // answered as for a closed document, unlocked
  schedule(uri);
}

uint64_t Scheduler::closed(const std::string& uri) {
  std::vector<std::function<void(ResultPtr)>> waiters;
  uint64_t seq;
  {
    std::lock_guard lock(mutex_);
    auto it = states_.find(uri);
    if (it != states_.end()) {
      it->second->closed = true;
      waiters = std::move(it->second->waiters);
      states_.erase(it);
    }
    // Numbered under the lock, after `closed` is set: an analysis that finished earlier holds a
    // lower number, so the outbox drops it if it arrives after the empty list.
    seq = ++publish_seq_;
  }
  for (auto& waiter : waiters) waiter(nullptr);
  return seq;
}

uint64_t Scheduler::nextSequence() {
  std::lock_guard lock(mutex_);
  return ++publish_seq_;
}

void Scheduler::schedule(const std::string& uri) {
  std::shared_ptr<DocState> state;
  {
    std::lock_guard lock(mutex_);
    auto it = states_.find(uri);
    if (it == states_.end()) return;
    state = it->second;
    state->dirty = true;
    if (state->scheduled) return;  // the running job will see `dirty` and start over
    state->scheduled = true;
  }
  asio::post(workers_, [this, uri, state] { analyzeLoop(uri, state); });
}

void Scheduler::scheduleAll() {
  for (const auto& uri : docs_.openUris()) schedule(uri);
}

void Scheduler::analyzeLoop(const std::string& uri, const std::shared_ptr<DocState>& state) {
  for (;;) {
    ResultPtr previous;
    {
      std::lock_guard lock(mutex_);
      if (state->closed || shutting_down_) {
        state->scheduled = false;
        return;
      }
      state->dirty = false;
      previous = state->latest;
    }
    ResultPtr result;
    std::string failure;
    try {
      if (auto snap = docs_.snapshot(uri)) result = analyze_(snap, previous);
    } catch (const std::bad_alloc&) {
      failure = "out of memory";
    } catch (const std::exception& e) {
      failure = e.what();
    }
    if (!failure.empty()) logToStderr("analysis of " + uri + " failed: " + failure);
    std::vector<std::function<void(ResultPtr)>> waiters;
    std::optional<uint64_t> seq;
    {
      std::lock_guard lock(mutex_);
      if (state->closed) {
        state->scheduled = false;
        return;
      }
      if (state->dirty) continue;  // newer text or settings: this result is already stale
      state->scheduled = false;
      waiters = std::move(state->waiters);  // answered even when the analysis failed (nullptr)
      state->failure = std::move(failure);
      if (result && result != state->latest) {  // the same result again is not published again
        state->latest = result;
        if (publishing_) seq = ++publish_seq_;
      }
    }
    // Handed over with no lock held; the number keeps a newer publication from being undone.
    if (seq) publish_(uri, *seq, result);
    for (auto& waiter : waiters) waiter(result);
    return;
  }
}

void Scheduler::whenAnalyzed(const std::string& uri, Pool pool_kind, std::function<void(ResultPtr)> callback) {
  auto on_pool = [this, pool_kind, callback = std::move(callback)](ResultPtr result) {
    asio::post(pool(pool_kind), [callback, result = std::move(result)] { callback(result); });
  };
  ResultPtr ready;
  std::shared_ptr<DocState> start;
  {
    std::lock_guard lock(mutex_);
    auto it = states_.find(uri);
    if (it != states_.end()) {
      auto state = it->second;
      if (state->latest && !state->dirty && !state->scheduled && state->latest->generation == generation_()) {
        ready = state->latest;
      } else {
        state->waiters.push_back(std::move(on_pool));
        if (state->scheduled) return;
        state->dirty = true;
        state->scheduled = true;
        start = state;
      }
    }
  }
  if (start) asio::post(workers_, [this, uri, start] { analyzeLoop(uri, start); });
  else on_pool(ready);
}

std::string Scheduler::failureOf(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto it = states_.find(uri);
  return it == states_.end() ? std::string() : it->second->failure;
}

std::vector<ResultPtr> Scheduler::latestResults() const {
  std::vector<ResultPtr> out;
  std::lock_guard lock(mutex_);
  for (const auto& [uri, state] : states_)
    if (state->latest) out.push_back(state->latest);
  return out;
}

void Scheduler::post(Pool p, std::function<void()> work) { asio::post(pool(p), std::move(work)); }

}  // namespace ptlint::server

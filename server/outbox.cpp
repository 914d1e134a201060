#include "server/outbox.h"

#include "server/log.h"

namespace ptlint::server {

Outbox::Outbox(Transport& transport) : transport_(transport), writer_([this] { writeLoop(); }) {}

void Outbox::push(Entry entry) {
  if (!entry.key.empty()) {
    auto [it, inserted] = waiting_.try_emplace(entry.key, front_index_ + queue_.size());
    if (!inserted) {  // one is waiting: the newer body takes its place
      queue_[it->second - front_index_].body = std::move(entry.body);
      return;
    }
  }
  if (entry.droppable) {
    if (droppable_bytes_ + entry.body.size() > kDroppableBudget) {
      ++dropped_;
      return;
    }
    droppable_bytes_ += entry.body.size();
  }
  queue_.push_back(std::move(entry));
}

void Outbox::post(std::string body) {
  {
    std::lock_guard lock(mutex_);
    if (closing_) return;
    push(Entry{std::move(body), {}, false});
  }
  ready_.notify_one();
}

void Outbox::postLatest(const std::string& key, std::string body) {
  {
    std::lock_guard lock(mutex_);
    if (closing_) return;
    push(Entry{std::move(body), key, false});
  }
  ready_.notify_one();
}

void Outbox::postDroppable(std::string body) {
  {
    std::lock_guard lock(mutex_);
    if (closing_) return;
    push(Entry{std::move(body), {}, true});
  }
  ready_.notify_one();
}

bool Outbox::publish(const std::string& uri, uint64_t seq, std::string body) {
  {
    std::lock_guard lock(mutex_);
    if (closing_) return false;
    auto [it, inserted] = last_published_.try_emplace(uri, seq);
    if (!inserted) {
      if (seq <= it->second) return false;
      it->second = seq;
    }
    // The key cannot collide with postLatest's keys, which are method names.
    push(Entry{std::move(body), "textDocument/publishDiagnostics " + uri, false});
  }
  ready_.notify_one();
  return true;
}

void Outbox::close() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  ready_.notify_one();
  if (writer_.joinable()) writer_.join();
}

size_t Outbox::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

size_t Outbox::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void Outbox::writeLoop() {
  for (;;) {
    std::string body;
    size_t newly_dropped = 0;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing, and everything is written
      Entry entry = std::move(queue_.front());
      queue_.pop_front();
      ++front_index_;
      if (!entry.key.empty()) waiting_.erase(entry.key);
      if (entry.droppable) droppable_bytes_ -= entry.body.size();
      body = std::move(entry.body);
      if (queue_.empty() && dropped_ > dropped_reported_) {  // the client reads again: say what it missed
        newly_dropped = dropped_ - dropped_reported_;
        dropped_reported_ = dropped_;
      }
    }
    transport_.send(body);  // outside the lock: posting never waits for the client
    if (newly_dropped)
      logToStderr("the client did not read for a while: " + std::to_string(newly_dropped) +
                  " log messages were dropped");
  }
}

}  // namespace ptlint::server

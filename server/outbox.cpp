#include "server/outbox.h"

namespace ptlint::server {

Outbox::Outbox(Transport& transport) : transport_(transport), writer_([this] { writeLoop(); }) {}

void Outbox::post(std::string body) {
  {
    std::lock_guard lock(mutex_);
    if (closing_) return;
    queue_.push_back(std::move(body));
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
    queue_.push_back(std::move(body));
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

void Outbox::writeLoop() {
  for (;;) {
    std::string body;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing, and everything is written
      body = std::move(queue_.front());
      queue_.pop_front();
    }
    transport_.send(body);  // outside the lock: posting never waits for the client
  }
}

}  // namespace ptlint::server

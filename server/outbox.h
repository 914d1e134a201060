// Everything the server writes goes through one Outbox: handlers and workers hand it finished
// message bodies and return at once; one writer thread frames and writes them, in the order
// they were posted. So no server lock is ever held across I/O, and a client that is slow to read
// stalls nobody but the writer.
//
// Diagnostics carry a sequence number taken under the scheduler's lock: `publish` drops a
// message for a document when one with a higher number was already posted, so a result that
// lost a race to the outbox can never overwrite a newer one (nor the empty list of a didClose).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "server/transport.h"

namespace ptlint::server {

class Outbox {
 public:
  explicit Outbox(Transport& transport);
  ~Outbox() { close(); }
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  // Queues one message body. Thread-safe; never blocks on I/O.
  void post(std::string body);
  // Queues diagnostics for `uri` numbered `seq`, unless a higher `seq` for `uri` was posted
  // already (then it is dropped; returns false).
  bool publish(const std::string& uri, uint64_t seq, std::string body);
  // Writes what is queued, then stops the writer. Later posts are dropped. Idempotent.
  void close();

 private:
  void writeLoop();

  Transport& transport_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> queue_;
  std::map<std::string, uint64_t> last_published_;
  bool closing_ = false;
  std::thread writer_;
};

}  // namespace ptlint::server

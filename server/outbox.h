// Everything the server writes goes through one Outbox: handlers and workers hand it finished
// message bodies and return at once; one writer thread frames and writes them, in the order
// they were posted. So no server lock is ever held across I/O, and a client that is slow to read
// stalls nobody but the writer.
//
// Diagnostics carry a sequence number taken under the scheduler's lock: `publish` drops a
// message for a document when one with a higher number was already posted, so a result that
// lost a race to the outbox can never overwrite a newer one (nor the empty list of a didClose).
//
// Bounded when the client stops reading: only the newest of the messages that supersede each
// other waits to be written (a document's diagnostics, a progress report of one token, a
// refresh request), in the place of the first; log and show messages past a budget are dropped
// (and counted on stderr). What must arrive is always kept: responses (one per request the
// client sent, so as many as it chose to send) and the server's other requests and
// notifications. Posting never blocks, so nothing can deadlock on a client that does not read.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "server/transport.h"

namespace ptlint::server {

class Outbox {
 public:
  // Bytes of droppable messages (log and show messages) allowed to wait.
  static constexpr size_t kDroppableBudget = 4u << 20;

  explicit Outbox(Transport& transport);
  ~Outbox() { close(); }
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  // Queues one message body that must be written. Thread-safe; never blocks on I/O.
  void post(std::string body);
  // Queues a message that the next one with the same `key` supersedes: while it waits, a newer
  // one takes its place (and its place in the order).
  void postLatest(const std::string& key, std::string body);
  // Queues a message that may be dropped when too many wait (log and show messages).
  void postDroppable(std::string body);
  // Queues diagnostics for `uri` numbered `seq`, unless a higher `seq` for `uri` was posted
  // already (then it is dropped; returns false). A queued, unwritten publication for `uri` is
  // replaced.
  bool publish(const std::string& uri, uint64_t seq, std::string body);
  // Writes what is queued, then stops the writer. Later posts are dropped. Idempotent.
  void close();

  // For tests: messages waiting to be written, and droppable ones dropped so far.
  size_t queued() const;
  size_t dropped() const;

 private:
  struct Entry {
    std::string body;
    std::string key;  // empty: not superseded by anything
    bool droppable = false;
  };
  void push(Entry entry);  // under mutex_
  void writeLoop();

  Transport& transport_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Entry> queue_;
  uint64_t front_index_ = 0;  // the number of entries ever taken from the front of queue_
  std::unordered_map<std::string, uint64_t> waiting_;  // key -> absolute index of its queued entry
  size_t droppable_bytes_ = 0;
  size_t dropped_ = 0, dropped_reported_ = 0;
  std::map<std::string, uint64_t> last_published_;
  bool closing_ = false;
  std::thread writer_;
};

}  // namespace ptlint::server

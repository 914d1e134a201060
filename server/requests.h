// Requests in flight: the one answer each client request gets, the typed reply handles the
// handlers receive, and work-done progress. Thread-safe: any thread may answer.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "server/outbox.h"
#include "server/protocol.h"

namespace ptlint::server {

// The one serialisation of outgoing messages (invalid UTF-8 is replaced, never thrown on).
std::string serializeMessage(const json& message);
// `params` is moved into the message (a file's diagnostics are large: no copy of their JSON).
json notificationMessage(const std::string& method, json params);

// A request awaiting its one response. Whoever answers first wins (the handler, a cancellation,
// an error); later answers are dropped. A request dropped unanswered answers InternalError, so
// every request gets exactly one response.
class PendingRequest {
 public:
  PendingRequest(Outbox& outbox, json id, std::function<void()> on_done)
      : outbox_(outbox), id_(std::move(id)), on_done_(std::move(on_done)) {}
  ~PendingRequest() { fail(ErrorCode::InternalError, "the request was dropped without an answer"); }
  PendingRequest(const PendingRequest&) = delete;
  PendingRequest& operator=(const PendingRequest&) = delete;

  bool reply(const json& result);
  bool fail(ErrorCode code, const std::string& message);
  void cancel();
  // Set before the handler runs: rewrites the result (a request on a notebook cell).
  void mapResult(std::function<json(json)> map) { map_result_ = std::move(map); }
  bool cancelled() const { return cancelled_ || done_; }
  const json& id() const { return id_; }
  // The key requests are tracked by (cancellation, progress tokens).
  std::string key() const { return id_.dump(); }

 private:
  bool finish(const json& message);

  Outbox& outbox_;
  json id_;
  std::function<void()> on_done_;
  std::function<json(json)> map_result_;
  std::atomic<bool> done_{false};
  std::atomic<bool> cancelled_{false};
};
using RequestPtr = std::shared_ptr<PendingRequest>;

// Typed reply handle given to handlers (copies share the request).
template <typename T>
class Reply {
 public:
  explicit Reply(RequestPtr request) : request_(std::move(request)) {}
  void operator()(const T& value) const { request_->reply(json(value)); }
  void fail(ErrorCode code, const std::string& message) const { request_->fail(code, message); }
  bool cancelled() const { return request_->cancelled(); }
  std::string key() const { return request_->key(); }

 private:
  RequestPtr request_;
};

// Runs `body`, answering the request with an error if it throws (so nothing escapes a worker).
template <typename T, typename Body>
void answerErrors(const Reply<T>& reply, Body&& body) {
  try {
    body();
  } catch (const LspError& e) {
    reply.fail(e.code, e.what());
  } catch (const std::bad_alloc&) {
    // The answer (a large document's diagnostics, say) did not fit the memory left.
    reply.fail(ErrorCode::InternalError, "Internal error: out of memory");
  } catch (const std::exception& e) {
    reply.fail(ErrorCode::InternalError, std::string("Internal error: ") + e.what());
  }
}

// Work-done progress for a client-supplied token: at most one begin and, once begun, exactly one
// end. Dropping it unended (the work was cancelled, skipped or threw) ends it as "cancelled".
class WorkDoneReporter {
 public:
  using Notify = std::function<void(const json& token, const WorkDoneProgress& value)>;
  WorkDoneReporter(Notify notify, std::optional<json> token) : notify_(std::move(notify)), token_(std::move(token)) {}
  ~WorkDoneReporter() { end("cancelled"); }
  WorkDoneReporter(const WorkDoneReporter&) = delete;
  WorkDoneReporter& operator=(const WorkDoneReporter&) = delete;

  void begin(const std::string& title);
  void report(const std::string& message, int percentage);
  void end(const std::string& message);

 private:
  Notify notify_;
  std::optional<json> token_;
  std::atomic<bool> began_{false}, ended_{false};
};

}  // namespace ptlint::server

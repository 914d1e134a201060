// JSON-RPC dispatch: turns frames into typed handler calls (the binding between JSON and the
// protocol structs of protocol.h), keeps the lifecycle rules of LSP 3.17, the client's requests
// in flight (cancellation, progress tokens) and the server's own requests to the client.
//
// Threads: `onFrame` runs on the I/O thread and calls handlers there, in arrival order. Sending,
// cancelling and answering are thread-safe; no lock is held while a handler or a response
// callback runs or while a message is posted.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "server/outbox.h"
#include "server/protocol.h"
#include "server/requests.h"
#include "server/transport.h"

namespace ptlint::server {

class Dispatcher {
 public:
  using RequestHandler = std::function<void(const json& params, RequestPtr)>;
  using NotificationHandler = std::function<void(const json& params)>;

  // What the server adds to plain dispatch.
  struct Hooks {
    // A request on a notebook cell: the params to dispatch instead and the map of its result
    // (nullopt: not a cell).
    std::function<std::optional<std::pair<json, std::function<json(json)>>>(const std::string& method,
                                                                             const json& params)>
        cell_request;
    // A didChange that could not be read at all (`body`: the raw frame).
    std::function<void(std::string_view body)> unreadable_change;
    // A didChange whose handler threw (`uri`: the document it names, empty when none).
    std::function<void(const std::string& uri, const std::string& why)> failed_change;
    // `exit`.
    std::function<void()> exit;
  };

  explicit Dispatcher(Outbox& outbox) : outbox_(outbox) {}
  void setHooks(Hooks hooks) { hooks_ = std::move(hooks); }

  template <typename Params, typename Result, typename Handler>
  void bindRequest(const std::string& method, Handler handler) {
    requests_[method] = [handler = std::move(handler)](const json& params, RequestPtr request) {
      handler(parseParams<Params>(params), Reply<Result>(std::move(request)));
    };
  }
  template <typename Params, typename Handler>
  void bindNotification(const std::string& method, Handler handler) {
    notifications_[method] = [handler = std::move(handler)](const json& params) {
      handler(parseParams<Params>(params));
    };
  }
  template <typename Params>
  static Params parseParams(const json& params) {
    try {
      return params.get<Params>();
    } catch (const json::exception& e) {
      throw LspError(ErrorCode::InvalidParams, e.what());
    }
  }

  // One frame from the transport (I/O thread).
  void onFrame(FrameParser::Event event);

  // Lifecycle: requests other than `initialize` fail before it; every request fails after
  // `shutdown`.
  void markInitialized() { initialized_ = true; }
  bool initialized() const { return initialized_; }
  void markShutdown() { shutdown_requested_ = true; }
  bool shutdownRequested() const { return shutdown_requested_; }

  // Sending (any thread).
  void send(const json& message) { outbox_.post(serializeMessage(message)); }
  // Progress reports and log messages may be superseded or dropped while the client does not
  // read (see Outbox); everything else is sent.
  void notify(const std::string& method, const json& params);
  void sendError(const json& id, ErrorCode code, const std::string& message);
  // Server -> client request; `on_result` runs on the I/O thread with the result (null on error).
  // `workspace/diagnostic/refresh` is idempotent: one waiting to be written stands for later ones
  // (their `on_result` is not called).
  void request(const std::string& method, const json& params, std::function<void(const json&)> on_result = {});
  void showMessage(MessageType type, const std::string& message) {
    notify("window/showMessage", LogMessageParams{type, message});
  }
  void logMessage(MessageType type, const std::string& message) {
    notify("window/logMessage", LogMessageParams{type, message});
  }

  // `window/workDoneProgress/cancel` with `token` cancels the request `request_key`.
  void trackProgress(const json& token, const std::string& request_key);
  void cancel(const std::string& request_key);

 private:
  void onRequest(const json& id, const std::string& method, const json& params);
  void onNotification(const std::string& method, const json& params);
  void onResponse(const json& message);

  Outbox& outbox_;
  Hooks hooks_;
  std::map<std::string, RequestHandler> requests_;            // written before run()
  std::map<std::string, NotificationHandler> notifications_;  // written before run()
  std::atomic<bool> initialized_{false}, shutdown_requested_{false};

  std::mutex pending_mutex_;
  std::map<std::string, std::weak_ptr<PendingRequest>> pending_;  // by id.dump()
  std::map<std::string, std::string> progress_tokens_;            // token.dump() -> request key

  std::mutex outgoing_mutex_;
  int next_outgoing_id_ = 1;
  std::map<int, std::function<void(const json&)>> outgoing_;
};

}  // namespace ptlint::server

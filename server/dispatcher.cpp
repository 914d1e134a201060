#include "server/dispatcher.h"

#include "server/json_text.h"
#include "server/log.h"

namespace ptlint::server {
namespace {

// Real LSP messages nest about ten deep; see jsonNestingDepth.
constexpr size_t kMaxJsonDepth = 512;

}  // namespace

void Dispatcher::sendError(const json& id, ErrorCode code, const std::string& message) {
  send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", static_cast<int>(code)}, {"message", message}}}});
}

void Dispatcher::notify(const std::string& method, const json& params) {
  if (method == "window/logMessage" || method == "window/showMessage") {
    outbox_.postDroppable(serializeMessage(notificationMessage(method, params)));
  } else if (method == "$/progress" && params.is_object() && params.contains("token") &&
             params.contains("value") && params["value"].is_object() && params["value"].value("kind", "") == "report") {
    outbox_.postLatest("$/progress " + params["token"].dump(), serializeMessage(notificationMessage(method, params)));
  } else {
    send(notificationMessage(method, params));
  }
}

void Dispatcher::request(const std::string& method, const json& params, std::function<void(const json&)> on_result) {
  if (method == "workspace/diagnostic/refresh") {  // no answer is awaited: none can pile up
    int id;
    {
      std::lock_guard lock(outgoing_mutex_);
      id = next_outgoing_id_++;
    }
    outbox_.postLatest(method, serializeMessage({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}));
    return;
  }
  int id;
  {
    std::lock_guard lock(outgoing_mutex_);
    id = next_outgoing_id_++;
    if (on_result) outgoing_[id] = std::move(on_result);
  }
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
}

void Dispatcher::trackProgress(const json& token, const std::string& request_key) {
  std::lock_guard lock(pending_mutex_);
  progress_tokens_[token.dump()] = request_key;
}

void Dispatcher::cancel(const std::string& key) {
  RequestPtr request;
  {
    std::lock_guard lock(pending_mutex_);
    auto it = pending_.find(key);
    if (it != pending_.end()) request = it->second.lock();
  }
  if (request) request->cancel();  // answers with no lock held
}

void Dispatcher::onFrame(FrameParser::Event event) {
  if (!event.ok) {
    sendError(nullptr, ErrorCode::ParseError, "Parse error: " + event.error);
    return;
  }
  if (jsonNestingDepth(event.body) > kMaxJsonDepth) {
    sendError(nullptr, ErrorCode::InvalidRequest,
              "Invalid request: JSON nested deeper than " + std::to_string(kMaxJsonDepth));
    return;
  }
  // A lone surrogate escape reads as U+FFFD (as JavaScript reads it) rather than losing the
  // whole message: a dropped didChange would leave the document out of sync.
  replaceLoneSurrogateEscapes(event.body);
  json message = json::parse(event.body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    if (event.body.find("\"textDocument/didChange\"") != std::string::npos && hooks_.unreadable_change)
      hooks_.unreadable_change(event.body);
    sendError(nullptr, ErrorCode::ParseError, "Parse error: the message is not valid JSON");
    return;
  }
  if (!message.is_object()) {
    sendError(nullptr, ErrorCode::InvalidRequest, "Invalid request: a message must be a JSON object");
    return;
  }
  auto id = message.find("id");
  bool has_id = id != message.end();
  if (has_id && !id->is_string() && !id->is_number_integer() && !id->is_null()) {
    sendError(nullptr, ErrorCode::InvalidRequest, "Invalid request: bad id");
    return;
  }
  auto method = message.find("method");
  if (method == message.end()) {
    if (has_id && (message.contains("result") || message.contains("error"))) onResponse(message);
    else sendError(has_id ? *id : json(nullptr), ErrorCode::InvalidRequest, "Invalid request: no method");
    return;
  }
  if (!method->is_string()) {
    sendError(has_id ? *id : json(nullptr), ErrorCode::InvalidRequest, "Invalid request: method is not a string");
    return;
  }
  json params = message.value("params", json::object());
  if (has_id) onRequest(*id, method->get<std::string>(), params);
  else onNotification(method->get<std::string>(), params);
}

void Dispatcher::onRequest(const json& id, const std::string& method, const json& params) {
  std::string key = id.dump();
  auto request = std::make_shared<PendingRequest>(outbox_, id, [this, key] {
    std::lock_guard lock(pending_mutex_);
    pending_.erase(key);
  });
  {
    std::lock_guard lock(pending_mutex_);
    pending_[key] = request;
  }
  if (!initialized_ && method != "initialize") {
    request->fail(ErrorCode::ServerNotInitialized, "Server not initialized");
    return;
  }
  if (shutdown_requested_) {
    request->fail(ErrorCode::InvalidRequest, "Server is shutting down");
    return;
  }
  auto handler = requests_.find(method);
  if (handler == requests_.end()) {
    request->fail(ErrorCode::MethodNotFound, "Method not found: " + method);
    return;
  }
  try {
    if (hooks_.cell_request) {
      if (auto cell = hooks_.cell_request(method, params)) {
        request->mapResult(std::move(cell->second));
        handler->second(cell->first, request);
        return;
      }
    }
    handler->second(params, request);
  } catch (const LspError& e) {
    request->fail(e.code, e.what());
  } catch (const std::bad_alloc&) {
    // A document too large for the memory left: this request fails, the server goes on.
    request->fail(ErrorCode::InternalError, "Internal error: out of memory handling " + method);
  } catch (const std::exception& e) {
    request->fail(ErrorCode::InternalError, std::string("Internal error: ") + e.what());
  }
}

void Dispatcher::onNotification(const std::string& method, const json& params) {
  if (method == "exit") {
    if (hooks_.exit) hooks_.exit();
    return;
  }
  if (method == "$/cancelRequest") {
    if (params.is_object() && params.contains("id")) cancel(params["id"].dump());
    return;
  }
  if (method == "window/workDoneProgress/cancel") {
    if (params.is_object() && params.contains("token")) {
      std::string request_key;
      {
        std::lock_guard lock(pending_mutex_);
        auto it = progress_tokens_.find(params["token"].dump());
        if (it != progress_tokens_.end()) request_key = it->second;
      }
      if (!request_key.empty()) cancel(request_key);
    }
    return;
  }
  if (!initialized_) return;  // notifications before initialize are dropped (LSP 3.17)
  auto handler = notifications_.find(method);
  if (handler == notifications_.end()) {
    if (!method.starts_with("$/")) logToStderr("ignoring unknown notification " + method);
    return;
  }
  try {
    handler->second(params);
  } catch (const std::exception& e) {
    // A notification has no response: report and keep serving.
    logToStderr("error handling " + method + ": " + e.what());
    logMessage(MessageType::Error, "ptlint: error handling " + method + ": " + e.what());
    if (method == "textDocument/didChange" && hooks_.failed_change) {
      const json* uri = params.is_object() && params.contains("textDocument") && params["textDocument"].is_object() &&
                                params["textDocument"].contains("uri")
                            ? &params["textDocument"]["uri"]
                            : nullptr;
      hooks_.failed_change(uri && uri->is_string() ? uri->get<std::string>() : std::string(), e.what());
    }
  }
}

void Dispatcher::onResponse(const json& message) {
  const json& id = message["id"];
  if (!id.is_number_integer()) return;
  std::function<void(const json&)> callback;
  {
    std::lock_guard lock(outgoing_mutex_);
    auto it = outgoing_.find(id.get<int>());
    if (it == outgoing_.end()) return;
    callback = std::move(it->second);
    outgoing_.erase(it);
  }
  try {
    callback(message.contains("result") ? message["result"] : json(nullptr));
  } catch (const std::exception& e) {
    logToStderr(std::string("error handling a response: ") + e.what());
  }
}

}  // namespace ptlint::server

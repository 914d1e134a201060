#include "server/requests.h"

namespace ptlint::server {

std::string serializeMessage(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

json notificationMessage(const std::string& method, json params) {
  json message = {{"jsonrpc", "2.0"}, {"method", method}};
  message["params"] = std::move(params);
  return message;
}

bool PendingRequest::reply(const json& result) {
  return finish({{"jsonrpc", "2.0"}, {"id", id_}, {"result", map_result_ ? map_result_(result) : result}});
}

bool PendingRequest::fail(ErrorCode code, const std::string& message) {
  return finish(
      {{"jsonrpc", "2.0"}, {"id", id_}, {"error", {{"code", static_cast<int>(code)}, {"message", message}}}});
}

void PendingRequest::cancel() {
  cancelled_ = true;
  fail(ErrorCode::RequestCancelled, "the request was cancelled");
}

bool PendingRequest::finish(const json& message) {
  if (done_.exchange(true)) return false;
  outbox_.post(serializeMessage(message));
  if (on_done_) on_done_();
  return true;
}

void WorkDoneReporter::begin(const std::string& title) {
  if (!token_ || began_.exchange(true)) return;
  notify_(*token_, {"begin", title, "", 0, true});
}

void WorkDoneReporter::report(const std::string& message, int percentage) {
  if (began_ && !ended_) notify_(*token_, {"report", "", message, percentage, true});
}

void WorkDoneReporter::end(const std::string& message) {
  if (!began_ || ended_.exchange(true)) return;
  notify_(*token_, {"end", "", message, std::nullopt, false});
}

}  // namespace ptlint::server

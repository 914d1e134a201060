// The server: a dispatcher that turns JSON-RPC messages into typed handler calls (the only JSON
// here is in that binding layer), the handlers, and the analysis scheduler.
//
// Threads: the I/O thread reads frames and runs every handler in arrival order, so document
// changes apply in order and cheap requests answer at once. Parsing and linting run on a small
// worker pool. Each open document has at most one analysis in flight; edits that arrive
// meanwhile mark it dirty, and its result is dropped in favour of a fresh run on the newest text
// (newest version wins). Results are published under the analysis lock after checking that no
// newer edit exists, so published versions never go backwards and nothing stale is shown.
#include "server/lsp_server.h"

#include <asio/post.hpp>
#include <fmt/format.h>
#include <asio/thread_pool.hpp>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "analysis/noqa.h"
#include "ptlint/version.h"
#include "quickfix/fix_loop.h"
#include "rules/linter.h"
#include "rules/registry.h"
#include "rules/selectors.h"
#include "server/document_store.h"
#include "server/json_text.h"
#include "server/notebook_documents.h"
#include "server/outbox.h"
#include "server/protocol.h"
#include "server/transport.h"
#include "workspace/config.h"
#include "workspace/walk.h"

#ifdef PTLINT_SERVER_WITH_GPU_CHECK
#include "gpu_check/client.h"
#endif

namespace ptlint::server {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFixAllKind = "source.fixAll.ptlint";
constexpr std::string_view kApplyFixAllCommand = "ptlint.applyFixAll";

// One write(2) per line: safe from any thread (std::cerr is not, once unsynchronised from stdio).
void logToStderr(std::string_view message) {
  std::string line = "ptlint-lsp: ";
  line.append(message);
  line += '\n';
  for (size_t done = 0; done < line.size();) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// --- Requests in flight -------------------------------------------------------------------------

// A request awaiting its one response. Whoever answers first wins (the handler, a cancellation,
// an error); later answers are dropped. A request dropped unanswered answers InternalError, so
// every request gets exactly one response.
class PendingRequest {
 public:
  PendingRequest(Outbox& outbox, json id, std::function<void()> on_done)
      : outbox_(outbox), id_(std::move(id)), on_done_(std::move(on_done)) {}
  ~PendingRequest() { fail(ErrorCode::InternalError, "the request was dropped without an answer"); }

  bool reply(const json& result) {
    return finish({{"jsonrpc", "2.0"}, {"id", id_}, {"result", map_result_ ? map_result_(result) : result}});
  }
  // Set before the handler runs: rewrites the result (a request on a notebook cell).
  void mapResult(std::function<json(json)> map) { map_result_ = std::move(map); }
  bool fail(ErrorCode code, const std::string& message) {
    return finish({{"jsonrpc", "2.0"}, {"id", id_}, {"error", {{"code", static_cast<int>(code)}, {"message", message}}}});
  }
  void cancel() {
    cancelled_ = true;
    fail(ErrorCode::RequestCancelled, "the request was cancelled");
  }
  bool cancelled() const { return cancelled_ || done_; }
  const json& id() const { return id_; }

 private:
  bool finish(const json& message) {
    if (done_.exchange(true)) return false;
    outbox_.post(message.dump(-1, ' ', false, json::error_handler_t::replace));
    if (on_done_) on_done_();
    return true;
  }

  Outbox& outbox_;
  json id_;
  std::function<void()> on_done_;
  std::function<json(json)> map_result_;
  std::atomic<bool> done_{false};
  std::atomic<bool> cancelled_{false};
};
using RequestPtr = std::shared_ptr<PendingRequest>;

// Typed reply handle given to handlers.
template <typename T>
class Reply {
 public:
  explicit Reply(RequestPtr request) : request_(std::move(request)) {}
  void operator()(const T& value) const { request_->reply(json(value)); }
  void fail(ErrorCode code, const std::string& message) const { request_->fail(code, message); }
  bool cancelled() const { return request_->cancelled(); }

 private:
  RequestPtr request_;
};

// Work-done progress for a client-supplied token: at most one begin and, once begun, exactly one
// end. Dropping it unended (the work was cancelled, skipped or threw) ends it as "cancelled".
class WorkDoneReporter {
 public:
  using Notify = std::function<void(const json& token, const WorkDoneProgress& value)>;
  WorkDoneReporter(Notify notify, std::optional<json> token) : notify_(std::move(notify)), token_(std::move(token)) {}
  ~WorkDoneReporter() { end("cancelled"); }
  WorkDoneReporter(const WorkDoneReporter&) = delete;
  WorkDoneReporter& operator=(const WorkDoneReporter&) = delete;

  void begin(const std::string& title) {
    if (!token_ || began_.exchange(true)) return;
    notify_(*token_, {"begin", title, "", 0, true});
  }
  void report(const std::string& message, int percentage) {
    if (began_ && !ended_) notify_(*token_, {"report", "", message, percentage, true});
  }
  void end(const std::string& message) {
    if (!began_ || ended_.exchange(true)) return;
    notify_(*token_, {"end", "", message, std::nullopt, false});
  }

 private:
  Notify notify_;
  std::optional<json> token_;
  std::atomic<bool> began_{false}, ended_{false};
};

// --- Analysis results ---------------------------------------------------------------------------

struct AnalysisResult {
  std::shared_ptr<const DocumentSnapshot> snapshot;
  rules::Settings settings;
  rules::LintResult lint;
  std::vector<Diagnostic> diagnostics;  // LSP form, parallel to lint.diagnostics
  uint64_t generation = 0;              // settings generation it was computed under

  std::string resultId() const { return std::to_string(snapshot->revision) + "." + std::to_string(generation); }
};
using ResultPtr = std::shared_ptr<const AnalysisResult>;

// Per open document: the scheduler's state.
struct DocState {
  bool scheduled = false;  // an analysis job is queued or running
  bool dirty = false;      // something changed since that job took its snapshot
  bool closed = false;
  std::optional<int> published_version;
  ResultPtr latest;
  std::vector<std::function<void(ResultPtr)>> waiters;  // run with the next fresh result
};

DiagnosticSeverity toLspSeverity(rules::Severity severity) {
  switch (severity) {
    case rules::Severity::Error: return DiagnosticSeverity::Error;
    case rules::Severity::Warning: return DiagnosticSeverity::Warning;
    case rules::Severity::Information: return DiagnosticSeverity::Information;
    case rules::Severity::Hint: return DiagnosticSeverity::Hint;
  }
  return DiagnosticSeverity::Warning;
}

const rules::RuleMeta* findMeta(std::string_view code) { return rules::findMeta(code); }

// Byte range -> LSP range in one document.
Range toRange(std::string_view text, const LineTable& lines, uint32_t start, uint32_t end, PositionEncoding encoding) {
  return {toPosition(text, lines, start, encoding), toPosition(text, lines, end, encoding)};
}

std::string withLineEnding(std::string_view content, std::string_view line_ending) {
  if (line_ending == "\n") return std::string(content);
  std::string out;
  for (char c : content) {
    if (c == '\n') out += line_ending;
    else out += c;
  }
  return out;
}

std::vector<TextEdit> toTextEdits(std::string_view text, const LineTable& lines, const std::vector<quickfix::Edit>& edits,
                                  PositionEncoding encoding) {
  std::string_view line_ending = quickfix::detectLineEnding(text);
  std::vector<TextEdit> out;
  for (const auto& e : edits)
    out.push_back({toRange(text, lines, e.start, e.end, encoding), withLineEnding(e.content, line_ending)});
  return out;
}

Diagnostic toLspDiagnostic(const rules::Diagnostic& d, const DocumentSnapshot& snap, PositionEncoding encoding, bool related) {
  Diagnostic out;
  std::string_view text = snap.text();
  out.range = toRange(text, snap.lines, d.start, d.end, encoding);
  out.severity = toLspSeverity(d.severity);
  out.code = std::string(d.code);
  out.codeDescriptionHref = rules::ruleDocsUrl(d.code);
  out.message = d.message;
  const rules::RuleMeta* meta = findMeta(d.code);
  if ((meta && meta->deprecated_tag) || d.code.starts_with("PTL1")) out.tags.push_back(DiagnosticTag::Deprecated);
  if (related)
    for (const auto& r : d.related)
      out.relatedInformation.push_back({{snap.uri, toRange(text, snap.lines, r.start, r.end, encoding)}, r.message});
  if (d.fix)
    out.fix = DiagnosticFixData{std::string(quickfix::applicabilityName(d.fix->applicability)), d.fix->message,
                                toTextEdits(text, snap.lines, d.fix->edits, encoding)};
  return out;
}

// The smallest single edit turning `before` into `after`, never splitting a UTF-8 sequence or a
// "\r\n" pair (so that its positions exist in every encoding).
quickfix::Edit minimalEdit(std::string_view before, std::string_view after) {
  size_t prefix = 0, max_prefix = std::min(before.size(), after.size());
  while (prefix < max_prefix && before[prefix] == after[prefix]) ++prefix;
  auto unsafeCut = [](std::string_view s, size_t at) {
    if (at == 0 || at >= s.size()) return false;
    return (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80 || (s[at - 1] == '\r' && s[at] == '\n');
  };
  while (prefix > 0 && (unsafeCut(before, prefix) || unsafeCut(after, prefix))) --prefix;
  size_t suffix = 0, max_suffix = std::min(before.size(), after.size()) - prefix;
  while (suffix < max_suffix && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) ++suffix;
  while (suffix > 0 && (unsafeCut(before, before.size() - suffix) || unsafeCut(after, after.size() - suffix))) --suffix;
  return {static_cast<uint32_t>(prefix), static_cast<uint32_t>(before.size() - suffix),
          std::string(after.substr(prefix, after.size() - suffix - prefix))};
}

bool kindRequested(const std::optional<std::vector<std::string>>& only, std::string_view kind) {
  if (!only) return true;
  for (const auto& k : *only)
    if (kind == k || (kind.size() > k.size() && kind.starts_with(k) && kind[k.size()] == '.')) return true;
  return false;
}

bool isConfigFile(const fs::path& path) {
  auto name = path.filename().string();
  return name == "ptlint.toml" || name == ".ptlint.toml" || name == "pyproject.toml";
}

std::optional<std::string> readWholeFile(const fs::path& path) {
  // Only regular files of sane size: a FIFO would block forever and /dev/zero never ends.
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || ec || fs::file_size(path, ec) > kMaxMessageBytes || ec) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  std::string text = out.str();
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return text;
}

// Real LSP messages nest about ten deep; see jsonNestingDepth.
constexpr size_t kMaxJsonDepth = 512;

// --- The server ---------------------------------------------------------------------------------

class LspServer {
 public:
  explicit LspServer(Transport& transport)
      : transport_(transport),
        outbox_(transport),
        workers_(std::max(2u, std::min(4u, std::thread::hardware_concurrency()))),
        heavy_(2) {
    bindHandlers();
  }
  ~LspServer() {
    shutting_down_ = true;
    workers_.join();
    heavy_.join();
    {
      std::unique_lock lock(gpu_mutex_);
      std::thread gpu = std::move(gpu_thread_);
      lock.unlock();
      if (gpu.joinable()) gpu.join();
    }
    std::map<std::string, std::shared_ptr<DocState>> states;
    {
      std::lock_guard lock(analysis_mutex_);
      states.swap(analysis_);
    }
    // Requests still waiting for an analysis are answered (InternalError, as their last handle
    // goes) with no lock held, before the outbox writes its last messages.
    states.clear();
    outbox_.close();
  }

  int run() {
    transport_.run([this](FrameParser::Event event) { onFrame(std::move(event)); });
    shutting_down_ = true;
    return shutdown_requested_ ? 0 : 1;
  }

 private:
  using RequestHandler = std::function<void(const json& params, RequestPtr)>;
  using NotificationHandler = std::function<void(const json& params)>;

  // --- Binding: JSON <-> typed handlers ---------------------------------------------------------

  template <typename Params, typename Result>
  void bindRequest(const std::string& method, void (LspServer::*handler)(const Params&, Reply<Result>)) {
    requests_[method] = [this, handler](const json& params, RequestPtr request) {
      Params typed = parseParams<Params>(params);
      (this->*handler)(typed, Reply<Result>(std::move(request)));
    };
  }
  template <typename Params>
  void bindNotification(const std::string& method, void (LspServer::*handler)(const Params&)) {
    notifications_[method] = [this, handler](const json& params) { (this->*handler)(parseParams<Params>(params)); };
  }
  template <typename Params>
  static Params parseParams(const json& params) {
    try {
      return params.get<Params>();
    } catch (const json::exception& e) {
      throw LspError(ErrorCode::InvalidParams, e.what());
    }
  }

  void bindHandlers() {
    bindRequest("initialize", &LspServer::onInitialize);
    bindRequest("shutdown", &LspServer::onShutdown);
    bindRequest("textDocument/codeAction", &LspServer::onCodeAction);
    bindRequest("textDocument/hover", &LspServer::onHover);
    bindRequest("textDocument/diagnostic", &LspServer::onDocumentDiagnostic);
    bindRequest("workspace/diagnostic", &LspServer::onWorkspaceDiagnostic);
    bindRequest("workspace/executeCommand", &LspServer::onExecuteCommand);
    bindRequest("ptlint/debugDocument", &LspServer::onDebugDocument);
    bindNotification("initialized", &LspServer::onInitialized);
    bindNotification("textDocument/didOpen", &LspServer::onDidOpen);
    bindNotification("textDocument/didChange", &LspServer::onDidChange);
    bindNotification("textDocument/didSave", &LspServer::onDidSave);
    bindNotification("textDocument/didClose", &LspServer::onDidClose);
    bindNotification("notebookDocument/didOpen", &LspServer::onNotebookDidOpen);
    bindNotification("notebookDocument/didChange", &LspServer::onNotebookDidChange);
    bindNotification("notebookDocument/didSave", &LspServer::onNotebookDidSave);
    bindNotification("notebookDocument/didClose", &LspServer::onNotebookDidClose);
    bindNotification("workspace/didChangeConfiguration", &LspServer::onDidChangeConfiguration);
    bindNotification("workspace/didChangeWatchedFiles", &LspServer::onDidChangeWatchedFiles);
    bindNotification("workspace/didChangeWorkspaceFolders", &LspServer::onDidChangeWorkspaceFolders);
  }

  // --- Dispatch -------------------------------------------------------------------------------

  static std::string serialize(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }
  void send(const json& message) { outbox_.post(serialize(message)); }

  void sendError(const json& id, ErrorCode code, const std::string& message) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", static_cast<int>(code)}, {"message", message}}}});
  }

  void notify(const std::string& method, const json& params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
  }

  // Server -> client request; `on_result` runs on the I/O thread with the result (null on error).
  void request(const std::string& method, const json& params, std::function<void(const json&)> on_result = {}) {
    int id;
    {
      std::lock_guard lock(outgoing_mutex_);
      id = next_outgoing_id_++;
      if (on_result) outgoing_[id] = std::move(on_result);
    }
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  }

  void logMessage(MessageType type, const std::string& message) {
    notify("window/logMessage", LogMessageParams{type, message});
  }

  void onFrame(FrameParser::Event event) {
    if (!event.ok) {
      sendError(nullptr, ErrorCode::ParseError, "Parse error: " + event.error);
      return;
    }
    if (jsonNestingDepth(event.body) > kMaxJsonDepth) {
      sendError(nullptr, ErrorCode::InvalidRequest, "Invalid request: JSON nested deeper than " + std::to_string(kMaxJsonDepth));
      return;
    }
    // A lone surrogate escape reads as U+FFFD (as JavaScript reads it) rather than losing the
    // whole message: a dropped didChange would leave the document out of sync.
    replaceLoneSurrogateEscapes(event.body);
    json message = json::parse(event.body, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded()) {
      if (event.body.find("\"textDocument/didChange\"") != std::string::npos) lostChange(event.body);
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

  void onRequest(const json& id, const std::string& method, const json& params) {
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
    current_request_key_ = key;
    try {
      if (auto cell = notebooks_.forCell(method, params)) {
        request->mapResult(std::move(cell->map_result));
        handler->second(cell->params, request);
        return;
      }
      handler->second(params, request);
    } catch (const LspError& e) {
      request->fail(e.code, e.what());
    } catch (const std::exception& e) {
      request->fail(ErrorCode::InternalError, std::string("Internal error: ") + e.what());
    }
  }

  void onNotification(const std::string& method, const json& params) {
    if (method == "exit") {
      transport_.stop();
      return;
    }
    if (method == "$/cancelRequest") {
      if (params.is_object() && params.contains("id")) cancelRequest(params["id"].dump());
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
        if (!request_key.empty()) cancelRequest(request_key);
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
      if (method == "textDocument/didChange") {
        const json* uri = params.is_object() && params.contains("textDocument") && params["textDocument"].is_object() &&
                                  params["textDocument"].contains("uri")
                              ? &params["textDocument"]["uri"]
                              : nullptr;
        if (uri && uri->is_string()) markOutOfSync(uri->get<std::string>(), e.what());
        else for (const auto& open : docs_.openUris()) markOutOfSync(open, "a didChange without a document");
      }
    }
  }

  // A didChange that is not valid JSON: the document it was for (every open one when its URI
  // cannot be found in the text) is out of sync from now on.
  void lostChange(std::string_view body) {
    if (auto uri = findStringMember(body, "uri")) {
      if (docs_.isOpen(*uri)) {
        markOutOfSync(*uri, "a didChange that is not valid JSON");
        return;
      }
    }
    for (const auto& uri : docs_.openUris()) markOutOfSync(uri, "a didChange that is not valid JSON");
  }

  void onResponse(const json& message) {
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

  void cancelRequest(const std::string& key) {
    RequestPtr request;
    {
      std::lock_guard lock(pending_mutex_);
      auto it = pending_.find(key);
      if (it != pending_.end()) request = it->second.lock();
    }
    if (request) request->cancel();
  }

  // --- Lifecycle --------------------------------------------------------------------------------

  void onInitialize(const InitializeParams& params, Reply<json> reply) {
    if (initialized_) throw LspError(ErrorCode::InvalidRequest, "initialize may only be sent once");
    std::vector<std::string> problems;
    {
      std::lock_guard lock(state_mutex_);
      capabilities_ = params.capabilities;
      auto& encodings = capabilities_.positionEncodings;
      encoding_ = std::find(encodings.begin(), encodings.end(), "utf-8") != encodings.end() ? PositionEncoding::Utf8
                                                                                             : PositionEncoding::Utf16;
      for (const auto& folder : params.workspaceFolders)
        if (auto path = uriToPath(folder.uri)) folders_.push_back({folder.uri, path->lexically_normal()});
      if (folders_.empty() && params.rootUri)
        if (auto path = uriToPath(*params.rootUri)) folders_.push_back({*params.rootUri, path->lexically_normal()});
      const json& options = params.initializationOptions;
      if (!options.is_null()) {
        const json& section = options.is_object() && options.contains("settings") ? options["settings"] : options;
        global_settings_ = section.get<ClientSettings>();
        takeProblems(global_settings_, "initializationOptions", problems);
      }
      rebuildResolversLocked(problems);
    }
    initialized_ = true;
    reportSettingsProblems(problems);
    json sync = {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}};
    json capabilities = {
        {"positionEncoding", encoding_ == PositionEncoding::Utf8 ? "utf-8" : "utf-16"},
        {"textDocumentSync", sync},
        {"notebookDocumentSync",
         {{"notebookSelector", {{{"notebook", {{"notebookType", "jupyter-notebook"}}}, {"cells", {{{"language", "python"}}}}}}},
          {"save", true}}},
        {"codeActionProvider",
         {{"codeActionKinds", {"quickfix", "source.fixAll", std::string(kFixAllKind)}}, {"resolveProvider", false}}},
        {"hoverProvider", true},
        {"executeCommandProvider", {{"commands", {std::string(kApplyFixAllCommand)}}}},
        {"diagnosticProvider", {{"identifier", "ptlint"}, {"interFileDependencies", false}, {"workspaceDiagnostics", true}}},
        {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
    };
    reply(json{{"capabilities", capabilities}, {"serverInfo", {{"name", "ptlint"}, {"version", kVersion}}}});
  }

  void onInitialized(const json&) {
    if (capabilities_.watchedFilesDynamicRegistration) {
      json watchers = json::array();
      for (const char* glob : {"**/ptlint.toml", "**/.ptlint.toml", "**/pyproject.toml"}) watchers.push_back({{"globPattern", glob}});
      request("client/registerCapability",
              {{"registrations",
                {{{"id", "ptlint-config-files"}, {"method", "workspace/didChangeWatchedFiles"}, {"registerOptions", {{"watchers", watchers}}}}}}});
    }
    pullConfiguration();
  }

  void onShutdown(const json&, Reply<json> reply) {
    shutdown_requested_ = true;
    reply(nullptr);
  }

  // --- Settings and configuration ----------------------------------------------------------------

  struct Folder {
    std::string uri;
    fs::path path;
  };

  // An unknown rule selector in the editor settings is named in `problems` and left out.
  static std::optional<std::vector<std::string>> validSelectors(
      const std::optional<std::vector<std::string>>& selectors, const char* setting, std::vector<std::string>* problems) {
    if (!selectors) return selectors;
    std::vector<std::string> valid;
    for (const auto& selector : *selectors) {
      if (auto error = rules::selectorError(selector)) {
        if (problems) problems->push_back(fmt::format("setting `{}`: {}; it was ignored", setting, *error));
      } else {
        valid.push_back(selector);
      }
    }
    return valid;
  }

  // Pure: a bad value is named in `problems` (when given) and left unset, never reported here
  // (callers hold state_mutex_; they report after releasing it).
  static workspace::Overrides overridesFor(const ClientSettings& s, std::vector<std::string>* problems = nullptr) {
    workspace::Overrides o;
    o.select = validSelectors(s.select, "select", problems);
    o.ignore = validSelectors(s.ignore, "ignore", problems);
    o.extend_select = validSelectors(s.extendSelect, "extendSelect", problems);
    o.unsafe_fixes = s.unsafeFixes;
    if (s.torchVersion) {
      o.torch_version = rules::TorchVersion::parse(*s.torchVersion);
      if (!o.torch_version && problems)
        problems->push_back("setting `torchVersion`: `" + s.torchVersion->substr(0, 80) +
                            "` is not a version like \"2.6\"; it was ignored");
    }
    o.config_wins = true;  // a config file wins over editor settings (docs/lsp.md)
    o.recheck_modified = true;  // clients that cannot watch files still see config edits
    return o;
  }

  // Moves the type problems found while reading settings from `where` into `problems`.
  static void takeProblems(ClientSettings& settings, const std::string& where, std::vector<std::string>& problems) {
    for (auto& p : settings.problems) problems.push_back(p + " (from " + where + ")");
    settings.problems.clear();
  }

  // Shows every settings problem (once per batch; a batch is one settings update). Called with
  // no lock held. The server goes on with the remaining settings.
  void reportSettingsProblems(const std::vector<std::string>& problems) {
    std::set<std::string> seen;
    for (const auto& p : problems) {
      if (!seen.insert(p).second) continue;
      logToStderr("settings: " + p);
      notify("window/showMessage", LogMessageParams{MessageType::Warning, "ptlint: " + p});
    }
  }

  ClientSettings effectiveSettingsLocked(const std::string& folder_key) const {
    ClientSettings s = global_settings_;
    auto it = folder_settings_.find(folder_key);
    if (it != folder_settings_.end()) {
      const ClientSettings& f = it->second;
      if (f.select) s.select = f.select;
      if (f.ignore) s.ignore = f.ignore;
      if (f.extendSelect) s.extendSelect = f.extendSelect;
      if (f.configuration) s.configuration = f.configuration;
      if (f.unsafeFixes) s.unsafeFixes = f.unsafeFixes;
      if (f.torchVersion) s.torchVersion = f.torchVersion;
      if (f.gpuCheck) s.gpuCheck = f.gpuCheck;
    }
    return s;
  }

  // One resolver per workspace folder (each with its own editor settings), plus one for files
  // outside every folder. Discovery is per file either way: the nearest config file wins.
  // Collects what is wrong with the settings into `problems`; reports nothing (the caller holds
  // state_mutex_ and reports after releasing it).
  void rebuildResolversLocked(std::vector<std::string>& problems) {
    resolvers_.clear();
    // `configuration`: one config file for every document (a relative path is from the folder).
    auto resolverFor = [&](const std::string& key) {
      ClientSettings settings = effectiveSettingsLocked(key);
      std::optional<fs::path> config;
      if (settings.configuration) {
        fs::path file = *settings.configuration;
        if (file.is_relative() && !key.empty()) file = fs::path(key) / file;
        config = file.lexically_normal();
      }
      return std::make_shared<workspace::ConfigResolver>(overridesFor(settings, &problems), config);
    };
    for (const auto& folder : folders_) resolvers_[folder.path.string()] = resolverFor(folder.path.string());
    resolvers_[""] = resolverFor("");
    ++generation_;
  }

  std::string folderKeyFor(const fs::path& path) const {
    std::string best;
    for (const auto& folder : folders_) {
      auto rel = path.lexically_relative(folder.path);
      if (rel.empty() || *rel.begin() == "..") continue;
      if (folder.path.string().size() > best.size()) best = folder.path.string();
    }
    return best;
  }

  // Settings for one document: its config file (nearest above it) merged with editor settings.
  rules::Settings settingsFor(const std::string& uri) {
    std::optional<fs::path> path = uriToPath(uri);
    std::shared_ptr<workspace::ConfigResolver> resolver;
    ClientSettings client;
    fs::path target;
    {
      std::lock_guard lock(state_mutex_);
      std::string key = path ? folderKeyFor(*path) : (folders_.empty() ? "" : folders_.front().path.string());
      resolver = resolvers_.count(key) ? resolvers_[key] : resolvers_[""];
      client = effectiveSettingsLocked(key);
      target = path ? *path : (folders_.empty() ? fs::current_path() : folders_.front().path / "untitled.py");
    }
    try {
      workspace::ResolvedConfig config = resolver->forPath(target);
      return workspace::settingsForFile(config, target);
    } catch (const workspace::ConfigError& e) {
      reportOnce(std::string("ptlint: ") + e.what());
    } catch (const std::exception& e) {
      reportOnce(std::string("ptlint: configuration for ") + target.string() + ": " + e.what());
    }
    // The config file is broken: lint with the editor settings alone rather than not at all.
    rules::Settings fallback;
    workspace::Overrides o = overridesFor(client);
    if (o.select) fallback.select = *o.select;
    if (o.ignore) fallback.ignore = *o.ignore;
    if (o.extend_select) fallback.extend_select = *o.extend_select;
    if (o.torch_version) fallback.torch_version = *o.torch_version;
    if (o.unsafe_fixes) fallback.unsafe_fixes = *o.unsafe_fixes;
    return fallback;
  }

  // Shows an error to the user once (config errors recur on every keystroke otherwise).
  void reportOnce(const std::string& message) {
    {
      std::lock_guard lock(state_mutex_);
      if (!reported_.insert(message).second) return;
    }
    logToStderr(message);
    notify("window/showMessage", LogMessageParams{MessageType::Error, message});
  }

  void onDidChangeConfiguration(const DidChangeConfigurationParams& params) {
    if (capabilities_.workspaceConfiguration) {
      pullConfiguration();  // the notification's payload is not authoritative then
      return;
    }
    std::vector<std::string> problems;
    {
      std::lock_guard lock(state_mutex_);
      global_settings_ = params.settings.get<ClientSettings>();
      takeProblems(global_settings_, "workspace/didChangeConfiguration", problems);
      rebuildResolversLocked(problems);
    }
    reportSettingsProblems(problems);
    relintAll();
  }

  void pullConfiguration() {
    if (!capabilities_.workspaceConfiguration) return;
    ConfigurationParams params;
    std::vector<std::string> keys{""};
    params.items.push_back({std::nullopt, "ptlint"});
    {
      std::lock_guard lock(state_mutex_);
      for (const auto& folder : folders_) {
        params.items.push_back({folder.uri, "ptlint"});
        keys.push_back(folder.path.string());
      }
    }
    request("workspace/configuration", params, [this, keys](const json& result) {
      std::vector<std::string> problems;
      if (!result.is_array()) {
        if (!result.is_null())
          reportSettingsProblems({"the workspace/configuration answer must be a list of settings; it was ignored"});
        return;
      }
      {
        std::lock_guard lock(state_mutex_);
        for (size_t i = 0; i < keys.size() && i < result.size(); ++i) {
          ClientSettings s = result[i].get<ClientSettings>();
          takeProblems(s, i == 0 ? std::string("workspace/configuration") : "workspace/configuration for " + keys[i], problems);
          if (i == 0) global_settings_ = s;
          else folder_settings_[keys[i]] = s;
        }
        rebuildResolversLocked(problems);
      }
      reportSettingsProblems(problems);
      relintAll();
    });
  }

  void onDidChangeWatchedFiles(const DidChangeWatchedFilesParams& params) {
    bool config_changed = false;
    for (const auto& change : params.changes)
      if (auto path = uriToPath(change.uri); path && isConfigFile(*path)) config_changed = true;
    if (!config_changed) return;
    {
      std::lock_guard lock(state_mutex_);
      for (auto& [key, resolver] : resolvers_) resolver->invalidate();
      reported_.clear();
      ++generation_;
    }
    relintAll();
    if (capabilities_.diagnosticRefresh) request("workspace/diagnostic/refresh", nullptr, [](const json&) {});
  }

  void onDidChangeWorkspaceFolders(const DidChangeWorkspaceFoldersParams& params) {
    std::vector<std::string> problems;  // shown when the settings came; not again for a folder change
    {
      std::lock_guard lock(state_mutex_);
      for (const auto& removed : params.event.removed)
        std::erase_if(folders_, [&](const Folder& f) { return f.uri == removed.uri; });
      for (const auto& added : params.event.added)
        if (auto path = uriToPath(added.uri)) folders_.push_back({added.uri, path->lexically_normal()});
      rebuildResolversLocked(problems);
    }
    pullConfiguration();
    relintAll();
  }

  // --- Documents ---------------------------------------------------------------------------------

  void onDidOpen(const DidOpenTextDocumentParams& params) {
    const auto& doc = params.textDocument;
    std::string text = doc.text;
    docs_.open(doc.uri, doc.version, std::move(text));
    std::vector<std::function<void(ResultPtr)>> waiters;
    {
      std::lock_guard lock(analysis_mutex_);
      auto& state = analysis_[doc.uri];
      if (state) {  // a re-open without a close: drop the previous session's work
        state->closed = true;
        waiters = std::move(state->waiters);
      }
      state = std::make_shared<DocState>();
    }
    for (auto& waiter : waiters) waiter(nullptr);  // answered as for a closed document, unlocked
    scheduleAnalysis(doc.uri);
  }

  void onDidChange(const DidChangeTextDocumentParams& params) {
    const std::string& uri = params.textDocument.uri;
    switch (docs_.change(uri, params.textDocument.version.value_or(0), params.contentChanges, encoding_)) {
      case DocumentStore::ChangeResult::NotOpen:
        logToStderr("didChange for a document that is not open: " + uri);
        return;
      case DocumentStore::ChangeResult::IgnoredOutOfSync:
        logToStderr("didChange ignored: " + uri + " is out of sync until its whole text is sent again");
        return;
      case DocumentStore::ChangeResult::Applied:
        break;
    }
    scheduleAnalysis(uri);
  }

  // A change to `uri` was lost (its message could not be read): the server's text is no longer
  // the editor's, so no later incremental edit may be applied to it. Its diagnostics are cleared
  // (through a new analysis, which sees the mark) until the editor sends the whole text again
  // (a full-text change or a re-open).
  void markOutOfSync(const std::string& uri, const std::string& why) {
    if (!docs_.markOutOfSync(uri)) return;
    std::string message = "ptlint: lost a change to " + uri + " (" + why +
                          "); its diagnostics are off until the file is closed and reopened";
    logToStderr(message);
    notify("window/showMessage", LogMessageParams{MessageType::Warning, message});
    scheduleAnalysis(uri);
  }

  void onDidSave(const DidSaveTextDocumentParams& params) {
    // A saved config file opened in the editor changes every other file's settings.
    if (auto path = uriToPath(params.textDocument.uri); path && isConfigFile(*path))
      onDidChangeWatchedFiles(DidChangeWatchedFilesParams{{FileEvent{params.textDocument.uri, 2}}});
  }

  void onDidClose(const DidCloseTextDocumentParams& params) {
    const std::string& uri = params.textDocument.uri;
    std::vector<std::function<void(ResultPtr)>> waiters;
    uint64_t seq;
    {
      std::lock_guard lock(analysis_mutex_);
      auto it = analysis_.find(uri);
      if (it != analysis_.end()) {
        it->second->closed = true;
        waiters = std::move(it->second->waiters);
        analysis_.erase(it);
      }
      docs_.close(uri);
      // Numbered under the lock, after `closed` is set: an analysis that finished earlier holds a
      // lower number, so the outbox drops it if it arrives after this empty list.
      seq = ++publish_seq_;
    }
    outbox_.publish(uri, seq, serialize(notification("textDocument/publishDiagnostics", PublishDiagnosticsParams{uri, std::nullopt, {}})));
    for (auto& waiter : waiters) waiter(nullptr);
  }

  // --- Notebook documents (LSP 3.17): the joined code cells are analysed under the notebook's URI --

  void onNotebookDidOpen(const json& params) {
    auto joined = notebooks_.open(params);
    if (!joined) throw LspError(ErrorCode::InvalidParams, "notebookDocument/didOpen without a notebook URI");
    onDidOpen(DidOpenTextDocumentParams{TextDocumentItem{joined->uri, "python", joined->version, joined->text}});
  }

  void onNotebookDidChange(const json& params) {
    auto joined = notebooks_.change(params, encoding_);
    if (!joined) {
      logToStderr("notebookDocument/didChange for a notebook that is not open");
      return;
    }
    docs_.change(joined->uri, joined->version, {TextDocumentContentChangeEvent{std::nullopt, joined->text}}, encoding_);
    scheduleAnalysis(joined->uri);
    if (!joined->closed_cells.empty()) clearCells(joined->closed_cells);
    // A change in one cell can change what the others report (an import, a dataflow).
    if (capabilities_.pullDiagnostics && capabilities_.diagnosticRefresh)
      request("workspace/diagnostic/refresh", nullptr, [](const json&) {});
  }

  void onNotebookDidSave(const json&) {}

  void onNotebookDidClose(const json& params) {
    std::string uri = params.at("notebookDocument").value("uri", "");
    auto cells = notebooks_.close(uri);
    onDidClose(DidCloseTextDocumentParams{TextDocumentIdentifier{uri}});
    clearCells(cells);
  }

  // Empty diagnostics for cells that left a notebook.
  void clearCells(const std::vector<std::string>& cells) {
    uint64_t seq;
    {
      std::lock_guard lock(analysis_mutex_);
      seq = ++publish_seq_;
    }
    for (const auto& cell : cells)
      outbox_.publish(cell, seq, serialize(notification("textDocument/publishDiagnostics",
                                                        PublishDiagnosticsParams{cell, std::nullopt, {}})));
  }

  // Publishes a notebook's diagnostics to its cells' URIs (`seq` as for any publication).
  void publishNotebook(const std::string& uri, uint64_t seq, const std::vector<Diagnostic>& diagnostics) {
    for (auto& [cell, list] : notebooks_.splitDiagnostics(uri, json(diagnostics)))
      outbox_.publish(cell, seq, serialize(notification("textDocument/publishDiagnostics",
                                                        json{{"uri", cell}, {"diagnostics", list}})));
  }

  // --- Analysis scheduling ------------------------------------------------------------------------
  //
  // Publication rule: after every applied change the diagnostics of the newest applied text are
  // published (edits that arrive while an analysis runs are coalesced into the next one), and a
  // result is never published after a result of a newer text. "Newer" is the order in which the
  // server applied the texts, not the client's version numbers: a client that sends version 10
  // after version 20 gets version 10's diagnostics.

  void scheduleAnalysis(const std::string& uri) {
    std::shared_ptr<DocState> state;
    {
      std::lock_guard lock(analysis_mutex_);
      auto it = analysis_.find(uri);
      if (it == analysis_.end()) return;
      state = it->second;
      state->dirty = true;
      if (state->scheduled) return;  // the running job will see `dirty` and start over
      state->scheduled = true;
    }
    asio::post(workers_, [this, uri, state] { analyzeLoop(uri, state); });
  }

  void relintAll() {
    for (const auto& uri : docs_.openUris()) scheduleAnalysis(uri);
  }

  ResultPtr analyze(const std::shared_ptr<const DocumentSnapshot>& snap, uint64_t generation) {
    auto result = std::make_shared<AnalysisResult>();
    result->snapshot = snap;
    result->generation = generation;
    result->settings = settingsFor(snap->uri);
    if (!snap->in_sync) return result;  // the text is not the editor's: nothing to say about it
    result->lint = rules::lintFile(*snap->file, result->settings);
    bool related = capabilities_.relatedInformation;
    for (const auto& d : result->lint.diagnostics)
      result->diagnostics.push_back(toLspDiagnostic(d, *snap, encoding_, related));
    return result;
  }

  static json notification(const std::string& method, const json& params) {
    return {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
  }

  void analyzeLoop(const std::string& uri, const std::shared_ptr<DocState>& state) {
    for (;;) {
      {
        std::lock_guard lock(analysis_mutex_);
        if (state->closed || shutting_down_) {
          state->scheduled = false;
          return;
        }
        state->dirty = false;
      }
      ResultPtr result;
      std::shared_ptr<const DocumentSnapshot> snap;
      try {
        uint64_t generation = generation_;
        snap = docs_.snapshot(uri);
        if (snap) result = analyze(snap, generation);
      } catch (const std::exception& e) {
        logToStderr("analysis of " + uri + " failed: " + e.what());
      }
      std::vector<std::function<void(ResultPtr)>> waiters;
      std::optional<uint64_t> seq;
      {
        std::lock_guard lock(analysis_mutex_);
        if (state->closed) {
          state->scheduled = false;
          return;
        }
        if (state->dirty) continue;  // newer text or settings: this result is already stale
        state->scheduled = false;
        waiters = std::move(state->waiters);  // answered even when the analysis failed (nullptr)
        if (result) {
          state->latest = result;
          if (!capabilities_.pullDiagnostics) seq = ++publish_seq_;
        }
      }
      // Sent with no lock held; the sequence number keeps a newer publication from being undone.
      if (seq && notebooks_.isNotebook(uri))
        publishNotebook(uri, *seq, result->diagnostics);
      else if (seq)
        outbox_.publish(uri, *seq,
                        serialize(notification("textDocument/publishDiagnostics",
                                               PublishDiagnosticsParams{uri, snap->in_sync ? std::optional<int>(snap->version) : std::nullopt,
                                                                        result->diagnostics})));
      for (auto& waiter : waiters) waiter(result);
      return;
    }
  }

  // Runs `callback` on `pool` with the analysis of the document's current text (nullptr when the
  // document is not open). Never on the calling (I/O) thread.
  void whenAnalyzed(const std::string& uri, asio::thread_pool& pool, std::function<void(ResultPtr)> callback) {
    auto on_pool = [&pool, callback = std::move(callback)](ResultPtr result) {
      asio::post(pool, [callback, result = std::move(result)] { callback(result); });
    };
    ResultPtr ready;
    std::shared_ptr<DocState> start;
    {
      std::lock_guard lock(analysis_mutex_);
      auto it = analysis_.find(uri);
      if (it != analysis_.end()) {
        auto state = it->second;
        if (state->latest && !state->dirty && !state->scheduled && state->latest->generation == generation_) {
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

  // Runs `work` for a request on `pool`, answering InternalError if it throws.
  template <typename T>
  void onWorker(asio::thread_pool& pool, Reply<T> reply, std::function<void()> work) {
    asio::post(pool, [reply, work = std::move(work)] {
      if (reply.cancelled()) return;
      try {
        work();
      } catch (const LspError& e) {
        reply.fail(e.code, e.what());
      } catch (const std::exception& e) {
        reply.fail(ErrorCode::InternalError, std::string("Internal error: ") + e.what());
      }
    });
  }

  // Wraps a callback so that exceptions answer the request instead of escaping a worker.
  template <typename T>
  std::function<void(ResultPtr)> guarded(Reply<T> reply, std::function<void(ResultPtr)> body) {
    return [reply, body = std::move(body)](ResultPtr result) {
      if (reply.cancelled()) return;
      try {
        body(std::move(result));
      } catch (const LspError& e) {
        reply.fail(e.code, e.what());
      } catch (const std::exception& e) {
        reply.fail(ErrorCode::InternalError, std::string("Internal error: ") + e.what());
      }
    };
  }

  // --- Pull diagnostics ---------------------------------------------------------------------------

  void onDocumentDiagnostic(const DocumentDiagnosticParams& params, Reply<DocumentDiagnosticReport> reply) {
    std::string uri = params.textDocument.uri;
    auto previous = params.previousResultId;
    if (!docs_.isOpen(uri)) {
      // Not open: lint the file on disk.
      onWorker(workers_, reply, [this, uri, reply] {
        auto path = uriToPath(uri);
        auto text = path ? readWholeFile(*path) : std::nullopt;
        if (!text) throw LspError(ErrorCode::InvalidParams, "cannot read " + uri);
        auto snap = std::make_shared<DocumentSnapshot>();
        snap->uri = uri;
        snap->lines = LineTable(*text);
        snap->file = std::make_shared<const analysis::ParsedFile>(analysis::ParsedFile::parse(std::move(*text)));
        ResultPtr result = analyze(snap, generation_);
        reply(DocumentDiagnosticReport{"full", "disk", result->diagnostics});
      });
      return;
    }
    whenAnalyzed(uri, workers_, guarded(reply, [reply, previous](ResultPtr result) {
      if (!result) throw LspError(ErrorCode::ContentModified, "the document was closed");
      std::string id = result->resultId();
      if (previous && *previous == id) reply(DocumentDiagnosticReport{"unchanged", id, {}});
      else reply(DocumentDiagnosticReport{"full", id, result->diagnostics});
    }));
  }

  void onWorkspaceDiagnostic(const WorkspaceDiagnosticParams& params, Reply<WorkspaceDiagnosticReport> reply) {
    std::vector<Folder> folders;
    std::shared_ptr<workspace::ConfigResolver> walk_resolver;
    {
      std::lock_guard lock(state_mutex_);
      folders = folders_;
      walk_resolver = resolvers_[""];
    }
    std::optional<json> token = params.workDoneToken;
    if (token) {
      std::lock_guard lock(pending_mutex_);
      progress_tokens_[token->dump()] = requestKeyOf(reply);
    }
    std::map<std::string, std::string> previous;
    for (const auto& p : params.previousResultIds) previous[p.uri] = p.value;
    // Begun here, before the work is queued, so that the client sees the same sequence whenever a
    // cancellation lands: begin, then exactly one end ("cancelled" if the pass never finished).
    auto work_done = std::make_shared<WorkDoneReporter>(
        [this](const json& t, const WorkDoneProgress& v) { notify("$/progress", {{"token", t}, {"value", v}}); }, token);
    work_done->begin("ptlint: checking the workspace");
    onWorker(heavy_, reply, [this, folders, walk_resolver, previous, reply, work_done] {
      std::vector<fs::path> roots;
      for (const auto& f : folders) roots.push_back(f.path);
      workspace::WalkResult walk = roots.empty() ? workspace::WalkResult{} : workspace::collectFiles(roots, *walk_resolver, false);
      // Open documents are reported at their editor version, not as on disk.
      std::map<fs::path, std::string> open_by_path;
      for (const auto& uri : docs_.openUris())
        if (auto path = uriToPath(uri)) open_by_path[path->lexically_normal()] = uri;
      // Open documents inside a folder but not (yet) on disk are part of the workspace too.
      std::set<fs::path> listed(walk.files.begin(), walk.files.end());
      for (const auto& [path, uri] : open_by_path) {
        std::string ext = path.extension().string();
        bool in_folder = false;
        for (const auto& f : folders) {
          auto rel = path.lexically_relative(f.path);
          if (!rel.empty() && *rel.begin() != "..") in_folder = true;
        }
        if (in_folder && (ext == ".py" || ext == ".pyi") && !listed.count(path)) walk.files.push_back(path);
      }
      // Notebooks on disk have no cell URIs to report under; open ones publish per cell.
      std::erase_if(walk.files, [](const fs::path& f) { return f.extension() == ".ipynb"; });
      std::sort(walk.files.begin(), walk.files.end());

      WorkspaceDiagnosticReport report;
      size_t total = walk.files.size(), done = 0;
      for (const fs::path& file : walk.files) {
        if (reply.cancelled() || shutting_down_) return;  // work_done ends as "cancelled"
        DocumentDiagnosticReport item;
        item.workspaceItem = true;
        auto open = open_by_path.find(file.lexically_normal());
        ResultPtr result;
        std::string result_id;
        if (open != open_by_path.end()) {
          item.uri = open->second;
          if (auto snap = docs_.snapshot(open->second)) {
            result = analyze(snap, generation_);
            item.version = snap->version;
            result_id = result->resultId();
          }
        } else {
          item.uri = pathToUri(file);
          auto text = readWholeFile(file);
          if (!text) continue;
          result_id = "disk." + std::to_string(std::hash<std::string>{}(*text)) + "." + std::to_string(generation_.load());
          auto it = previous.find(*item.uri);
          if (it != previous.end() && it->second == result_id) {
            item.kind = "unchanged";
            item.resultId = result_id;
            report.items.push_back(std::move(item));
            continue;
          }
          auto snap = std::make_shared<DocumentSnapshot>();
          snap->uri = *item.uri;
          snap->lines = LineTable(*text);
          snap->file = std::make_shared<const analysis::ParsedFile>(analysis::ParsedFile::parse(std::move(*text)));
          result = analyze(snap, generation_);
        }
        if (!result) continue;
        item.resultId = result_id;
        auto it = previous.find(*item.uri);
        if (it != previous.end() && it->second == result_id) item.kind = "unchanged";
        else item.items = result->diagnostics;
        report.items.push_back(std::move(item));
        ++done;
        if (total > 0 && (done % 20 == 0 || done == total))
          work_done->report(std::to_string(done) + "/" + std::to_string(total) + " files",
                            static_cast<int>(done * 100 / total));
      }
      work_done->end(std::to_string(report.items.size()) + " files checked");
      reply(report);
    });
  }

  template <typename T>
  std::string requestKeyOf(const Reply<T>&) const {
    return current_request_key_;
  }

  // --- Code actions -------------------------------------------------------------------------------

  WorkspaceEdit workspaceEdit(const DocumentSnapshot& snap, std::vector<TextEdit> edits) const {
    WorkspaceEdit edit;
    if (capabilities_.documentChanges) edit.documentChanges = std::vector<TextDocumentEdit>{{{snap.uri, snap.version}, std::move(edits)}};
    else edit.changes[snap.uri] = std::move(edits);
    return edit;
  }

  // The safe-fix fixpoint of the document (the loop `ptlint check --fix` runs), as one edit.
  // Heavy (up to ten lint passes): run on heavy_. Stops early, throwing RequestCancelled, once
  // `cancelled()` says the answer is no longer wanted.
  std::optional<TextEdit> fixAllEdit(const AnalysisResult& result, const std::function<bool()>& cancelled) const {
    const rules::Settings& settings = result.settings;
    if (!result.snapshot->in_sync) return std::nullopt;
    quickfix::FixProvider provider = [this, &settings, &cancelled](const analysis::ParsedFile& file) {
      if (shutting_down_ || cancelled()) throw LspError(ErrorCode::RequestCancelled, "the request was cancelled");
      std::vector<quickfix::Fix> fixes;
      for (auto& d : rules::lintFile(file, settings).diagnostics)
        if (d.fix) fixes.push_back(std::move(*d.fix));
      return fixes;
    };
    std::string_view before = result.snapshot->text();
    auto fixed = quickfix::fixToFixpoint(std::string(before), quickfix::Applicability::Safe, provider);
    if (fixed.text == before) return std::nullopt;
    quickfix::Edit edit = minimalEdit(before, fixed.text);
    const auto& snap = *result.snapshot;
    return TextEdit{toRange(before, snap.lines, edit.start, edit.end, encoding_), edit.content};
  }

  // `# noqa: CODE` on the diagnostic's first line, appended to an existing `# noqa:` list.
  std::optional<quickfix::Edit> noqaEdit(const AnalysisResult& result, const analysis::NoqaIndex& noqa,
                                        const rules::Diagnostic& d) const {
    const analysis::ParsedFile& file = *result.snapshot->file;
    uint32_t row = file.lines().lineOf(d.start);
    if (const analysis::NoqaDirective* directive = noqa.directiveOnRow(row)) {
      if (directive->all) return std::nullopt;
      if (!directive->codes.empty()) return quickfix::Edit{directive->codes_end, directive->codes_end, ", " + std::string(d.code)};
    }
    uint32_t end = file.lines().lineContentEnd(row, file.text());
    return quickfix::Edit{end, end, "  # noqa: " + std::string(d.code)};
  }

  // Quickfixes are answered from the analysis on workers_; when a fix-all action is wanted too,
  // the answer is finished on heavy_, so that computing it never delays other requests.
  void onCodeAction(const CodeActionParams& params, Reply<std::vector<CodeAction>> reply) {
    whenAnalyzed(params.textDocument.uri, workers_, guarded(reply, [this, params, reply](ResultPtr result) {
      std::vector<CodeAction> actions;
      if (!result) {
        reply(actions);
        return;
      }
      const DocumentSnapshot& snap = *result->snapshot;
      std::string_view text = snap.text();
      uint32_t from = toOffset(text, snap.lines, params.range.start, encoding_);
      uint32_t to = toOffset(text, snap.lines, params.range.end, encoding_);
      if (to < from) std::swap(from, to);
      bool want_quickfix = kindRequested(params.context.only, "quickfix");
      bool any_safe_fix = false;
      std::optional<analysis::NoqaIndex> noqa;
      // With gpuCheck, the first quickfix request that meets a PTL601 fix queues every pattern of
      // the document for one background validation (one ptlint-gpu start for all of them).
      bool gpu_check = want_quickfix && gpuCheckFor(params.textDocument.uri);
      if (gpu_check) requestValidation(*result, from, to);
      for (size_t i = 0; i < result->lint.diagnostics.size(); ++i) {
        const rules::Diagnostic& d = result->lint.diagnostics[i];
        if (d.fix && d.fix->applicability == quickfix::Applicability::Safe) any_safe_fix = true;
        if (!want_quickfix || d.start > to || d.end < from) continue;
        const Diagnostic& lsp = result->diagnostics[i];
        if (d.fix && !d.fix->edits.empty()) {
          auto applicability = d.fix->applicability;
          bool offered = applicability == quickfix::Applicability::Safe ||
                         (applicability == quickfix::Applicability::Unsafe && result->settings.unsafe_fixes);
          std::string verdict;
          if (offered && gpu_check && d.attention)
            offered = deviceVerdict(d, verdict);  // a rewrite found not equivalent is withdrawn
          if (offered) {
            CodeAction action;
            bool safe = applicability == quickfix::Applicability::Safe;
            std::string message = d.fix->message.empty() ? "Fix " + std::string(d.code) : d.fix->message;
            action.title = safe ? std::string(d.code) + ": " + message : std::string(d.code) + ": " + message + " (unsafe fix)";
            action.title += verdict;
            action.kind = "quickfix";
            action.diagnostics = {lsp};
            action.isPreferred = safe;  // never an unsafe one: editors apply preferred fixes unasked
            action.edit = workspaceEdit(snap, toTextEdits(text, snap.lines, d.fix->edits, encoding_));
            actions.push_back(std::move(action));
          }
        }
        if (!noqa) noqa = analysis::NoqaIndex::build(*snap.file);  // once per request, when needed
        if (auto edit = noqaEdit(*result, *noqa, d)) {
          CodeAction action;
          action.title = std::string(d.code) + ": Disable for this line";
          action.kind = "quickfix";
          action.diagnostics = {lsp};
          action.edit = workspaceEdit(snap, toTextEdits(text, snap.lines, {*edit}, encoding_));
          actions.push_back(std::move(action));
        }
      }
      // Fix-all: always when asked for by kind (on save), otherwise only when it would do something.
      bool fix_all_asked = params.context.only && kindRequested(params.context.only, kFixAllKind);
      if (!fix_all_asked && !(!params.context.only && any_safe_fix)) {
        reply(actions);
        return;
      }
      asio::post(heavy_, [this, result, reply, actions = std::move(actions)]() mutable {
        guarded(reply, [this, reply, &actions](ResultPtr result) {
          if (auto edit = fixAllEdit(*result, [reply] { return reply.cancelled(); })) {
            CodeAction action;
            action.title = "ptlint: Fix all auto-fixable problems";
            action.kind = std::string(kFixAllKind);
            action.edit = workspaceEdit(*result->snapshot, {*edit});
            actions.push_back(std::move(action));
          }
          reply(actions);
        })(result);
      });
    }));
  }

  void onExecuteCommand(const ExecuteCommandParams& params, Reply<json> reply) {
    if (params.command != kApplyFixAllCommand) throw LspError(ErrorCode::InvalidParams, "unknown command " + params.command);
    std::string uri;
    if (!params.arguments.empty()) {
      const json& arg = params.arguments[0];
      if (arg.is_string()) uri = arg.get<std::string>();
      else if (arg.is_object() && arg.contains("uri") && arg["uri"].is_string()) uri = arg["uri"].get<std::string>();
    }
    if (uri.empty()) throw LspError(ErrorCode::InvalidParams, "ptlint.applyFixAll expects [{\"uri\": ...}]");
    if (!docs_.isOpen(uri)) throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
    whenAnalyzed(uri, heavy_, guarded(reply, [this, reply](ResultPtr result) {
      if (!result) throw LspError(ErrorCode::ContentModified, "the document was closed");
      if (auto edit = fixAllEdit(*result, [reply] { return reply.cancelled(); })) {
        // Versioned, so that the client refuses it if the user typed meanwhile.
        WorkspaceEdit workspace_edit;
        workspace_edit.documentChanges =
            std::vector<TextDocumentEdit>{{{result->snapshot->uri, result->snapshot->version}, {*edit}}};
        request("workspace/applyEdit", ApplyWorkspaceEditParams{"ptlint: Fix all auto-fixable problems", workspace_edit});
      }
      reply(nullptr);
    }));
  }

  // --- Hover --------------------------------------------------------------------------------------

  static std::string ruleDocs(const rules::RuleMeta& meta) {
    std::string out = "**" + std::string(meta.code) + "** `" + std::string(meta.name) + "`";
    if (!meta.summary.empty()) out += ": " + std::string(meta.summary);
    out += "\n\n";
    out += std::string(meta.docs);
    return out;
  }

  void onHover(const HoverParams& params, Reply<json> reply) {
    whenAnalyzed(params.textDocument.uri, workers_, guarded(reply, [this, params, reply](ResultPtr result) {
      if (!result) {
        reply(nullptr);
        return;
      }
      const DocumentSnapshot& snap = *result->snapshot;
      if (!snap.in_sync) {
        reply(nullptr);  // positions in the editor's text mean nothing in this one
        return;
      }
      std::string_view text = snap.text();
      uint32_t at = toOffset(text, snap.lines, params.position, encoding_);
      // The innermost diagnostic under the cursor.
      const rules::Diagnostic* best = nullptr;
      for (const auto& d : result->lint.diagnostics)
        if (d.start <= at && at <= d.end && (!best || d.end - d.start < best->end - best->start)) best = &d;
      if (best) {
        if (const rules::RuleMeta* meta = findMeta(best->code)) {
          reply(Hover{{"markdown", ruleDocs(*meta)}, toRange(text, snap.lines, best->start, best->end, encoding_)});
          return;
        }
      }
      // A code inside `# noqa: ...` on this line.
      const analysis::ParsedFile& file = *snap.file;
      analysis::NoqaIndex noqa = analysis::NoqaIndex::build(file);
      const analysis::NoqaDirective* directive = noqa.directiveOnRow(file.lines().lineOf(at));
      if (directive && !directive->all && at >= directive->comment_start && at <= directive->codes_end) {
        auto isCodeChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
        uint32_t start = at, end = at;
        while (start > directive->comment_start && isCodeChar(text[start - 1])) --start;
        while (end < directive->codes_end && isCodeChar(text[end])) ++end;
        if (const rules::RuleMeta* meta = findMeta(text.substr(start, end - start))) {
          reply(Hover{{"markdown", ruleDocs(*meta)}, toRange(text, snap.lines, start, end, encoding_)});
          return;
        }
      }
      reply(nullptr);
    }));
  }

  // --- Debugging aid (used by the equivalence test) ------------------------------------------------

  // `ptlint/debugDocument`: the server's text of a document, and whether its incrementally
  // maintained tree equals a fresh parse of that text.
  void onDebugDocument(const DocumentDiagnosticParams& params, Reply<json> reply) {
    std::string uri = params.textDocument.uri;
    onWorker(heavy_, reply, [this, uri, reply] {
      auto snap = docs_.snapshot(uri);
      if (!snap) throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
      auto fresh = analysis::ParsedFile::parse(std::string(snap->text()));
      char* a = ts_node_string(snap->file->root());
      char* b = ts_node_string(fresh.root());
      bool same = std::string_view(a) == std::string_view(b);
      std::free(a);
      std::free(b);
      reply(json{{"version", snap->version}, {"text", snap->text()}, {"treeMatchesFreshParse", same}});
    });
  }

  // --- gpuCheck ----------------------------------------------------------------------------------
  bool gpuCheckFor(const std::string& uri) {
    std::optional<fs::path> path = uriToPath(uri);
    std::lock_guard lock(state_mutex_);
    std::string key = path ? folderKeyFor(*path) : (folders_.empty() ? "" : folders_.front().path.string());
    return effectiveSettingsLocked(key).gpuCheck.value_or(false);
  }

  // The device's verdicts on recognised patterns' rewrites. `ptlint-gpu` loads libtorch (seconds),
  // so it is started lazily, only when a quickfix request meets a PTL601 fix with gpuCheck on,
  // for every pattern queued by then (one process per batch, on its own thread), and never again
  // once it failed to start or answer: the reason is shown instead. Verdicts are remembered per
  // pattern for the session.
  struct GpuVerdict {
    bool done = false;
#ifdef PTLINT_SERVER_WITH_GPU_CHECK
    std::optional<gpu_check::Validation> validation;
#endif
    std::string why;
  };

  static std::string patternKey(const rules::Diagnostic& d) {
    const rules::AttentionFacts& f = *d.attention;
    return fmt::format("{}/{}/{}/{}/{}/{}/{}", static_cast<int>(f.scale), f.scale_value, static_cast<int>(f.mask),
                       f.dropout ? *f.dropout : -1.0, static_cast<int>(f.layout), f.softmax_float32,
                       static_cast<int>(f.dtype));
  }

  // Queues the patterns of `result`'s PTL601 fixes that have no verdict yet (those in
  // [from, to] first) and starts the validation thread when it is idle.
  void requestValidation(const AnalysisResult& result, uint32_t from, uint32_t to) {
#ifdef PTLINT_SERVER_WITH_GPU_CHECK
    auto offered = [&](const rules::Diagnostic& d) {
      return d.attention && d.fix && !d.fix->edits.empty() &&
             (d.fix->applicability == quickfix::Applicability::Safe ||
              (d.fix->applicability == quickfix::Applicability::Unsafe && result.settings.unsafe_fixes));
    };
    bool wanted = false;
    for (const auto& d : result.lint.diagnostics)
      if (offered(d) && d.start <= to && d.end >= from) wanted = true;
    if (!wanted) return;  // nothing asked for needs the device
    std::thread previous;
    {
      std::lock_guard lock(gpu_mutex_);
      for (const auto& d : result.lint.diagnostics) {
        if (!offered(d)) continue;
        auto pattern = gpu_check::AttentionPattern::fromFacts(*d.attention);
        if (!pattern) continue;
        std::string key = patternKey(d);
        if (gpu_verdicts_.count(key)) continue;
        gpu_verdicts_[key] = {};
        if (!gpu_unavailable_.empty()) {
          gpu_verdicts_[key].done = true;
          gpu_verdicts_[key].why = gpu_unavailable_;
          continue;
        }
        gpu_queue_.emplace_back(key, *pattern);
      }
      if (!gpu_queue_.empty() && !gpu_running_ && !shutting_down_) {
        gpu_running_ = true;
        previous = std::move(gpu_thread_);  // ended: it cleared gpu_running_ on its way out
        gpu_thread_ = std::thread([this] { validationLoop(); });
      }
    }
    if (previous.joinable()) previous.join();
#else
    (void)result, (void)from, (void)to;
#endif
  }

#ifdef PTLINT_SERVER_WITH_GPU_CHECK
  void validationLoop() {
    for (;;) {
      std::vector<std::pair<std::string, gpu_check::AttentionPattern>> batch;
      {
        std::lock_guard lock(gpu_mutex_);
        if (gpu_queue_.empty() || shutting_down_) {
          gpu_running_ = false;
          return;
        }
        batch.swap(gpu_queue_);
      }
      std::vector<gpu_check::AttentionPattern> patterns;
      for (const auto& [key, pattern] : batch) patterns.push_back(pattern);
      std::string why;
      auto results = gpu_check::validateAttention(patterns, gpu_check::ValidationOptions{}, &why);
      bool none = std::none_of(results.begin(), results.end(), [](const auto& r) { return r.has_value(); });
      if (none) logToStderr("gpuCheck: " + (why.empty() ? std::string("ptlint-gpu is unavailable") : why));
      std::lock_guard lock(gpu_mutex_);
      for (size_t i = 0; i < batch.size(); ++i) {
        GpuVerdict& verdict = gpu_verdicts_[batch[i].first];
        verdict.done = true;
        if (i < results.size() && results[i]) verdict.validation = results[i];
        else verdict.why = why.empty() ? "ptlint-gpu is unavailable" : why;
      }
      if (none) {
        // It could not be run at all: not again this session. Queued patterns get the reason.
        gpu_unavailable_ = why.empty() ? "ptlint-gpu is unavailable" : why;
        for (const auto& [key, pattern] : gpu_queue_) {
          gpu_verdicts_[key].done = true;
          gpu_verdicts_[key].why = gpu_unavailable_;
        }
        gpu_queue_.clear();
      }
    }
  }
#endif

  // The verdict on `d`'s rewrite as a title suffix (requestValidation queued it). Returns false
  // when the rewrite was found not equivalent.
  bool deviceVerdict(const rules::Diagnostic& d, std::string& note) {
#ifdef PTLINT_SERVER_WITH_GPU_CHECK
    std::lock_guard lock(gpu_mutex_);
    auto it = gpu_verdicts_.find(patternKey(d));
    if (it == gpu_verdicts_.end() || !it->second.done) {
      note = " (validating on the device...)";
      return true;
    }
    const GpuVerdict& verdict = it->second;
    if (!verdict.validation || !verdict.validation->error.empty()) {
      note = " (not validated: " + (verdict.validation ? verdict.validation->error : verdict.why) + ")";
      return true;
    }
    note = " - " + gpu_check::summarize(*verdict.validation);
    return verdict.validation->equivalent;
#else
    (void)d;
    note = " (not validated: this build has no gpu_check)";
    return true;
#endif
  }

  std::mutex gpu_mutex_;
  std::map<std::string, GpuVerdict> gpu_verdicts_;
#ifdef PTLINT_SERVER_WITH_GPU_CHECK
  std::vector<std::pair<std::string, gpu_check::AttentionPattern>> gpu_queue_;
#endif
  std::string gpu_unavailable_;  // why ptlint-gpu cannot be used; empty until it failed
  bool gpu_running_ = false;
  std::thread gpu_thread_;

  Transport& transport_;
  Outbox outbox_;  // every message the server writes
  DocumentStore docs_;
  NotebookDocuments notebooks_;
  // Two pools, so that no request waits behind another kind of work: `workers_` analyses
  // documents and answers cheap requests (hover, pull diagnostics, quickfixes); `heavy_` runs
  // what may take seconds on a big file (fix-all to a fixpoint, workspace diagnostics). The I/O
  // thread only applies changes and dispatches.
  asio::thread_pool workers_;
  asio::thread_pool heavy_;
  std::atomic<bool> initialized_{false}, shutdown_requested_{false}, shutting_down_{false};

  std::map<std::string, RequestHandler> requests_;
  std::map<std::string, NotificationHandler> notifications_;

  std::mutex pending_mutex_;
  std::map<std::string, std::weak_ptr<PendingRequest>> pending_;  // by id.dump()
  std::map<std::string, std::string> progress_tokens_;            // token.dump() -> request key
  std::string current_request_key_;

  std::mutex outgoing_mutex_;
  int next_outgoing_id_ = 1;
  std::map<int, std::function<void(const json&)>> outgoing_;

  // Written on the I/O thread during initialize only; read everywhere after.
  ClientCapabilities capabilities_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;

  std::mutex state_mutex_;
  std::vector<Folder> folders_;
  ClientSettings global_settings_;
  std::map<std::string, ClientSettings> folder_settings_;
  std::map<std::string, std::shared_ptr<workspace::ConfigResolver>> resolvers_;
  std::set<std::string> reported_;
  std::atomic<uint64_t> generation_{0};

  std::mutex analysis_mutex_;
  std::map<std::string, std::shared_ptr<DocState>> analysis_;
  uint64_t publish_seq_ = 0;  // numbers every publishDiagnostics, under analysis_mutex_
};

}  // namespace

int runServer(int in_fd, int out_fd) {
  Transport transport(in_fd, out_fd);
  int code;
  {
    LspServer server(transport);
    code = server.run();
  }
  return code;
}

int runStdioServer() {
  std::ios::sync_with_stdio(false);
  return runServer(STDIN_FILENO, STDOUT_FILENO);
}

}  // namespace ptlint::server

#include "server/protocol.h"

#include <algorithm>
#include <cstdio>

#include "server/setting_names.h"

namespace ptlint::server {
namespace {

// Reads a required member, or answers InvalidParams naming it.
const json& require(const json& j, const char* key) {
  if (!j.is_object()) throw LspError(ErrorCode::InvalidParams, std::string("expected an object with `") + key + "`");
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) throw LspError(ErrorCode::InvalidParams, std::string("missing `") + key + "`");
  return *it;
}

template <typename T>
T get(const json& j, const char* key) {
  try {
    return require(j, key).get<T>();
  } catch (const json::exception& e) {
    throw LspError(ErrorCode::InvalidParams, std::string("bad `") + key + "`: " + e.what());
  }
}

const json* member(const json& j, std::initializer_list<const char*> path) {
  const json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

bool flag(const json& j, std::initializer_list<const char*> path) {
  const json* v = member(j, path);
  return v && v->is_boolean() && v->get<bool>();
}

}  // namespace

void from_json(const json& j, LspPosition& p) {
  // Negative or fractional numbers are clamped rather than rejected: positions are clamped.
  auto number = [&](const char* key) -> uint32_t {
    const json& v = require(j, key);
    if (!v.is_number()) throw LspError(ErrorCode::InvalidParams, std::string("`") + key + "` is not a number");
    double d = v.get<double>();
    if (d <= 0) return 0;
    if (d >= 4294967295.0) return UINT32_MAX;
    return static_cast<uint32_t>(d);
  };
  p.line = number("line");
  p.character = number("character");
}
void to_json(json& j, const LspPosition& p) { j = {{"line", p.line}, {"character", p.character}}; }

void from_json(const json& j, Range& r) {
  r.start = get<Position>(j, "start");
  r.end = get<Position>(j, "end");
}
void to_json(json& j, const Range& r) { j = {{"start", r.start}, {"end", r.end}}; }

void to_json(json& j, const Location& l) { j = {{"uri", l.uri}, {"range", l.range}}; }

void from_json(const json& j, TextDocumentIdentifier& t) { t.uri = get<std::string>(j, "uri"); }

void from_json(const json& j, VersionedTextDocumentIdentifier& t) {
  t.uri = get<std::string>(j, "uri");
  if (auto it = j.find("version"); it != j.end() && it->is_number_integer()) t.version = it->get<int>();
}
void to_json(json& j, const VersionedTextDocumentIdentifier& t) {
  j = {{"uri", t.uri}, {"version", t.version ? json(*t.version) : json(nullptr)}};
}

void from_json(const json& j, TextDocumentItem& t) {
  t.uri = get<std::string>(j, "uri");
  t.languageId = j.value("languageId", "python");
  t.version = get<int>(j, "version");
  t.text = get<std::string>(j, "text");
}

void from_json(const json& j, TextDocumentPositionParams& p) {
  p.textDocument = get<TextDocumentIdentifier>(j, "textDocument");
  p.position = get<Position>(j, "position");
}

void to_json(json& j, const TextEdit& e) { j = {{"range", e.range}, {"newText", e.newText}}; }
void to_json(json& j, const TextDocumentEdit& e) { j = {{"textDocument", e.textDocument}, {"edits", e.edits}}; }
void to_json(json& j, const WorkspaceEdit& e) {
  j = json::object();
  if (e.documentChanges) j["documentChanges"] = *e.documentChanges;
  else j["changes"] = e.changes;
}
void to_json(json& j, const Command& c) {
  j = {{"title", c.title}, {"command", c.command}, {"arguments", c.arguments}};
}
void to_json(json& j, const MarkupContent& m) { j = {{"kind", m.kind}, {"value", m.value}}; }

void from_json(const json& j, WorkspaceFolder& f) {
  f.uri = get<std::string>(j, "uri");
  f.name = j.value("name", "");
}

void from_json(const json& j, ClientCapabilities& c) {
  if (const json* encodings = member(j, {"general", "positionEncodings"}); encodings && encodings->is_array())
    for (const auto& e : *encodings)
      if (e.is_string()) c.positionEncodings.push_back(e.get<std::string>());
  const json* diagnostic = member(j, {"textDocument", "diagnostic"});
  c.pullDiagnostics = diagnostic && diagnostic->is_object();
  c.diagnosticRefresh = flag(j, {"workspace", "diagnostics", "refreshSupport"});
  c.workspaceConfiguration = flag(j, {"workspace", "configuration"});
  c.watchedFilesDynamicRegistration = flag(j, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
  c.documentChanges = flag(j, {"workspace", "workspaceEdit", "documentChanges"});
  c.applyEdit = flag(j, {"workspace", "applyEdit"});
  c.workDoneProgress = flag(j, {"window", "workDoneProgress"});
  if (const json* related = member(j, {"textDocument", "publishDiagnostics", "relatedInformation"}); related && related->is_boolean())
    c.relatedInformation = related->get<bool>();
}

void from_json(const json& j, InitializeParams& p) {
  if (!j.is_object()) throw LspError(ErrorCode::InvalidParams, "initialize expects an object");
  if (auto it = j.find("rootUri"); it != j.end() && it->is_string()) p.rootUri = it->get<std::string>();
  if (auto it = j.find("workspaceFolders"); it != j.end() && it->is_array())
    for (const auto& f : *it) p.workspaceFolders.push_back(f.get<WorkspaceFolder>());
  if (auto it = j.find("initializationOptions"); it != j.end()) p.initializationOptions = *it;
  if (auto it = j.find("capabilities"); it != j.end() && it->is_object()) p.capabilities = it->get<ClientCapabilities>();
}

namespace {

const char* jsonTypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "a list";
    case json::value_t::object: return "an object";
    case json::value_t::binary: return "binary data";
    case json::value_t::discarded: return "nothing";
    default: return "a number";
  }
}

}  // namespace

void from_json(const json& j, ClientSettings& s) {
  s = ClientSettings{};
  if (j.is_null()) return;
  if (!j.is_object()) {
    s.problems.push_back(std::string("the `ptlint` settings must be an object, not ") + jsonTypeName(j) + "; they were ignored");
    return;
  }
  const json& section = (j.contains("ptlint") && j["ptlint"].is_object()) ? j["ptlint"] : j;
  auto wrongType = [&](const char* key, const char* wanted, const json& v) {
    s.problems.push_back(std::string("setting `") + key + "` must be " + wanted + ", not " + jsonTypeName(v) +
                         " (" + v.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 80) +
                         "); it was ignored");
  };
  // A JSON null is "not set", as an editor writes it for a cleared setting.
  auto value = [&](const char* key) -> const json* {
    auto it = section.find(key);
    return it == section.end() || it->is_null() ? nullptr : &*it;
  };
  for (const char* key : {"select", "ignore", "extendSelect"}) {
    const json* v = value(key);
    if (!v) continue;
    bool ok = v->is_array() && std::all_of(v->begin(), v->end(), [](const json& e) { return e.is_string(); });
    if (!ok) {
      wrongType(key, "a list of strings such as [\"PTL1\", \"PTL301\"]", *v);
      continue;
    }
    std::vector<std::string> codes;
    for (const auto& e : *v) codes.push_back(e.get<std::string>());
    std::string_view name(key);
    (name == "select" ? s.select : name == "ignore" ? s.ignore : s.extendSelect) = std::move(codes);
  }
  for (const char* key : {"unsafeFixes", "gpuCheck"}) {
    const json* v = value(key);
    if (!v) continue;
    if (!v->is_boolean()) wrongType(key, "true or false", *v);
    else (std::string_view(key) == "unsafeFixes" ? s.unsafeFixes : s.gpuCheck) = v->get<bool>();
  }
  if (const json* v = value("configuration")) {
    if (!v->is_string()) wrongType("configuration", "the path of a ptlint.toml or pyproject.toml", *v);
    else if (!v->get<std::string>().empty()) s.configuration = v->get<std::string>();
  }
  if (const json* v = value("compileLog")) {
    if (!v->is_string()) wrongType("compileLog", "the path or glob of a torch.compile log or TORCH_TRACE folder", *v);
    else if (!v->get<std::string>().empty()) s.compileLog = v->get<std::string>();
  }
  if (const json* v = value("torchVersion")) {
    if (!v->is_string()) wrongType("torchVersion", "a version string such as \"2.6\"", *v);
    else s.torchVersion = v->get<std::string>();
  }
  // A key the server does not read is named (with the closest known one), never dropped silently.
  for (const auto& [key, v] : section.items()) {
    const auto names = settingNames();
    if (std::find(names.begin(), names.end(), key) == names.end()) s.problems.push_back(unknownSettingProblem(key));
  }
}

void from_json(const json& j, DidChangeConfigurationParams& p) {
  if (j.is_object() && j.contains("settings")) p.settings = j["settings"];
}

void to_json(json& j, const ConfigurationParams& p) {
  json items = json::array();
  for (const auto& item : p.items) {
    json i = {{"section", item.section}};
    if (item.scopeUri) i["scopeUri"] = *item.scopeUri;
    items.push_back(std::move(i));
  }
  j = {{"items", items}};
}

void from_json(const json& j, DidChangeWorkspaceFoldersParams& p) {
  const json& event = require(j, "event");
  if (auto it = event.find("added"); it != event.end() && it->is_array())
    for (const auto& f : *it) p.event.added.push_back(f.get<WorkspaceFolder>());
  if (auto it = event.find("removed"); it != event.end() && it->is_array())
    for (const auto& f : *it) p.event.removed.push_back(f.get<WorkspaceFolder>());
}

void from_json(const json& j, DidChangeWatchedFilesParams& p) {
  const json& changes = require(j, "changes");
  if (!changes.is_array()) throw LspError(ErrorCode::InvalidParams, "`changes` is not an array");
  for (const auto& c : changes) p.changes.push_back({get<std::string>(c, "uri"), c.value("type", 2)});
}

void from_json(const json& j, DidOpenTextDocumentParams& p) { p.textDocument = get<TextDocumentItem>(j, "textDocument"); }

void from_json(const json& j, TextDocumentContentChangeEvent& e) {
  if (auto it = j.find("range"); it != j.end() && !it->is_null()) e.range = it->get<Range>();
  e.text = get<std::string>(j, "text");
}

void from_json(const json& j, DidChangeTextDocumentParams& p) {
  p.textDocument = get<VersionedTextDocumentIdentifier>(j, "textDocument");
  p.contentChanges = get<std::vector<TextDocumentContentChangeEvent>>(j, "contentChanges");
}

void from_json(const json& j, DidCloseTextDocumentParams& p) { p.textDocument = get<TextDocumentIdentifier>(j, "textDocument"); }

void to_json(json& j, const Diagnostic& d) {
  j = {{"range", d.range}, {"severity", static_cast<int>(d.severity)}, {"source", d.source}, {"message", d.message}};
  if (!d.code.empty()) j["code"] = d.code;  // a note about the file is no rule's
  if (d.codeDescriptionHref) j["codeDescription"] = {{"href", *d.codeDescriptionHref}};
  if (!d.tags.empty()) {
    json tags = json::array();
    for (auto t : d.tags) tags.push_back(static_cast<int>(t));
    j["tags"] = tags;
  }
  if (!d.relatedInformation.empty()) {
    json related = json::array();
    for (const auto& r : d.relatedInformation) related.push_back({{"location", r.location}, {"message", r.message}});
    j["relatedInformation"] = related;
  }
  json data = {{"code", d.code}};
  if (d.fix)
    data["fix"] = {{"applicability", d.fix->applicability}, {"message", d.fix->message}, {"edits", d.fix->edits}};
  else
    data["fix"] = nullptr;
  j["data"] = std::move(data);
}

json publishDiagnosticsJson(const std::string& uri, std::optional<int> version, const std::vector<Diagnostic>& diagnostics) {
  json j = {{"uri", uri}, {"diagnostics", diagnostics}};
  if (version) j["version"] = *version;
  return j;
}

void to_json(json& j, const PublishDiagnosticsParams& p) { j = publishDiagnosticsJson(p.uri, p.version, p.diagnostics); }

void from_json(const json& j, DocumentDiagnosticParams& p) {
  p.textDocument = get<TextDocumentIdentifier>(j, "textDocument");
  if (auto it = j.find("previousResultId"); it != j.end() && it->is_string()) p.previousResultId = it->get<std::string>();
}

void to_json(json& j, const DocumentDiagnosticReport& r) {
  j = {{"kind", r.kind}, {"resultId", r.resultId}};
  if (r.kind == "full") j["items"] = r.items;
  if (r.workspaceItem) {
    j["uri"] = r.uri.value_or("");
    j["version"] = r.version ? json(*r.version) : json(nullptr);
  }
}

void from_json(const json& j, WorkspaceDiagnosticParams& p) {
  if (!j.is_object()) return;
  if (auto it = j.find("previousResultIds"); it != j.end() && it->is_array())
    for (const auto& r : *it)
      if (r.is_object() && r.contains("uri") && r.contains("value") && r["uri"].is_string() && r["value"].is_string())
        p.previousResultIds.push_back({r["uri"].get<std::string>(), r["value"].get<std::string>()});
  if (auto it = j.find("workDoneToken"); it != j.end() && (it->is_string() || it->is_number_integer())) p.workDoneToken = *it;
}

void to_json(json& j, const WorkspaceDiagnosticReport& r) { j = {{"items", r.items}}; }

void to_json(json& j, const WorkDoneProgress& p) {
  j = {{"kind", p.kind}};
  if (p.kind == "begin") {
    j["title"] = p.title;
    j["cancellable"] = p.cancellable;
  }
  if (!p.message.empty()) j["message"] = p.message;
  if (p.percentage && p.kind != "end") j["percentage"] = *p.percentage;
}

void from_json(const json& j, CodeActionParams& p) {
  p.textDocument = get<TextDocumentIdentifier>(j, "textDocument");
  p.range = get<Range>(j, "range");
  if (const json* only = member(j, {"context", "only"}); only && only->is_array()) {
    p.context.only.emplace();
    for (const auto& k : *only)
      if (k.is_string()) p.context.only->push_back(k.get<std::string>());
  }
}

void to_json(json& j, const CodeAction& a) {
  j = {{"title", a.title}, {"kind", a.kind}};
  if (!a.diagnostics.empty()) j["diagnostics"] = a.diagnostics;
  if (a.isPreferred) j["isPreferred"] = true;
  if (a.edit) j["edit"] = *a.edit;
  if (a.command) j["command"] = *a.command;
}

void from_json(const json& j, ExecuteCommandParams& p) {
  p.command = get<std::string>(j, "command");
  if (auto it = j.find("arguments"); it != j.end() && it->is_array()) p.arguments = *it;
}

void to_json(json& j, const ApplyWorkspaceEditParams& p) { j = {{"label", p.label}, {"edit", p.edit}}; }

void to_json(json& j, const Hover& h) {
  j = {{"contents", h.contents}};
  if (h.range) j["range"] = *h.range;
}

void to_json(json& j, const LogMessageParams& p) { j = {{"type", static_cast<int>(p.type)}, {"message", p.message}}; }

std::optional<std::filesystem::path> uriToPath(const std::string& uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size()) return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(uri[i])) != kScheme[i]) return std::nullopt;
  std::string rest = uri.substr(kScheme.size());
  // Drop an authority ("file://localhost/x"), keep the path.
  size_t slash = rest.find('/');
  if (slash == std::string::npos) return std::nullopt;
  rest = rest.substr(slash);
  std::string decoded;
  decoded.reserve(rest.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && hex(rest[i + 1]) >= 0 && hex(rest[i + 2]) >= 0) {
      decoded += static_cast<char>(hex(rest[i + 1]) * 16 + hex(rest[i + 2]));
      i += 2;
    } else {
      decoded += rest[i];
    }
  }
  if (decoded.find('\0') != std::string::npos) return std::nullopt;
  return std::filesystem::path(decoded);
}

std::string pathToUri(const std::filesystem::path& path) {
  std::string out = "file://";
  for (unsigned char c : path.generic_string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace ptlint::server

// LSP 3.17 structures, named as in the specification, each with from_json/to_json. This is the
// only header of the server whose API mentions JSON: the handlers (language_server.h) receive
// and return these structs. Only the fields ptlint reads or writes are modelled; unknown fields are
// ignored on input, and a missing required field is an InvalidParams error.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "server/position_encoding.h"

namespace ptlint::server {

using json = nlohmann::json;

// JSON-RPC and LSP error codes.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  RequestCancelled = -32800,
  ContentModified = -32801,
};

// Thrown by handlers (and by from_json) to answer a request with an error.
class LspError : public std::runtime_error {
 public:
  LspError(ErrorCode code, const std::string& message) : std::runtime_error(message), code(code) {}
  ErrorCode code;
};

// --- Basic structures -------------------------------------------------------------------------

using Position = LspPosition;
void from_json(const json& j, LspPosition& p);
void to_json(json& j, const LspPosition& p);

struct Range {
  Position start, end;
  friend bool operator==(const Range&, const Range&) = default;
};
void from_json(const json& j, Range& r);
void to_json(json& j, const Range& r);

struct Location {
  std::string uri;
  Range range;
};
void to_json(json& j, const Location& l);

struct TextDocumentIdentifier {
  std::string uri;
};
void from_json(const json& j, TextDocumentIdentifier& t);

struct VersionedTextDocumentIdentifier {
  std::string uri;
  std::optional<int> version;  // null: the file on disk
};
void from_json(const json& j, VersionedTextDocumentIdentifier& t);
void to_json(json& j, const VersionedTextDocumentIdentifier& t);

struct TextDocumentItem {
  std::string uri, languageId;
  int version = 0;
  std::string text;
};
void from_json(const json& j, TextDocumentItem& t);

struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};
void from_json(const json& j, TextDocumentPositionParams& p);
using HoverParams = TextDocumentPositionParams;

struct TextEdit {
  Range range;
  std::string newText;
};
void to_json(json& j, const TextEdit& e);

struct TextDocumentEdit {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextEdit> edits;
};
void to_json(json& j, const TextDocumentEdit& e);

// `documentChanges` when the client supports them (versioned: the client rejects an edit for a
// document that changed meanwhile), else `changes`.
struct WorkspaceEdit {
  std::optional<std::vector<TextDocumentEdit>> documentChanges;
  std::map<std::string, std::vector<TextEdit>> changes;
};
void to_json(json& j, const WorkspaceEdit& e);

struct Command {
  std::string title, command;
  json arguments = json::array();
};
void to_json(json& j, const Command& c);

struct MarkupContent {
  std::string kind = "markdown";
  std::string value;
};
void to_json(json& j, const MarkupContent& m);

// --- Lifecycle --------------------------------------------------------------------------------

struct WorkspaceFolder {
  std::string uri, name;
};
void from_json(const json& j, WorkspaceFolder& f);

// The client capabilities ptlint adapts to, flattened.
struct ClientCapabilities {
  std::vector<std::string> positionEncodings;  // general.positionEncodings
  bool pullDiagnostics = false;                 // textDocument.diagnostic
  bool diagnosticRefresh = false;               // workspace.diagnostics.refreshSupport
  bool workspaceConfiguration = false;          // workspace.configuration
  bool watchedFilesDynamicRegistration = false; // workspace.didChangeWatchedFiles.dynamicRegistration
  bool documentChanges = false;                 // workspace.workspaceEdit.documentChanges
  bool applyEdit = false;                       // workspace.applyEdit
  bool workDoneProgress = false;                // window.workDoneProgress
  bool relatedInformation = true;               // textDocument.publishDiagnostics.relatedInformation
};
void from_json(const json& j, ClientCapabilities& c);

struct InitializeParams {
  std::optional<std::string> rootUri;
  std::vector<WorkspaceFolder> workspaceFolders;
  json initializationOptions;
  ClientCapabilities capabilities;
};
void from_json(const json& j, InitializeParams& p);

// --- Settings ---------------------------------------------------------------------------------

// The `ptlint` settings section (docs/lsp.md). Unset fields keep their previous or default value.
struct ClientSettings {
  std::optional<std::vector<std::string>> select, ignore, extendSelect;
  std::optional<std::string> configuration;  // a config file used for every document instead of discovery
  std::optional<bool> unsafeFixes;
  std::optional<std::string> torchVersion;
  std::optional<bool> gpuCheck;
  std::optional<std::string> compileLog;  // a torch.compile log: path or glob, relative to the folder
  // Why a value was ignored ("setting `select` must be a list of strings, not a number"): one
  // line per bad field, for the server to show. Empty when every field was usable.
  std::vector<std::string> problems;
};
// Accepts the section itself or an object wrapping it under "ptlint"; null means "no settings".
// A value of the wrong JSON type is ignored field by field and named in `problems` (a client's
// bad setting must not take the server down, nor be dropped silently). Never throws.
void from_json(const json& j, ClientSettings& s);

struct DidChangeConfigurationParams {
  json settings;
};
void from_json(const json& j, DidChangeConfigurationParams& p);

struct ConfigurationItem {
  std::optional<std::string> scopeUri;
  std::string section = "ptlint";
};
struct ConfigurationParams {
  std::vector<ConfigurationItem> items;
};
void to_json(json& j, const ConfigurationParams& p);

struct WorkspaceFoldersChangeEvent {
  std::vector<WorkspaceFolder> added, removed;
};
struct DidChangeWorkspaceFoldersParams {
  WorkspaceFoldersChangeEvent event;
};
void from_json(const json& j, DidChangeWorkspaceFoldersParams& p);

struct FileEvent {
  std::string uri;
  int type = 2;  // 1 created, 2 changed, 3 deleted
};
struct DidChangeWatchedFilesParams {
  std::vector<FileEvent> changes;
};
void from_json(const json& j, DidChangeWatchedFilesParams& p);

// --- Text synchronisation ---------------------------------------------------------------------

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
};
void from_json(const json& j, DidOpenTextDocumentParams& p);

struct TextDocumentContentChangeEvent {
  std::optional<Range> range;  // absent: the whole text
  std::string text;
};
void from_json(const json& j, TextDocumentContentChangeEvent& e);

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};
void from_json(const json& j, DidChangeTextDocumentParams& p);

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier textDocument;
};
void from_json(const json& j, DidCloseTextDocumentParams& p);
using DidSaveTextDocumentParams = DidCloseTextDocumentParams;

// --- Diagnostics ------------------------------------------------------------------------------

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };
enum class DiagnosticTag { Unnecessary = 1, Deprecated = 2 };

struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
};

// `data` carries the fix, so that a client may show or apply it without asking again.
struct DiagnosticFixData {
  std::string applicability;  // "safe" | "unsafe" | "display-only"
  std::string message;
  std::vector<TextEdit> edits;
};

struct Diagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::Warning;
  std::string code;
  std::string source = "ptlint";
  std::string message;
  std::vector<DiagnosticTag> tags;
  std::vector<DiagnosticRelatedInformation> relatedInformation;
  std::optional<DiagnosticFixData> fix;
  std::optional<std::string> codeDescriptionHref;
};
void to_json(json& j, const Diagnostic& d);

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<int> version;
  std::vector<Diagnostic> diagnostics;
};
void to_json(json& j, const PublishDiagnosticsParams& p);
// What to_json(PublishDiagnosticsParams) writes, from diagnostics held elsewhere (not copied).
json publishDiagnosticsJson(const std::string& uri, std::optional<int> version, const std::vector<Diagnostic>& diagnostics);

struct DocumentDiagnosticParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> previousResultId;
};
void from_json(const json& j, DocumentDiagnosticParams& p);

// A full or unchanged report (`kind`), for one document or as an item of a workspace report.
struct DocumentDiagnosticReport {
  std::string kind = "full";
  std::string resultId;
  std::vector<Diagnostic> items;  // only for "full"
  // Workspace items only:
  std::optional<std::string> uri;
  std::optional<int> version;
  bool workspaceItem = false;
};
void to_json(json& j, const DocumentDiagnosticReport& r);

struct PreviousResultId {
  std::string uri, value;
};
struct WorkspaceDiagnosticParams {
  std::vector<PreviousResultId> previousResultIds;
  std::optional<json> workDoneToken;
};
void from_json(const json& j, WorkspaceDiagnosticParams& p);

struct WorkspaceDiagnosticReport {
  std::vector<DocumentDiagnosticReport> items;
};
void to_json(json& j, const WorkspaceDiagnosticReport& r);

// $/progress payloads.
struct WorkDoneProgress {
  std::string kind;  // "begin" | "report" | "end"
  std::string title, message;
  std::optional<int> percentage;
  bool cancellable = false;
};
void to_json(json& j, const WorkDoneProgress& p);

// --- Code actions, commands, hover ------------------------------------------------------------

struct CodeActionContext {
  std::optional<std::vector<std::string>> only;
};
struct CodeActionParams {
  TextDocumentIdentifier textDocument;
  Range range;
  CodeActionContext context;
};
void from_json(const json& j, CodeActionParams& p);

struct CodeAction {
  std::string title, kind;
  std::vector<Diagnostic> diagnostics;
  bool isPreferred = false;
  std::optional<WorkspaceEdit> edit;
  std::optional<Command> command;
};
void to_json(json& j, const CodeAction& a);

struct ExecuteCommandParams {
  std::string command;
  json arguments = json::array();
};
void from_json(const json& j, ExecuteCommandParams& p);

struct ApplyWorkspaceEditParams {
  std::string label;
  WorkspaceEdit edit;
};
void to_json(json& j, const ApplyWorkspaceEditParams& p);

struct Hover {
  MarkupContent contents;
  std::optional<Range> range;
};
void to_json(json& j, const Hover& h);

enum class MessageType { Error = 1, Warning = 2, Info = 3, Log = 4 };
struct LogMessageParams {
  MessageType type = MessageType::Log;
  std::string message;
};
void to_json(json& j, const LogMessageParams& p);

// --- URIs -------------------------------------------------------------------------------------

// `file:///a%20b/c.py` -> `/a b/c.py`; nullopt for other schemes (untitled:, ...).
std::optional<std::filesystem::path> uriToPath(const std::string& uri);
std::string pathToUri(const std::filesystem::path& path);

}  // namespace ptlint::server

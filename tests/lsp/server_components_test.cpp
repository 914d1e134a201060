// The server's parts in process, without the binary: dispatch, settings, the scheduler, the
// document analysis (and when it asks the project index), diagnostics conversion, code actions,
// fix-all, hover, workspace diagnostics and the project tracker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "server/code_actions.h"
#include "server/diagnostics.h"
#include "server/dispatcher.h"
#include "server/document_analysis.h"
#include "server/fix_all.h"
#include "server/hover.h"
#include "server/project_tracker.h"
#include "server/scheduler.h"
#include "server/server_settings.h"
#include "server/setting_names.h"
#include "server/workspace_diagnostics.h"

using namespace ptlint::server;
namespace fs = std::filesystem;

namespace {

constexpr const char* kAmpText =
    "import torch\n"
    "from torch.nn.parallel import DistributedDataParallel as DDP\n"
    "with torch.cuda.amp.autocast():\n"
    "    m = DDP(model, find_unused_parameters=True)\n";

std::shared_ptr<const DocumentSnapshot> snapshotOf(const std::string& uri, std::string text, uint64_t revision = 1) {
  auto snap = std::make_shared<DocumentSnapshot>();
  snap->uri = uri;
  snap->revision = revision;
  snap->version = static_cast<int>(revision);
  snap->lines = LineTable(text);
  snap->file = std::make_shared<const ptlint::analysis::ParsedFile>(ptlint::analysis::ParsedFile::parse(std::move(text)));
  return snap;
}

// What the server shows (`window/showMessage`) and what it only logs (type Log goes to
// `window/logMessage`, as LspServer routes it).
struct Messages {
  std::vector<std::pair<MessageType, std::string>> shown;
  std::vector<std::string> logged;
  std::mutex mutex;
  ServerSettings::Report report() {
    return [this](MessageType type, const std::string& m) {
      std::lock_guard lock(mutex);
      if (type == MessageType::Log) logged.push_back(m);
      else shown.emplace_back(type, m);
    };
  }
};

fs::path tempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-server-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::vector<std::string> codesOf(const AnalysisResult& result) {
  std::vector<std::string> codes;
  for (const auto& d : result.diagnostics) codes.push_back(d.code);
  return codes;
}

// --- Dispatcher -----------------------------------------------------------------------------------

// Runs frames through a dispatcher and returns every message it wrote.
class DispatcherHarness {
 public:
  DispatcherHarness() {
    EXPECT_EQ(::pipe(fds_), 0);
    transport_ = std::make_unique<Transport>(-1, fds_[1]);
    outbox_ = std::make_unique<Outbox>(*transport_);
    dispatcher_ = std::make_unique<Dispatcher>(*outbox_);
  }
  ~DispatcherHarness() {
    if (fds_[0] >= 0) ::close(fds_[0]);
  }
  Dispatcher& dispatcher() { return *dispatcher_; }
  void feed(const json& message) { dispatcher_->onFrame({true, message.dump(), ""}); }
  void feedRaw(std::string body) { dispatcher_->onFrame({true, std::move(body), ""}); }
  std::vector<json> finish() {
    dispatcher_.reset();
    outbox_->close();
    ::close(fds_[1]);
    std::string out;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds_[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(n));
    FrameParser parser;
    parser.feed(out);
    std::vector<json> messages;
    while (auto event = parser.next()) messages.push_back(json::parse(event->body));
    return messages;
  }

 private:
  int fds_[2] = {-1, -1};
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Outbox> outbox_;
  std::unique_ptr<Dispatcher> dispatcher_;
};

TEST(Dispatcher, LifecycleErrorsAndTypedHandlers) {
  DispatcherHarness h;
  h.dispatcher().bindRequest<TextDocumentIdentifier, json>(
      "test/echo", [](const TextDocumentIdentifier& p, Reply<json> reply) { reply(json{{"uri", p.uri}}); });
  h.feed({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "test/echo"}, {"params", {{"uri", "file:///a.py"}}}});
  h.dispatcher().markInitialized();
  h.feed({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "test/echo"}, {"params", {{"uri", "file:///a.py"}}}});
  h.feed({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "test/echo"}, {"params", {{"uri", 7}}}});
  h.feed({{"jsonrpc", "2.0"}, {"id", 4}, {"method", "test/unknown"}});
  h.feedRaw("{not json");
  h.dispatcher().markShutdown();
  h.feed({{"jsonrpc", "2.0"}, {"id", 5}, {"method", "test/echo"}, {"params", {{"uri", "file:///a.py"}}}});
  auto messages = h.finish();
  ASSERT_EQ(messages.size(), 6u);
  EXPECT_EQ(messages[0]["error"]["code"], -32002);  // before initialize
  EXPECT_EQ(messages[1]["result"]["uri"], "file:///a.py");
  EXPECT_EQ(messages[2]["error"]["code"], -32602);  // bad params
  EXPECT_EQ(messages[3]["error"]["code"], -32601);  // unknown method
  EXPECT_EQ(messages[4]["error"]["code"], -32700);  // not JSON
  EXPECT_EQ(messages[5]["error"]["code"], -32600);  // after shutdown
}

TEST(Dispatcher, CancelAnswersOnceAndDroppedRequestsAnswerInternalError) {
  DispatcherHarness h;
  std::optional<Reply<json>> kept;
  h.dispatcher().bindRequest<json, json>("test/slow", [&](const json&, Reply<json> reply) { kept = reply; });
  h.dispatcher().bindRequest<json, json>("test/forget", [](const json&, Reply<json>) {});
  h.dispatcher().markInitialized();
  h.feed({{"jsonrpc", "2.0"}, {"id", "s"}, {"method", "test/slow"}});
  h.feed({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", "s"}}}});
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->cancelled());
  (*kept)(json("late"));  // dropped: the cancellation answered
  h.feed({{"jsonrpc", "2.0"}, {"id", 9}, {"method", "test/forget"}});
  kept.reset();
  auto messages = h.finish();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0]["id"], "s");
  EXPECT_EQ(messages[0]["error"]["code"], -32800);
  EXPECT_EQ(messages[1]["id"], 9);
  EXPECT_EQ(messages[1]["error"]["code"], -32603);
}

TEST(Dispatcher, ServerRequestsGetTheirResponses) {
  DispatcherHarness h;
  h.dispatcher().markInitialized();
  json got;
  h.dispatcher().request("workspace/configuration", json::object(), [&](const json& result) { got = result; });
  h.feed({{"jsonrpc", "2.0"}, {"id", 1}, {"result", json::array({1, 2})}});
  EXPECT_EQ(got, json::array({1, 2}));
  auto messages = h.finish();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0]["method"], "workspace/configuration");
}

// --- Settings ---------------------------------------------------------------------------------------

TEST(ServerSettings, BadValuesAreNamedAndTheRestApplies) {
  Messages messages;
  ServerSettings settings(messages.report());
  InitializeParams params;
  params.rootUri = "file:///tmp/ptlint-no-such-project";
  params.initializationOptions = {{"select", {"PTL301", "PTL9999"}}, {"torchVersion", "banana"}};
  settings.initialize(params);
  ASSERT_EQ(messages.shown.size(), 2u);
  EXPECT_NE(messages.shown[0].second.find("PTL9999"), std::string::npos);
  EXPECT_NE(messages.shown[1].second.find("torchVersion"), std::string::npos);
  auto s = settings.settingsFor("file:///tmp/ptlint-no-such-project/a.py");
  EXPECT_EQ(s.select, std::vector<std::string>{"PTL301"});
  EXPECT_FALSE(settings.gpuCheckFor("file:///tmp/ptlint-no-such-project/a.py"));
}

TEST(ServerSettings, FolderSettingsWinAndEveryChangeBumpsTheGeneration) {
  Messages messages;
  ServerSettings settings(messages.report());
  InitializeParams params;
  params.workspaceFolders = {{"file:///tmp/ptlint-ws-a", "a"}, {"file:///tmp/ptlint-ws-b", "b"}};
  settings.initialize(params);
  uint64_t before = settings.generation();
  auto [request, keys] = settings.configurationRequest();
  ASSERT_EQ(request.items.size(), 3u);
  settings.applyConfiguration(keys, json::array({json{{"ignore", {"PTL101"}}}, json{{"gpuCheck", true}}, nullptr}));
  EXPECT_GT(settings.generation(), before);
  EXPECT_TRUE(settings.gpuCheckFor("file:///tmp/ptlint-ws-a/x.py"));
  EXPECT_FALSE(settings.gpuCheckFor("file:///tmp/ptlint-ws-b/x.py"));
  EXPECT_EQ(settings.settingsFor("file:///tmp/ptlint-ws-b/x.py").ignore, std::vector<std::string>{"PTL101"});
  before = settings.generation();
  settings.configFilesChanged();
  EXPECT_GT(settings.generation(), before);
  EXPECT_TRUE(messages.shown.empty());
}

TEST(ServerSettings, TheTorchRangeAndItsSourceAreLoggedOncePerRange) {
  fs::path dir = tempDir("torch-range");
  writeFile(dir / "ptlint.toml", "torch-version = \">=2.1\"\n");
  Messages messages;
  ServerSettings settings(messages.report());
  InitializeParams params;
  params.rootUri = "file://" + dir.string();
  settings.initialize(params);
  EXPECT_EQ(settings.settingsFor("file://" + (dir / "a.py").string()).torchRange().str(), ">=2.1");
  (void)settings.settingsFor("file://" + (dir / "b.py").string());
  ASSERT_EQ(messages.logged.size(), 1u);
  EXPECT_EQ(messages.logged[0],
            "ptlint: torch-version \">=2.1\" (PyTorch 2.1 to 2.14), from " + (dir / "ptlint.toml").string());
  EXPECT_TRUE(messages.shown.empty());
  fs::remove_all(dir);
}

TEST(ServerSettings, ABrokenConfigFileIsShownOnceAndTheEditorSettingsApply) {
  fs::path dir = tempDir("broken-config");
  writeFile(dir / "ptlint.toml", "select = [\n");
  Messages messages;
  ServerSettings settings(messages.report());
  InitializeParams params;
  params.rootUri = "file://" + dir.string();
  params.initializationOptions = {{"ignore", {"PTL101"}}};
  settings.initialize(params);
  auto s = settings.settingsFor("file://" + (dir / "a.py").string());
  settings.settingsFor("file://" + (dir / "b.py").string());
  EXPECT_EQ(s.ignore, std::vector<std::string>{"PTL101"});
  ASSERT_EQ(messages.shown.size(), 1u);
  EXPECT_EQ(messages.shown[0].first, MessageType::Error);
  fs::remove_all(dir);
}

// --- Diagnostics conversion ----------------------------------------------------------------------

TEST(Diagnostics, DeprecatedTagComesFromTheRuleMetadata) {
  auto snap = snapshotOf("file:///t.py", "x = 1\n");
  ptlint::rules::Diagnostic d;
  d.start = 0;
  d.end = 1;
  d.message = "m";
  for (const char* code : {"PTL101", "PTL105", "PTL107", "PTL301"}) {
    d.code = code;
    Diagnostic lsp = toLspDiagnostic(d, *snap, PositionEncoding::Utf16, true);
    bool tagged = !lsp.tags.empty() && lsp.tags[0] == DiagnosticTag::Deprecated;
    bool want = std::string_view(code) == "PTL101" || std::string_view(code) == "PTL105";
    EXPECT_EQ(tagged, want) << code;
  }
}

// The help stays out of the LSP diagnostic: the message alone, its docs link for the why.
TEST(Diagnostics, TheMessageAloneWithoutTheHelp) {
  auto snap = snapshotOf("file:///t.py", "y = torch.qr(a)\n");
  ptlint::rules::Diagnostic d;
  d.code = "PTL106";
  d.start = 4;
  d.end = 15;
  d.message = "`torch.qr` is deprecated; use `torch.linalg.qr` (judged for torch >=2.6)";
  d.help = "Deprecated since PyTorch 1.9.";
  Diagnostic lsp = toLspDiagnostic(d, *snap, PositionEncoding::Utf16, true);
  EXPECT_EQ(lsp.message, d.message);
  EXPECT_TRUE(lsp.relatedInformation.empty());
  json j = lsp;
  EXPECT_EQ(j.dump().find("Deprecated since"), std::string::npos) << j.dump();
}

TEST(Diagnostics, RangesInTheNegotiatedEncodingAndRelatedInformationInAnotherFile) {
  auto snap = snapshotOf("file:///t.py", "s = '😀'; x.item()\n");
  ptlint::rules::Diagnostic d;
  d.code = "PTL501";
  d.start = 12;  // after the emoji (4 bytes, 2 UTF-16 units)
  d.end = 13;
  ptlint::rules::RelatedInfo here{0, 1, "here"};
  ptlint::rules::RelatedInfo there;
  there.path = "/project/train.py";
  there.line = 7;
  there.column_utf16 = 12;
  there.column_bytes = 14;
  there.message = "`GPT` is compiled here";
  d.related = {here, there};
  Diagnostic utf16 = toLspDiagnostic(d, *snap, PositionEncoding::Utf16, true);
  EXPECT_EQ(utf16.range.start.character, 10u);
  ASSERT_EQ(utf16.relatedInformation.size(), 2u);
  EXPECT_EQ(utf16.relatedInformation[0].location.uri, "file:///t.py");
  EXPECT_EQ(utf16.relatedInformation[1].location.uri, "file:///project/train.py");
  EXPECT_EQ(utf16.relatedInformation[1].location.range.start, (Position{7, 12}));
  Diagnostic utf8 = toLspDiagnostic(d, *snap, PositionEncoding::Utf8, false);
  EXPECT_EQ(utf8.range.start.character, 12u);
  EXPECT_TRUE(utf8.relatedInformation.empty());  // the client does not read it
}

// --- Document analysis ---------------------------------------------------------------------------

TEST(DocumentAnalyzer, AsksTheProjectOnlyWhenARuleDoesAndReusesAnUnchangedResult) {
  Messages messages;
  ServerSettings settings(messages.report());
  settings.initialize(InitializeParams{});
  std::atomic<int> asked{0};
  auto facts = std::make_shared<ptlint::analysis::ProjectFacts>();
  facts->digest = "one";
  DocumentAnalyzer analyzer(settings, [&](const fs::path&) {
    ++asked;
    return std::shared_ptr<const ptlint::analysis::ProjectFacts>(facts);
  });
  analyzer.analyze(snapshotOf("file:///tmp/bare.py", "x = 1\ny = x + 1\n"));
  EXPECT_EQ(asked, 0);  // no cross-file question in this text: it imports nothing
  // A file that imports may call a helper another file defines (value flow follows it).
  auto plain = analyzer.analyze(snapshotOf("file:///tmp/plain.py", kAmpText));
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(codesOf(*plain), (std::vector<std::string>{"PTL101", "PTL301"}));

  auto snap = snapshotOf("file:///tmp/model.py", "import torch\n\ndef forward(x):\n    return x.sum().item()\n");
  auto first = analyzer.analyze(snap);
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(first->settings.project, facts);
  EXPECT_EQ(analyzer.analyze(snap, first), first);  // same text, settings and facts: reused
  auto other = std::make_shared<ptlint::analysis::ProjectFacts>();
  other->digest = "two";
  facts = other;
  EXPECT_NE(analyzer.analyze(snap, first), first);  // what the project says changed
}

// --- Scheduler -----------------------------------------------------------------------------------

struct Published {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::pair<uint64_t, ResultPtr>> list;
  void add(uint64_t seq, const ResultPtr& r) {
    std::lock_guard lock(mutex);
    list.emplace_back(seq, r);
    cv.notify_all();
  }
  bool waitFor(size_t n) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(20), [&] { return list.size() >= n; });
  }
};

TEST(Scheduler, PublishesTheNewestTextInOrderAndCoalescesBursts) {
  DocumentStore docs;
  Published published;
  std::mutex gate;  // held by the test to keep the first analysis running
  std::unique_lock hold(gate);
  std::atomic<int> runs{0};
  Scheduler scheduler(
      docs,
      [&](const std::shared_ptr<const DocumentSnapshot>& snap, const ResultPtr&) {
        if (runs++ == 0) {
          std::lock_guard wait(gate);  // released by the test
        }
        auto r = std::make_shared<AnalysisResult>();
        r->snapshot = snap;
        return ResultPtr(r);
      },
      [&](const std::string&, uint64_t seq, const ResultPtr& r) { published.add(seq, r); }, [] { return 0; }, 2);
  docs.open("file:///a.py", 1, "a = 1\n");
  scheduler.opened("file:///a.py");
  for (int v = 2; v <= 5; ++v) {
    docs.change("file:///a.py", v, {TextDocumentContentChangeEvent{std::nullopt, "a = " + std::to_string(v) + "\n"}},
                PositionEncoding::Utf16);
    scheduler.schedule("file:///a.py");
  }
  hold.unlock();  // the first analysis (of version 1) finishes stale: it is not published
  ASSERT_TRUE(published.waitFor(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::lock_guard lock(published.mutex);
  ASSERT_EQ(published.list.size(), 1u);
  EXPECT_EQ(published.list[0].second->snapshot->version, 5);
  EXPECT_LE(runs.load(), 2);  // version 1, then once for versions 2-5
}

TEST(Scheduler, WaitersGetTheFreshResultOrNothingWhenClosed) {
  DocumentStore docs;
  Published published;
  Scheduler scheduler(
      docs,
      [&](const std::shared_ptr<const DocumentSnapshot>& snap, const ResultPtr& previous) {
        if (previous && previous->snapshot->revision == snap->revision) return previous;
        auto r = std::make_shared<AnalysisResult>();
        r->snapshot = snap;
        return ResultPtr(r);
      },
      [&](const std::string&, uint64_t seq, const ResultPtr& r) { published.add(seq, r); }, [] { return 0; }, 2);
  docs.open("file:///b.py", 3, "b = 1\n");
  scheduler.opened("file:///b.py");
  std::promise<ResultPtr> got;
  scheduler.whenAnalyzed("file:///b.py", Scheduler::Pool::Analysis, [&](ResultPtr r) { got.set_value(r); });
  auto result = got.get_future().get();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->snapshot->version, 3);
  // Analysed again with nothing changed: the same result, not published twice.
  ASSERT_TRUE(published.waitFor(1));
  scheduler.schedule("file:///b.py");
  std::promise<ResultPtr> again;
  scheduler.whenAnalyzed("file:///b.py", Scheduler::Pool::Heavy, [&](ResultPtr r) { again.set_value(r); });
  EXPECT_EQ(again.get_future().get(), result);
  {
    std::lock_guard lock(published.mutex);
    EXPECT_EQ(published.list.size(), 1u);
  }
  uint64_t last = published.list[0].first;
  EXPECT_GT(scheduler.closed("file:///b.py"), last);  // the clearing list outranks every result
  std::promise<ResultPtr> closed;
  scheduler.whenAnalyzed("file:///b.py", Scheduler::Pool::Analysis, [&](ResultPtr r) { closed.set_value(r); });
  EXPECT_EQ(closed.get_future().get(), nullptr);
}

// --- Code actions, fix-all, hover ---------------------------------------------------------------

ResultPtr analyzed(const std::string& text, bool unsafe_fixes = false) {
  Messages messages;
  ServerSettings settings(messages.report());
  InitializeParams params;
  if (unsafe_fixes) params.initializationOptions = {{"unsafeFixes", true}};
  settings.initialize(params);
  DocumentAnalyzer analyzer(settings, nullptr);
  return analyzer.analyze(snapshotOf("file:///tmp/ca.py", text));
}

TEST(CodeActions, QuickfixesNoqaAndUnsafeFixesOnlyWhenAllowed) {
  auto result = analyzed(kAmpText);
  CodeActionProvider provider({PositionEncoding::Utf16, false});
  uint32_t line3 = static_cast<uint32_t>(std::string_view(kAmpText).find("with"));
  auto fixes = provider.quickfixes(*result, line3 + 10, line3 + 10, nullptr);
  ASSERT_EQ(fixes.actions.size(), 2u);
  EXPECT_EQ(fixes.actions[0].title.rfind("PTL101: ", 0), 0u);
  EXPECT_TRUE(fixes.actions[0].isPreferred);
  EXPECT_EQ(fixes.actions[1].title, "PTL101: Disable for this line");
  EXPECT_TRUE(fixes.any_safe_fix);
  uint32_t ddp = static_cast<uint32_t>(std::string_view(kAmpText).find("find_unused"));
  auto safe_only = provider.quickfixes(*result, ddp, ddp, nullptr);
  ASSERT_EQ(safe_only.actions.size(), 2u);  // the unsafe fix is offered without unsafeFixes too
  EXPECT_NE(safe_only.actions[0].title.find("(unsafe)"), std::string::npos);
  EXPECT_FALSE(safe_only.actions[0].isPreferred);
  EXPECT_EQ(safe_only.actions[1].title, "PTL301: Disable for this line");
  auto with_unsafe = CodeActionProvider({PositionEncoding::Utf16, true}).quickfixes(*analyzed(kAmpText, true), ddp, ddp, nullptr);
  ASSERT_EQ(with_unsafe.actions.size(), 2u);
  EXPECT_NE(with_unsafe.actions[0].title.find("(unsafe)"), std::string::npos);
  EXPECT_FALSE(with_unsafe.actions[0].isPreferred);
  EXPECT_TRUE(with_unsafe.actions[0].edit->documentChanges.has_value());
  // A verdict that withdraws the fix leaves the noqa action.
  auto withdrawn = provider.quickfixes(*result, line3 + 10, line3 + 10,
                                       [](const ptlint::rules::Diagnostic&, std::string&) { return false; });
  ASSERT_EQ(withdrawn.actions.size(), 1u);
  EXPECT_TRUE(kindRequested(std::vector<std::string>{"source.fixAll"}, kFixAllKind));
  EXPECT_FALSE(kindRequested(std::vector<std::string>{"quickfix"}, kFixAllKind));
}

TEST(FixAll, OneMinimalEditToTheFixpointAndCancellable) {
  auto result = analyzed(kAmpText);
  auto edit = FixAll(PositionEncoding::Utf16).edit(*result, [] { return false; });
  ASSERT_TRUE(edit);
  EXPECT_EQ(edit->range.start.line, 2u);
  EXPECT_NE(edit->newText.find("\"cuda\""), std::string::npos) << edit->newText;
  EXPECT_THROW(FixAll(PositionEncoding::Utf16).edit(*result, [] { return true; }), LspError);
  // minimalEdit never cuts a UTF-8 sequence or a CRLF pair.
  auto e = minimalEdit("a\xC3\xA9z", "a\xC3\xA8z");
  EXPECT_EQ(e.start, 1u);
  EXPECT_EQ(e.end, 3u);
  auto crlf = minimalEdit("a\r\nb", "a\nb");
  EXPECT_EQ(crlf.start, 1u);
}

TEST(Hover, ShowsTheRuleOnlyOnANoqaCode) {
  std::string text = std::string(kAmpText) + "y = 1  # noqa: PTL301\n";
  auto result = analyzed(text);
  HoverProvider hover(PositionEncoding::Utf16);
  EXPECT_FALSE(hover.hover(*result, Position{2, 12}));  // inside a finding: other servers' hover
  auto on_noqa = hover.hover(*result, Position{4, 17});
  ASSERT_TRUE(on_noqa);
  EXPECT_EQ(on_noqa->contents.value.rfind("**PTL301**", 0), 0u);
  EXPECT_FALSE(hover.hover(*result, Position{0, 1}));
}

// --- Workspace diagnostics and the project tracker -------------------------------------------------

constexpr const char* kModel =
    "import torch.nn as nn\n\n"
    "class GPT(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x.sum().item()\n";
constexpr const char* kTrain =
    "import torch\nfrom model import GPT\n\n"
    "def main():\n"
    "    model = torch.compile(GPT())\n";

TEST(WorkspaceDiagnostics, OpenBuffersAtTheirVersionFilesOnDiskThroughTheEngine) {
  fs::path dir = tempDir("workspace");
  writeFile(dir / "a.py", kAmpText);
  writeFile(dir / "b.py", "x = 1\n");
  fs::create_directories(dir / "broken");
  writeFile(dir / "broken" / "ptlint.toml", "select = [\n");
  writeFile(dir / "broken" / "c.py", kAmpText);
  Messages messages;
  ServerSettings settings(messages.report());
  InitializeParams params;
  params.rootUri = "file://" + dir.string();
  settings.initialize(params);
  DocumentStore docs;
  docs.open("file://" + (dir / "b.py").string(), 7, kAmpText);  // unsaved: differs from disk
  DocumentAnalyzer analyzer(settings, nullptr);
  WorkspaceDiagnostics pass(docs, settings, analyzer, [](const fs::path&) { return std::nullopt; });
  WorkDoneReporter progress([](const json&, const WorkDoneProgress&) {}, std::nullopt);
  WorkspaceDiagnostics::Pass request{settings.folders(), settings.walkResolver(), {}, settings.generation()};
  auto report = pass.run(request, [] { return false; }, progress);
  ASSERT_TRUE(report);
  // broken/c.py fails alone (its config file is invalid); the other files are still reported.
  ASSERT_EQ(report->items.size(), 2u);
  EXPECT_EQ(report->items[0].items.size(), 2u);  // a.py on disk
  EXPECT_EQ(report->items[1].version, 7);
  EXPECT_EQ(report->items[1].items.size(), 2u);  // b.py as in the editor
  request.previous[*report->items[0].uri] = report->items[0].resultId;
  auto again = pass.run(request, [] { return false; }, progress);
  EXPECT_EQ(again->items[0].kind, "unchanged");
  EXPECT_EQ(again->items[1].kind, "full");
  EXPECT_FALSE(pass.run(request, [] { return true; }, progress));  // cancelled
  fs::remove_all(dir);
}

TEST(WorkspaceDiagnostics, UnsavedBuffersDecideWhatFilesOnDiskReport) {
  fs::path dir = tempDir("workspace-cross");
  writeFile(dir / "pyproject.toml", "");
  writeFile(dir / "model.py", kModel);
  writeFile(dir / "train.py", kTrain);
  Messages messages;
  ServerSettings settings(messages.report());
  InitializeParams params;
  params.rootUri = "file://" + dir.string();
  settings.initialize(params);
  DocumentStore docs;
  DocumentAnalyzer analyzer(settings, nullptr);
  WorkDoneReporter progress([](const json&, const WorkDoneProgress&) {}, std::nullopt);
  WorkspaceDiagnostics::Pass request{settings.folders(), settings.walkResolver(), {}, settings.generation()};
  auto modelFindings = [&](WorkspaceDiagnostics::Overlay overlay) {
    WorkspaceDiagnostics pass(docs, settings, analyzer, std::move(overlay));
    auto report = pass.run(request, [] { return false; }, progress);
    for (const auto& item : report->items)
      if (item.uri == "file://" + (dir / "model.py").string()) return item.items.size();
    return size_t{99};
  };
  EXPECT_EQ(modelFindings([](const fs::path&) { return std::nullopt; }), 1u);  // PTL501: compiled in train.py
  fs::path train = dir / "train.py";
  EXPECT_EQ(modelFindings([&](const fs::path& p) -> std::optional<std::string> {
              if (p == train) return std::string("from model import GPT\nmodel = GPT()\n");
              return std::nullopt;
            }),
            0u);
  fs::remove_all(dir);
}

TEST(ProjectTracker, UnsavedBuffersCountAndAStaleProjectIsLinkedAgainAfterAQuietPeriod) {
  fs::path dir = tempDir("tracker");
  writeFile(dir / "pyproject.toml", "");
  writeFile(dir / "model.py", kModel);
  writeFile(dir / "train.py", kTrain);
  DocumentStore docs;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<fs::path> changed;
  ProjectTracker tracker(
      docs,
      [&](const std::vector<fs::path>& files) {
        std::lock_guard lock(mutex);
        changed.insert(changed.end(), files.begin(), files.end());
        cv.notify_all();
      },
      std::chrono::milliseconds(50));
  auto compiled = [&] { return tracker.factsFor(dir / "model.py")->compiled.size(); };
  EXPECT_EQ(compiled(), 1u);  // GPT.forward, compiled in train.py (on disk)

  // An unsaved train.py that compiles nothing: stale until linked again.
  std::string uri = "file://" + (dir / "train.py").string();
  std::string no_compile = "import torch\nfrom model import GPT\n\ndef main():\n    model = GPT()\n";
  docs.open(uri, 1, no_compile);
  tracker.opened(uri);
  tracker.textAnalysed(uri, no_compile);
  EXPECT_EQ(compiled(), 1u);  // the previous link answers meanwhile
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return !changed.empty(); }));
    EXPECT_EQ(changed, std::vector<fs::path>{dir / "model.py"});
    changed.clear();
  }
  EXPECT_EQ(compiled(), 0u);
  uint64_t epoch = tracker.epoch();
  EXPECT_GT(epoch, 0u);

  // A text that cannot change the project (not one of its modules, no compile word) leaves it.
  std::string other = "file://" + (dir / "util.py").string();
  docs.open(other, 1, "x = 1\n");
  tracker.opened(other);
  tracker.textAnalysed(other, "x = 1\n");
  // Closing train.py brings the file on disk back.
  docs.close(uri);
  tracker.closed(uri);
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return !changed.empty(); }));
    EXPECT_EQ(changed, std::vector<fs::path>{dir / "model.py"});
  }
  EXPECT_EQ(compiled(), 1u);
  EXPECT_EQ(tracker.epoch(), epoch + 1);
  tracker.stop();
  fs::remove_all(dir);
}

TEST(ProjectTracker, FilesThatComeGoOrChangeOnDiskRelinkUnlessTheirBufferIsOpen) {
  fs::path dir = tempDir("tracker_disk");
  writeFile(dir / "pyproject.toml", "");
  writeFile(dir / "model.py", "def helper(x):\n    return x.item()\n");
  writeFile(dir / "train.py", "import torch\nfrom utils import helper\nf = torch.compile(helper)\n");
  DocumentStore docs;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<fs::path> changed;
  ProjectTracker tracker(
      docs,
      [&](const std::vector<fs::path>& files) {
        std::lock_guard lock(mutex);
        changed.insert(changed.end(), files.begin(), files.end());
        cv.notify_all();
      },
      std::chrono::milliseconds(50));
  auto relinked = [&] {
    std::unique_lock lock(mutex);
    bool any = cv.wait_for(lock, std::chrono::seconds(20), [&] { return !changed.empty(); });
    auto files = std::move(changed);
    changed.clear();
    return any ? files : std::vector<fs::path>{};
  };
  auto compiled = [&] { return tracker.factsFor(dir / "model.py")->compiled.size(); };
  auto uri = [&](const char* name) { return "file://" + (dir / name).string(); };
  EXPECT_EQ(compiled(), 0u);  // `utils` does not exist: nothing known to be compiled

  writeFile(dir / "utils.py", "from model import helper\n");  // a module no import found before
  tracker.diskChanged(uri("utils.py"), 1);
  EXPECT_EQ(relinked(), std::vector<fs::path>{dir / "model.py"});
  EXPECT_EQ(compiled(), 1u);

  fs::remove(dir / "utils.py");
  tracker.diskChanged(uri("utils.py"), 3);
  EXPECT_EQ(relinked(), std::vector<fs::path>{dir / "model.py"});
  EXPECT_EQ(compiled(), 0u);

  // A changed file whose new text cannot change the facts is not worth a link.
  uint64_t epoch = tracker.epoch();
  writeFile(dir / "notes.py", "x = 1\n");
  tracker.diskChanged(uri("notes.py"), 2);
  // An open buffer wins over the disk: its file changing there changes nothing.
  writeFile(dir / "utils.py", "from model import helper\n");
  docs.open(uri("utils.py"), 1, "x = 1\n");
  tracker.opened(uri("utils.py"));
  tracker.diskChanged(uri("utils.py"), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_EQ(tracker.epoch(), epoch);
  EXPECT_EQ(compiled(), 0u);

  // An unsaved new module (not on disk) is found by the import that names it.
  docs.close(uri("utils.py"));
  tracker.closed(uri("utils.py"));
  EXPECT_EQ(relinked(), std::vector<fs::path>{dir / "model.py"});  // the file on disk counts again
  fs::remove(dir / "utils.py");
  tracker.diskChanged(uri("utils.py"), 3);
  EXPECT_EQ(relinked(), std::vector<fs::path>{dir / "model.py"});
  docs.open(uri("utils.py"), 1, "def helper(x):\n    return x.tolist()\n");
  tracker.opened(uri("utils.py"));
  EXPECT_EQ(relinked(), std::vector<fs::path>{dir / "utils.py"});
  EXPECT_EQ(tracker.factsFor(dir / "utils.py")->compiled.size(), 1u);
  tracker.stop();
  fs::remove_all(dir);
}

}  // namespace

// --- Settings names --------------------------------------------------------------------------------

TEST(SettingNames, AnUnknownKeyIsNamedWithTheClosestKnownOne) {
  using ptlint::server::closestSettingName;
  using ptlint::server::unknownSettingProblem;
  EXPECT_EQ(closestSettingName("unsafeFix"), "unsafeFixes");
  EXPECT_EQ(closestSettingName("unsafe_fixes"), "unsafeFixes");
  EXPECT_EQ(closestSettingName("torchversion"), "torchVersion");
  EXPECT_EQ(closestSettingName("lint.extendSelect"), "extendSelect");
  EXPECT_EQ(closestSettingName("ptlint.select"), "select");
  EXPECT_EQ(closestSettingName("selec"), "select");
  EXPECT_FALSE(closestSettingName("banana"));
  EXPECT_FALSE(closestSettingName(std::string(100000, 'x')));
  EXPECT_EQ(unknownSettingProblem("gpucheck"), "unknown setting `gpucheck` (did you mean `gpuCheck`?); it was ignored");
  EXPECT_EQ(unknownSettingProblem("banana"), "unknown setting `banana`; it was ignored");
}

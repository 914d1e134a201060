// Unit tests of the server's layers that need no process: framing, position encodings, and
// incremental document sync (text and tree against a fresh parse).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <thread>
#include <random>

#include <fcntl.h>
#include <unistd.h>

#include "server/document_store.h"
#include "server/json_text.h"
#include "server/outbox.h"
#include "server/position_encoding.h"
#include "server/protocol.h"
#include "server/transport.h"

using namespace ptlint::server;

namespace {

std::string frame(std::string_view body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

std::vector<FrameParser::Event> drain(FrameParser& parser) {
  std::vector<FrameParser::Event> out;
  while (auto event = parser.next()) out.push_back(*event);
  return out;
}

TEST(FrameParser, SplitsFramesFedByteByByte) {
  FrameParser parser;
  std::string stream = frame("{\"a\":1}") + frame("{\"é\":\"😀\"}");
  std::vector<FrameParser::Event> events;
  for (char c : stream) {
    parser.feed(std::string_view(&c, 1));
    for (auto& e : drain(parser)) events.push_back(e);
  }
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[0].ok);
  EXPECT_EQ(events[0].body, "{\"a\":1}");
  EXPECT_EQ(events[1].body, "{\"é\":\"😀\"}");
}

TEST(FrameParser, AcceptsOtherHeadersAndAnyCase) {
  FrameParser parser;
  parser.feed("content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}");
  auto events = drain(parser);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].ok);
  EXPECT_EQ(events[0].body, "{}");
}

TEST(FrameParser, RejectsBadHeadersAndResynchronises) {
  FrameParser parser;
  parser.feed("Content-Length: x1\r\n\r\ngarbage{}garbage" + frame("{\"ok\":true}"));
  auto events = drain(parser);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[0].ok);
  EXPECT_TRUE(events[1].ok);
  EXPECT_EQ(events[1].body, "{\"ok\":true}");
}

TEST(FrameParser, MissingContentLengthIsAnError) {
  FrameParser parser;
  parser.feed("X-Thing: 1\r\n\r\n" + frame("{}"));
  auto events = drain(parser);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[0].ok);
  EXPECT_EQ(events[1].body, "{}");
}

TEST(FrameParser, OversizedBodyIsSkippedAndNextFrameServed) {
  FrameParser parser(/*max_message_bytes=*/16);
  parser.feed(frame(std::string(100, 'x')));
  parser.feed(frame("{}"));
  auto events = drain(parser);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[0].ok);
  EXPECT_NE(events[0].error.find("exceeds"), std::string::npos);
  EXPECT_TRUE(events[1].ok);
  EXPECT_EQ(events[1].body, "{}");
}

TEST(FrameParser, EndlessHeaderIsCut) {
  FrameParser parser;
  parser.feed(std::string(kMaxHeaderBytes + 10, 'h'));
  auto events = drain(parser);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_FALSE(events[0].ok);
  parser.feed(frame("{}"));
  events = drain(parser);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].body, "{}");
}

TEST(PositionEncoding, Utf16CountsSurrogatePairs) {
  std::string text = "a = \"é中😀\"\nx";
  LineTable lines(text);
  // 'a',' ','=',' ','"' = 5; é = 1; 中 = 1; 😀 = 2.
  EXPECT_EQ(toOffset(text, lines, {0, 5}, PositionEncoding::Utf16), 5u);
  EXPECT_EQ(toOffset(text, lines, {0, 6}, PositionEncoding::Utf16), 7u);   // after é (2 bytes)
  EXPECT_EQ(toOffset(text, lines, {0, 7}, PositionEncoding::Utf16), 10u);  // after 中 (3 bytes)
  EXPECT_EQ(toOffset(text, lines, {0, 8}, PositionEncoding::Utf16), 10u);  // inside the pair: its start
  EXPECT_EQ(toOffset(text, lines, {0, 9}, PositionEncoding::Utf16), 14u);  // after 😀 (4 bytes)
  EXPECT_EQ(toPosition(text, lines, 14, PositionEncoding::Utf16), (LspPosition{0, 9}));
  EXPECT_EQ(toPosition(text, lines, 12, PositionEncoding::Utf16), (LspPosition{0, 7}));  // mid-sequence
  EXPECT_EQ(toPosition(text, lines, 14, PositionEncoding::Utf8), (LspPosition{0, 14}));
}

TEST(PositionEncoding, ClampsOutOfRange) {
  std::string text = "ab\r\ncd";
  LineTable lines(text);
  EXPECT_EQ(toOffset(text, lines, {0, 99}, PositionEncoding::Utf16), 2u);  // before "\r\n"
  EXPECT_EQ(toOffset(text, lines, {7, 0}, PositionEncoding::Utf16), 6u);
  EXPECT_EQ(toPosition(text, lines, 3, PositionEncoding::Utf16), (LspPosition{0, 2}));  // between \r and \n
  EXPECT_EQ(toPosition(text, lines, 999, PositionEncoding::Utf16), (LspPosition{1, 2}));
}

TEST(PositionEncoding, LoneCarriageReturnEndsALine) {
  std::string text = "a\rb\r\nc\nd";
  LineTable lines(text);
  EXPECT_EQ(lines.lineCount(), 4u);
  EXPECT_EQ(toOffset(text, lines, {1, 0}, PositionEncoding::Utf16), 2u);
  EXPECT_EQ(toOffset(text, lines, {2, 0}, PositionEncoding::Utf16), 5u);
  EXPECT_EQ(toOffset(text, lines, {3, 1}, PositionEncoding::Utf16), 8u);
}

TEST(Uri, RoundTripsPercentEncoding) {
  auto path = uriToPath("file:///tmp/a%20b/%C3%A9.py");
  ASSERT_TRUE(path);
  EXPECT_EQ(path->string(), "/tmp/a b/é.py");
  EXPECT_EQ(pathToUri(*path), "file:///tmp/a%20b/%C3%A9.py");
  EXPECT_FALSE(uriToPath("untitled:Untitled-1"));
}

// Random edits through the store equal the same edits on a plain string, and the incrementally
// re-parsed tree equals a fresh parse, including with several changes per notification.
TEST(DocumentStore, RandomEditsMatchFreshParse) {
  const std::vector<std::string> pieces = {"é", "中", "😀", "\n", "\r\n", "(", ")", "torch.cuda.amp.autocast()",
                                           "with ", ":", "    ", "x", "#", "\"", "import torch\n", ""};
  std::mt19937 rng(12345);
  for (int round = 0; round < 20; ++round) {
    DocumentStore store;
    std::string text = "import torch\nwith torch.cuda.amp.autocast():  # é\n    pass\n";
    store.open("file:///t.py", 1, text);
    for (int step = 0; step < 40; ++step) {
      std::vector<TextDocumentContentChangeEvent> changes;
      int n = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) {
        // Pick byte offsets on code point boundaries (what a client can name).
        auto boundary = [&](uint32_t at) {
          while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
          if (at > 0 && at < text.size() && text[at - 1] == '\r' && text[at] == '\n') --at;
          return at;
        };
        uint32_t a = boundary(static_cast<uint32_t>(rng() % (text.size() + 1)));
        uint32_t b = boundary(std::min<uint32_t>(static_cast<uint32_t>(text.size()), a + rng() % 8));
        if (b < a) b = a;
        std::string insert = pieces[rng() % pieces.size()];
        LineTable lines(text);
        TextDocumentContentChangeEvent change;
        change.range = Range{toPosition(text, lines, a, PositionEncoding::Utf16), toPosition(text, lines, b, PositionEncoding::Utf16)};
        change.text = insert;
        text.replace(a, b - a, insert);
        changes.push_back(change);
      }
      ASSERT_EQ(store.change("file:///t.py", step + 2, changes, PositionEncoding::Utf16), DocumentStore::ChangeResult::Applied);
      if (rng() % 3 == 0 || step == 39) {  // parse only sometimes: several notifications fold into one edit
        auto snap = store.snapshot("file:///t.py");
        ASSERT_EQ(std::string(snap->text()), text) << "round " << round << " step " << step;
        auto fresh = ptlint::analysis::ParsedFile::parse(text);
        char* a = ts_node_string(snap->file->root());
        char* b = ts_node_string(fresh.root());
        EXPECT_STREQ(a, b) << "round " << round << " step " << step;
        std::free(a);
        std::free(b);
      }
    }
  }
}

TEST(JsonText, LoneSurrogateEscapesBecomeReplacementCharacters) {
  std::string text = R"({"a": "x\ud800y", "b": "\udc00", "c": "\ud83d\ude00", "d": "\\ud800", "e": "\uD800\u0041"})";
  EXPECT_EQ(replaceLoneSurrogateEscapes(text), 3u);
  EXPECT_EQ(text, R"({"a": "x\ufffdy", "b": "\ufffd", "c": "\ud83d\ude00", "d": "\\ud800", "e": "\ufffd\u0041"})");
  json parsed = json::parse(text);
  EXPECT_EQ(parsed["a"].get<std::string>(), "x\xEF\xBF\xBDy");
  EXPECT_EQ(parsed["c"].get<std::string>(), "\xF0\x9F\x98\x80");  // a well-formed pair is kept
  EXPECT_EQ(parsed["d"].get<std::string>(), "\\ud800");             // an escaped backslash is not an escape
  std::string plain = R"({"k": "\u00e9 \n"})";
  EXPECT_EQ(replaceLoneSurrogateEscapes(plain), 0u);
}

TEST(JsonText, FindsAStringMemberInBrokenJson) {
  EXPECT_EQ(findStringMember(R"({"textDocument": {"uri" : "file:///a.py", "version": 2}, "text": "unterminated)", "uri"),
            "file:///a.py");
  EXPECT_EQ(findStringMember(R"({"uri": 5})", "uri"), std::nullopt);
  EXPECT_EQ(findStringMember(R"({"x": 1})", "uri"), std::nullopt);
}

TEST(DocumentStore, OutOfSyncRefusesIncrementalEditsUntilTheWholeText) {
  DocumentStore store;
  store.open("file:///t.py", 1, "a = 1\n");
  EXPECT_TRUE(store.markOutOfSync("file:///t.py"));
  EXPECT_FALSE(store.markOutOfSync("file:///t.py"));
  TextDocumentContentChangeEvent edit{Range{{0, 4}, {0, 5}}, "2"};
  EXPECT_EQ(store.change("file:///t.py", 2, {edit}, PositionEncoding::Utf16), DocumentStore::ChangeResult::IgnoredOutOfSync);
  EXPECT_FALSE(store.snapshot("file:///t.py")->in_sync);
  EXPECT_EQ(store.snapshot("file:///t.py")->text(), "a = 1\n");
  TextDocumentContentChangeEvent whole{std::nullopt, "b = 1\n"};
  EXPECT_EQ(store.change("file:///t.py", 3, {edit, whole, edit}, PositionEncoding::Utf16), DocumentStore::ChangeResult::Applied);
  auto snap = store.snapshot("file:///t.py");
  EXPECT_TRUE(snap->in_sync);
  EXPECT_EQ(snap->text(), "b = 2\n");  // the edit after the whole text applies; the one before does not
}

// An outbox on a pipe whose writer is held up: the first message is larger than the pipe holds
// and nobody reads until `drain`, so what is posted meanwhile waits in the queue.
class StalledOutbox {
 public:
  StalledOutbox() {
    EXPECT_EQ(::pipe(fds_), 0);
    transport_ = std::make_unique<Transport>(-1, fds_[1]);
    outbox_ = std::make_unique<Outbox>(*transport_);
    outbox_->post(big_);
    for (int i = 0; i < 500 && outbox_->queued() > 0; ++i) usleep(2000);  // the writer took it and blocks
    EXPECT_EQ(outbox_->queued(), 0u);
  }
  Outbox& operator*() { return *outbox_; }
  Outbox* operator->() { return outbox_.get(); }
  // Reads everything while the outbox writes what it holds and stops; the stream after the first.
  std::string drain() {
    std::string out;
    std::thread reader([&] {
      char buffer[65536];
      for (ssize_t n; (n = ::read(fds_[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(n));
    });
    outbox_->close();
    outbox_.reset();
    transport_.reset();
    ::close(fds_[1]);
    reader.join();
    ::close(fds_[0]);
    EXPECT_EQ(out.substr(0, frame(big_).size()), frame(big_));
    return out.substr(std::min(out.size(), frame(big_).size()));
  }

 private:
  int fds_[2] = {-1, -1};
  std::string big_ = std::string(256 * 1024, 'x');
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Outbox> outbox_;
};

TEST(Outbox, WritesInOrderAndDropsOlderPublications) {
  StalledOutbox outbox;
  outbox->post("one");
  EXPECT_TRUE(outbox->publish("u", 5, "u5"));
  EXPECT_FALSE(outbox->publish("u", 4, "u4"));  // an older result after a newer one
  EXPECT_TRUE(outbox->publish("v", 1, "v1"));
  outbox->post("two");
  EXPECT_EQ(outbox.drain(), frame("one") + frame("u5") + frame("v1") + frame("two"));
}

TEST(Outbox, KeepsOnlyTheNewestOfWhatSupersedesWhileTheClientDoesNotRead) {
  StalledOutbox outbox;
  EXPECT_TRUE(outbox->publish("u", 1, "u1"));
  outbox->post("response 1");
  outbox->postLatest("$/progress 7", "report 10%");
  for (uint64_t seq = 2; seq <= 1000; ++seq) EXPECT_TRUE(outbox->publish("u", seq, "u" + std::to_string(seq)));
  EXPECT_TRUE(outbox->publish("v", 1001, "v1001"));
  outbox->postLatest("$/progress 7", "report 90%");
  outbox->postLatest("workspace/diagnostic/refresh", "refresh 1");
  outbox->postLatest("workspace/diagnostic/refresh", "refresh 2");
  outbox->post("response 2");
  EXPECT_EQ(outbox->queued(), 6u);  // one publication per document, one report, one refresh, both responses
  EXPECT_EQ(outbox.drain(), frame("u1000") + frame("response 1") + frame("report 90%") + frame("v1001") +
                                frame("refresh 2") + frame("response 2"));
}

TEST(Outbox, DropsLogMessagesPastItsBudgetButNeverResponses) {
  StalledOutbox outbox;
  std::string log(Outbox::kDroppableBudget / 4, 'l');
  for (int i = 0; i < 10; ++i) outbox->postDroppable(log);
  for (int i = 0; i < 10; ++i) outbox->post(std::string(Outbox::kDroppableBudget / 4, 'r'));
  EXPECT_EQ(outbox->dropped(), 6u);
  std::string out = outbox.drain();
  EXPECT_EQ(out.size(), 14 * frame(log).size());
  EXPECT_EQ(out.substr(out.size() - frame(log).size()), frame(std::string(log.size(), 'r')));
}

}  // namespace

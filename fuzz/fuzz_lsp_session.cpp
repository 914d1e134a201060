// Target: a whole LSP session built from the fuzz input and run in-process. The input drives an
// initialize (random position encoding and settings), an open, then random edits (ranges past
// the line or file end, inside surrogate pairs, splitting "\r\n"), full replacements, code
// actions, hovers, pulls, cancels, saves, reopenings and file-watcher events (files and folders
// created, changed and deleted on disk, config files among them; the server may register its
// watcher), then shutdown and exit. Checked:
//  - the output is clean frames of valid JSON, and each request gets exactly one response;
//  - the server's text equals a reference kept here (LSP's own rules, written independently),
//    and its incrementally re-parsed tree equals a fresh parse (`ptlint/debugDocument`);
//  - the final pulled diagnostics equal a fresh `lintFile` of the reference text;
//  - the exit code is 0 after shutdown + exit.
// Input left after the document's operations drives a notebook beside it (magics, structure
// changes with out-of-range indices, stale versions, code actions on cells): only the first
// two checks apply to it.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/line_index.h"
#include "analysis/parse.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/lsp_harness.h"
#include "rules/linter.h"

using namespace ptlint;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t upTo(uint32_t n) { return n == 0 ? 0 : byte() % (n + 1); }

 private:
  const uint8_t* data_;
  size_t size_, pos_ = 0;
};

// Pieces edits are made of: line breaks of every kind, multi-byte and astral characters (two
// UTF-16 units), and the words the rules look for.
const char* const kPieces[] = {
    "\n", "\r\n", "\r", " ", "    ", "x", "(", ")", "[", "]", ":", ",", ".", "=", "\"", "'", "#", "é", "日本",
    "😀", "\xF0\x9F\x98\x80\n", "import torch\n", "import numpy as np\n", "from torch.cuda.amp import autocast\n",
    "torch.cuda.amp.autocast()", "with torch.cuda.amp.autocast():\n    pass\n", "GradScaler()", "torch.bfloat16",
    "DataLoader(ds, num_workers=4)", "from torch.utils.data import DataLoader\n", "torch.load(f)", "@torch.compile\n",
    "def f(x):\n    return x.item()\n", "  # noqa: PTL101\n", "\tdef", "class M:\n", "softmax(q @ k.transpose(-2, -1))",
    "find_unused_parameters=True", "DistributedDataParallel(m, find_unused_parameters=True)\n", "\\", "\"\"\"", "\x7f",
};
const char* const kSeeds[] = {
    "",
    "import torch\nwith torch.cuda.amp.autocast():\n    y = model(x)\n",
    "import torch\r\nscaler = torch.cuda.amp.GradScaler()\r\nwith torch.autocast('cuda', dtype=torch.bfloat16):\r\n    pass\r\n",
    "# é 日本 😀\nimport torch as T\nfrom torch.cuda.amp import autocast\n@T.compile\ndef f(x):\n    return x.item()  # 😀\n",
    "import numpy as np\nfrom torch.utils.data import DataLoader\nl = DataLoader(ds, num_workers=2)\n",
    "def broken(:\n  x = [\n",
};

std::string piece(ByteReader& in) { return kPieces[in.byte() % std::size(kPieces)]; }

// --- The reference: LSP text synchronisation, straight from the specification -----------------

struct RefPos {
  uint32_t line, character;
};

// Byte offsets where lines start ('\n', "\r\n" and '\r' end a line).
std::vector<size_t> lineStarts(const std::string& text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    if (text[i] == '\n' || text[i] == '\r') starts.push_back(i + 1);
  }
  return starts;
}

size_t sequenceLength(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

size_t units(size_t sequence, bool utf8) { return utf8 ? sequence : (sequence == 4 ? 2 : 1); }

// A position past the line's end means the end of its content; past the last line, the end of
// the text; inside a character, the character's start.
size_t toOffset(const std::string& text, RefPos pos, bool utf8) {
  auto starts = lineStarts(text);
  if (pos.line >= starts.size()) return text.size();
  size_t at = starts[pos.line];
  size_t end = pos.line + 1 < starts.size() ? starts[pos.line + 1] : text.size();
  while (end > at && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  size_t counted = 0;
  while (at < end) {
    size_t n = sequenceLength(static_cast<unsigned char>(text[at]));
    if (counted + units(n, utf8) > pos.character) break;
    counted += units(n, utf8);
    at += n;
  }
  return at;
}

RefPos toPosition(const std::string& text, size_t offset, bool utf8) {
  auto starts = lineStarts(text);
  uint32_t line = static_cast<uint32_t>(std::upper_bound(starts.begin(), starts.end(), offset) - starts.begin() - 1);
  // An offset inside a line break (between "\r" and "\n") is the end of the line's content.
  size_t end = line + 1 < starts.size() ? starts[line + 1] : text.size();
  while (end > starts[line] && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  offset = std::min(offset, end);
  uint32_t character = 0;
  for (size_t at = starts[line]; at < offset;) {
    size_t n = sequenceLength(static_cast<unsigned char>(text[at]));
    character += static_cast<uint32_t>(units(n, utf8));
    at += n;
  }
  return {line, character};
}

json position(RefPos p) { return {{"line", p.line}, {"character", p.character}}; }

struct Session {
  std::string input;  // the framed client messages
  int next_id = 1;
  std::map<int, std::string> requests;  // id -> method

  int request(const std::string& method, json params) {
    int id = next_id++;
    requests[id] = method;
    input += fuzz::frame(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump());
    return id;
  }
  void notify(const std::string& method, json params) {
    input += fuzz::frame(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}.dump());
  }
};

const fs::path& workspaceDir() {
  static const fs::path dir = fuzz::makeScratchDir("ptlint-fuzz-lsp");
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  Session s;
  const std::string root = "file://" + workspaceDir().string();
  const std::string uri = root + "/train.py";

  // initialize: the client offers utf-8 (chosen), only utf-16, utf-32 (refused: utf-16), nothing.
  uint8_t mode = in.byte();
  json encodings[] = {json::array({"utf-8", "utf-16"}), json::array({"utf-16"}), json::array({"utf-32"}), nullptr};
  json capabilities = {{"textDocument", {{"diagnostic", json::object()}}}};
  if (!encodings[mode % 4].is_null()) capabilities["general"] = {{"positionEncodings", encodings[mode % 4]}};
  if (mode & 8) capabilities["workspace"] = {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}};
  const bool utf8 = mode % 4 == 0;
  const bool select_all = (mode & 4) != 0;
  json options = json::object();
  if (select_all) options = {{"select", {"ALL"}}, {"unsafeFixes", true}};
  s.request("initialize", {{"processId", nullptr}, {"rootUri", root}, {"capabilities", capabilities},
                           {"initializationOptions", options}});
  s.notify("initialized", json::object());

  std::string text = kSeeds[in.byte() % std::size(kSeeds)];
  int version = 1;
  s.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", version}, {"text", text}}}});

  for (int op = 0; op < 48 && !in.empty(); ++op) {
    uint8_t kind = in.byte() % 13;
    auto lines = lineStarts(text);
    auto randomPosition = [&] {
      return RefPos{in.upTo(static_cast<uint32_t>(lines.size()) + 1), in.upTo(in.byte() < 200 ? 12 : 400)};
    };
    if (kind <= 4) {  // incremental edit (mostly)
      RefPos a = randomPosition(), b = randomPosition();
      if (std::tie(b.line, b.character) < std::tie(a.line, a.character)) std::swap(a, b);
      if (in.byte() % 3 == 0) b = a;  // an insertion
      std::string inserted;
      for (uint32_t n = in.upTo(3); n > 0; --n) inserted += piece(in);
      size_t start = toOffset(text, a, utf8), end = toOffset(text, b, utf8);
      text = text.substr(0, start) + inserted + text.substr(std::max(start, end));
      s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version}}},
                                          {"contentChanges", {{{"range", {{"start", position(a)}, {"end", position(b)}}}, {"text", inserted}}}}});
    } else if (kind == 5) {  // full replacement
      text = kSeeds[in.byte() % std::size(kSeeds)];
      for (uint32_t n = in.upTo(4); n > 0; --n) text += piece(in);
      s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version}}}, {"contentChanges", {{{"text", text}}}}});
    } else if (kind == 6) {
      RefPos a = randomPosition(), b = randomPosition();
      json only = in.byte() % 2 ? json{{"only", {"source.fixAll.ptlint"}}} : json::object();
      json context = {{"diagnostics", json::array()}};
      context.update(only);
      s.request("textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", position(a)}, {"end", position(b)}}}, {"context", context}});
    } else if (kind == 7) {
      s.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
    } else if (kind == 8) {
      s.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", position(randomPosition())}});
    } else if (kind == 9) {  // cancel a recent request, or one that never existed
      int id = s.next_id - 1 - static_cast<int>(in.upTo(3));
      s.notify("$/cancelRequest", {{"id", id}});
    } else if (kind == 10) {
      s.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    } else if (kind == 12) {  // what a file watcher saw (nothing here changes the disk)
      static const char* const kPaths[] = {"/train.py", "/model.py", "/pkg", "/pkg/__init__.py", "/n.ipynb",
                                           "/pyproject.toml", "/ptlint.toml", "/stubs.pyi", "", "/a b%20.py"};
      json changes = json::array();
      for (uint32_t n = 1 + in.upTo(2); n > 0; --n)
        changes.push_back({{"uri", root + kPaths[in.byte() % std::size(kPaths)]}, {"type", static_cast<int>(in.upTo(4))}});
      s.notify("workspace/didChangeWatchedFiles", {{"changes", changes}});
    } else {
      s.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
      s.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", ++version}, {"text", text}}}});
    }
  }
  // What the input has left drives a notebook beside the document: cells with IPython magics,
  // structure changes whose indices may lie outside the notebook (or wrap as 32-bit numbers),
  // versions out of order, cell edits, and fix-all and quick fixes on cells.
  if (!in.empty()) {
    const std::string nb = root + "/n.ipynb";
    std::vector<std::string> cells;
    for (int k = 0; k < 6; ++k) cells.push_back("vscode-notebook-cell" + nb.substr(4) + "#c" + std::to_string(k));
    const char* const kCells[] = {"import torch\n%matplotlib inline\n", "with torch.cuda.amp.autocast():\n    pass\n!ls\n",
                                  "files = !ls\nx = torch.cuda.amp.GradScaler()\n", "%%time\ny = foo(\n",
                                  "if 1:\n    pass\nif 2:\n    %pdb\ntorch.cuda.amp.autocast()\n", "s = '''\n"};
    const json kIndices[] = {0, 1, 2, 3, 7, 4294967296ULL, -1, 18446744073709551615ULL, "1", 1.5};
    json open_cells = json::array(), documents = json::array();
    for (int k = 0; k < 3; ++k) {
      open_cells.push_back({{"kind", 2}, {"document", cells[k]}});
      documents.push_back({{"uri", cells[k]}, {"languageId", "python"}, {"version", 1}, {"text", kCells[k]}});
    }
    s.notify("notebookDocument/didOpen",
             {{"notebookDocument", {{"uri", nb}, {"notebookType", "jupyter-notebook"}, {"version", 1}, {"cells", open_cells}}},
              {"cellTextDocuments", documents}});
    int nb_version = 1;
    for (int op = 0; op < 16 && !in.empty(); ++op) {
      uint8_t kind = in.byte() % 4;
      int version = in.byte() % 5 == 0 ? nb_version - 1 : ++nb_version;  // now and then a stale one
      const std::string& cell = cells[in.byte() % cells.size()];
      json change;
      if (kind == 0) {
        json array = {{"start", kIndices[in.byte() % std::size(kIndices)]},
                      {"deleteCount", kIndices[in.byte() % std::size(kIndices)]}};
        json structure = json::object();
        if (in.byte() % 2) {
          array["cells"] = json::array({{{"kind", 2}, {"document", cell}}});
          structure["didOpen"] = json::array(
              {{{"uri", cell}, {"languageId", "python"}, {"version", 1}, {"text", kCells[in.byte() % std::size(kCells)]}}});
        }
        structure["array"] = array;
        if (in.byte() % 2) structure["didClose"] = json::array({{{"uri", cells[in.byte() % cells.size()]}}});
        change = {{"structure", structure}};
      } else if (kind == 1) {
        RefPos a{in.upTo(5), in.upTo(20)}, b{in.upTo(5), in.upTo(20)};
        json edit = {{"range", {{"start", position(a)}, {"end", position(b)}}}, {"text", piece(in)}};
        change = {{"textContent", json::array({{{"document", {{"uri", cell}, {"version", version}}}, {"changes", json::array({edit})}}})}};
      }
      if (kind <= 1) {
        s.notify("notebookDocument/didChange", {{"notebookDocument", {{"uri", nb}, {"version", version}}}, {"change", {{"cells", change}}}});
      } else {
        json context = {{"diagnostics", json::array()}};
        if (kind == 3) context["only"] = json::array({"source.fixAll"});
        s.request("textDocument/codeAction", {{"textDocument", {{"uri", cell}}},
                                              {"range", {{"start", position({0, 0})}, {"end", position({in.upTo(6), 0})}}},
                                              {"context", context}});
      }
    }
    s.notify("notebookDocument/didClose", {{"notebookDocument", {{"uri", nb}}}});
  }
  int debug_id = s.request("ptlint/debugDocument", {{"textDocument", {{"uri", uri}}}});
  int pull_id = s.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
  // Shutdown and exit go out once both final answers are in: a request still in flight at exit
  // is answered InternalError by design.
  std::string body = std::move(s.input);
  s.input.clear();
  s.request("shutdown", nullptr);
  s.notify("exit", nullptr);
  const std::string debug_key = "\"id\":" + std::to_string(debug_id) + ",";
  const std::string pull_key = "\"id\":" + std::to_string(pull_id) + ",";
  fuzz::ServerRun run = fuzz::runServerOn(body, s.input, [&](const std::string& out) {
    return out.find(debug_key) != std::string::npos && out.find(pull_key) != std::string::npos;
  });
  fuzz::require(run.framing_error.empty(), "the server wrote something that is not a frame");
  fuzz::require(run.exit_code == 0, "exit code after shutdown + exit", run.exit_code);

  std::map<int, json> responses;
  for (const auto& body : run.bodies) {
    fuzz::require(analysis::isValidUtf8(body), "server output is UTF-8");
    json message = json::parse(body, nullptr, false);
    fuzz::require(message.is_object(), "server output is a JSON object");
    if (message.contains("method") || !message.contains("id") || !message["id"].is_number_integer()) continue;
    int id = message["id"].get<int>();
    fuzz::require(s.requests.count(id) == 1, "a response to no request", id);
    fuzz::require(responses.count(id) == 0, "a request was answered twice", id);
    responses[id] = std::move(message);
  }
  for (const auto& [id, method] : s.requests) fuzz::require(responses.count(id) == 1, "a request was never answered", id);

  const json& debug = responses[debug_id];
  fuzz::require(debug.contains("result"), "debugDocument answered");
  fuzz::require(debug["result"]["text"] == text, "server text differs from the reference");
  fuzz::require(debug["result"]["treeMatchesFreshParse"] == true, "incremental tree differs from a fresh parse");

  // The final pull equals a fresh check of the reference text.
  const json& pull = responses[pull_id];
  if (!pull.contains("result")) std::fprintf(stderr, "%s\n", pull.dump().c_str());
  fuzz::require(pull.contains("result"), "the final pull answered");
  rules::Settings settings;
  if (select_all) {
    settings.select = {"ALL"};
    settings.unsafe_fixes = true;
  }
  auto fresh = rules::lintFile(analysis::ParsedFile::parse(text), settings);
  std::multiset<std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint32_t>> expected, got;
  for (const auto& d : fresh.diagnostics) {
    RefPos a = toPosition(text, d.start, utf8), b = toPosition(text, d.end, utf8);
    expected.insert({std::string(d.code), a.line, a.character, b.line, b.character});
  }
  for (const auto& d : pull["result"].value("items", json::array())) {
    const json& r = d["range"];
    got.insert({d.value("code", ""), r["start"]["line"], r["start"]["character"], r["end"]["line"], r["end"]["character"]});
  }
  fuzz::require(got == expected, "final diagnostics differ from a fresh check", static_cast<long>(got.size()),
                static_cast<long>(expected.size()));
  return 0;
}

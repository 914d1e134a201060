// The ptlint language server (docs/lsp.md): JSON-RPC over stdio, typed handlers, analysis on worker
// threads with the same engine as `ptlint check` (rules::lintFile, quickfix::fixToFixpoint).
#pragma once

namespace ptlint::server {

// Serves LSP on `in_fd`/`out_fd` until `exit` or end of input. Returns the process exit code:
// 0 after `shutdown` then `exit` (or end of input after `shutdown`), 1 otherwise.
int runServer(int in_fd, int out_fd);

// `ptlint --lsp` / `ptlint server`: runServer on stdin/stdout.
int runStdioServer();

}  // namespace ptlint::server

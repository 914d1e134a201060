// Drives the real `ptlint --lsp` the way the extension does: the same server options and
// initialization options (built by src/serverConfig.ts from the defaults this package declares),
// over vscode-jsonrpc, the transport vscode-languageclient itself uses. VS Code cannot run here,
// so this is the closest faithful session: diagnostics arrive, a quickfix applies, fix-all
// applies, a settings change reaches the server.
//
// Environment: PTLINT_BIN (the built ptlint), PTLINT_E2E_FIXTURES (tests/e2e/fixtures).

import * as assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";

import {
  bundledServerPath,
  codeActionToggles,
  type ConfigSource,
  deprecationNotices,
  didChangeConfigurationParams,
  filterCodeActions,
  FIX_ALL_KIND,
  findOnPath,
  findServer,
  initializationOptions,
  logLevel,
  logs,
  resolveServerPath,
  SECTION,
  ServerNotFoundError,
  serverOptions,
  undeclaredSettings,
} from "../src/serverConfig";

// ---- minimal LSP shapes (only what the test reads) ----
interface Position { line: number; character: number }
interface Range { start: Position; end: Position }
interface TextEdit { range: Range; newText: string }
interface Diagnostic {
  range: Range; severity?: number; code?: string | number; source?: string; message: string;
  tags?: number[]; data?: unknown;
}
interface WorkspaceEdit {
  changes?: { [uri: string]: TextEdit[] };
  documentChanges?: { textDocument: { uri: string }; edits: TextEdit[] }[];
}
interface CodeAction {
  title: string; kind?: string; diagnostics?: Diagnostic[]; isPreferred?: boolean;
  edit?: WorkspaceEdit; data?: unknown;
}
interface PublishDiagnosticsParams { uri: string; version?: number; diagnostics: Diagnostic[] }

function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value.length === 0) {
    throw new Error(`${name} is not set: run this test through ctest (tests/e2e)`);
  }
  return value;
}

const ptlintBin = path.resolve(requireEnv("PTLINT_BIN"));
const fixtures = path.resolve(requireEnv("PTLINT_E2E_FIXTURES"));
const packageJson = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"),
) as {
  main: string;
  activationEvents: string[];
  contributes: {
    commands: { command: string }[];
    configuration: { properties: Record<string, { default: unknown }> };
  };
};

/** The package's declared defaults, overridden by `overrides`: what a fresh VS Code returns. */
function config(overrides: Record<string, unknown> = {}): ConfigSource {
  const values: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(packageJson.contributes.configuration.properties)) {
    values[key.slice(SECTION.length + 1)] = prop.default;
  }
  Object.assign(values, overrides);
  return { get: <T>(key: string) => values[key] as T | undefined };
}

// ---- text edits on UTF-16 strings (JS strings are UTF-16, like the protocol's default) ----
function offsetAt(text: string, pos: Position): number {
  let offset = 0;
  for (let line = 0; line < pos.line; line++) {
    const nl = text.indexOf("\n", offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  return Math.min(offset + pos.character, text.length);
}

function editsFor(edit: WorkspaceEdit, uri: string): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const [u, list] of Object.entries(edit.changes ?? {})) if (u === uri) edits.push(...list);
  for (const change of edit.documentChanges ?? []) {
    if (change.textDocument.uri === uri) edits.push(...change.edits);
  }
  return edits;
}

/** Applies edits last-first, so earlier positions stay valid; returns the new text. */
function applyEdits(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => offsetAt(text, b.range.start) - offsetAt(text, a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offsetAt(text, e.range.start)) + e.newText + text.slice(offsetAt(text, e.range.end));
  }
  return text;
}

function sortedForChange(text: string, edits: TextEdit[]): TextEdit[] {
  return [...edits].sort((a, b) => offsetAt(text, b.range.start) - offsetAt(text, a.range.start));
}

/** One LSP session with the server, started from the extension's own server options. */
class Session {
  readonly connection: MessageConnection;
  private readonly proc: ChildProcess;
  private readonly published = new Map<string, PublishDiagnosticsParams[]>();
  private readonly waiters: (() => void)[] = [];
  readonly messages: { type: number; message: string }[] = [];
  /** Keys answered in `workspace/configuration` beyond the extension's own (a user's typo). */
  extra: Record<string, unknown> = {};
  exitCode: Promise<number | null>;
  stderr = "";
  settings: ConfigSource;

  constructor(settings: ConfigSource, env: NodeJS.ProcessEnv) {
    this.settings = settings;
    const options = serverOptions(resolveServerPath(settings, env), env);
    assert.ok("run" in options, "serverOptions must give run/debug executables");
    const run = options.run;
    assert.ok("command" in run, "the server is an executable");
    this.proc = spawn(run.command, run.args ?? [], { env: run.options?.env, stdio: "pipe" });
    this.exitCode = new Promise((resolve) => this.proc.on("exit", (code) => resolve(code)));
    this.proc.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.connection = createMessageConnection(
      new StreamMessageReader(this.proc.stdout!),
      new StreamMessageWriter(this.proc.stdin!),
    );
    this.connection.onNotification("textDocument/publishDiagnostics", (p: PublishDiagnosticsParams) => {
      const list = this.published.get(p.uri) ?? [];
      list.push(p);
      this.published.set(p.uri, list);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.connection.onNotification("window/showMessage", (p: { type: number; message: string }) => {
      this.messages.push(p);
      for (const wake of this.waiters.splice(0)) wake();
    });
    // What vscode-languageclient answers, with our middleware for the `ptlint` section.
    this.connection.onRequest("workspace/configuration", (p: { items: { section?: string }[] }) =>
      p.items.map((item) => (item.section === SECTION ? { ...initializationOptions(this.settings), ...this.extra } : null)),
    );
    this.connection.onRequest(() => null);
    this.connection.onNotification(() => undefined);
    this.connection.listen();
  }

  async initialize(rootDir: string): Promise<{ capabilities: Record<string, unknown> }> {
    const rootUri = pathToFileURL(rootDir).href;
    const result = await this.connection.sendRequest<{ capabilities: Record<string, unknown> }>(
      "initialize",
      {
        processId: process.pid,
        clientInfo: { name: "Visual Studio Code", version: "1.82.0" },
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: path.basename(rootDir) }],
        initializationOptions: initializationOptions(this.settings),
        capabilities: {
          general: { positionEncodings: ["utf-16"] },
          workspace: {
            configuration: true,
            workspaceFolders: true,
            didChangeConfiguration: { dynamicRegistration: true },
            applyEdit: true,
            workspaceEdit: { documentChanges: true },
          },
          textDocument: {
            synchronization: { dynamicRegistration: true, didSave: true, willSave: true },
            publishDiagnostics: {
              relatedInformation: true, versionSupport: false, codeDescriptionSupport: true,
              dataSupport: true, tagSupport: { valueSet: [1, 2] },
            },
            codeAction: {
              dynamicRegistration: true, isPreferredSupport: true, disabledSupport: true,
              dataSupport: true, resolveSupport: { properties: ["edit"] },
              codeActionLiteralSupport: {
                codeActionKind: {
                  valueSet: ["", "quickfix", "refactor", "source", "source.organizeImports", "source.fixAll"],
                },
              },
            },
            hover: { contentFormat: ["markdown", "plaintext"] },
          },
        },
      },
    );
    await this.connection.sendNotification("initialized", {});
    return result;
  }

  /** Resolves once `cond` holds (re-checked on every notification). */
  async until(cond: () => boolean, what: string, timeoutMs = 10000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!cond()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}\nserver stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves with the first publishDiagnostics for `uri` (after `skip` earlier ones) matching. */
  async diagnostics(
    uri: string,
    accept: (p: PublishDiagnosticsParams) => boolean,
    what: string,
    timeoutMs = 10000,
  ): Promise<Diagnostic[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const list = this.published.get(uri) ?? [];
      const last = list[list.length - 1];
      if (last !== undefined && accept(last)) return last.diagnostics;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out waiting for ${what}; last published: ${JSON.stringify(last)}\nserver stderr:\n${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** triggerKind 1: invoked by the user (light bulb, command); 2: automatic (codeActionsOnSave). */
  async codeActions(
    uri: string, range: Range, diagnostics: Diagnostic[], only?: string[], triggerKind = 1,
  ): Promise<CodeAction[]> {
    const context: Record<string, unknown> = { diagnostics, triggerKind };
    if (only !== undefined) context["only"] = only;
    const actions = await this.connection.sendRequest<(CodeAction | { command: string })[] | null>(
      "textDocument/codeAction",
      { textDocument: { uri }, range, context },
    );
    // A bare Command has a string `command`; a CodeAction has a `kind` or an `edit`.
    return (actions ?? []).filter(
      (a): a is CodeAction => typeof (a as { command?: unknown }).command !== "string",
    );
  }

  /** The action's edit, resolving it first when the server defers it (codeAction/resolve). */
  async editOf(action: CodeAction): Promise<WorkspaceEdit> {
    if (action.edit !== undefined) return action.edit;
    const resolved = await this.connection.sendRequest<CodeAction>("codeAction/resolve", action);
    assert.ok(resolved.edit, `code action "${action.title}" has no edit`);
    return resolved.edit;
  }

  async close(): Promise<number | null> {
    await this.connection.sendRequest("shutdown");
    await this.connection.sendNotification("exit");
    const code = await Promise.race([
      this.exitCode,
      new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 5000)),
    ]);
    if (code === "timeout") {
      this.proc.kill("SIGKILL");
      throw new Error("the server did not exit within 5 s of `exit`");
    }
    this.connection.dispose();
    return code;
  }

  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill("SIGKILL");
  }
}

const isPTL101 = (d: Diagnostic) => d.code === "PTL101";

describe("package manifest", () => {
  // VS Code itself cannot run here: check that the manifest and the compiled extension agree.
  const extensionJs = fs.readFileSync(path.join(__dirname, "..", "..", packageJson.main), "utf8");

  test("every contributed command is registered by the extension", () => {
    const commands = packageJson.contributes.commands.map((c) => c.command);
    assert.deepEqual(commands.sort(), ["ptlint.fixAll", "ptlint.restart", "ptlint.showOutput"]);
    for (const command of commands) {
      assert.ok(extensionJs.includes(`registerCommand("${command}"`), `${command} is not registered`);
    }
  });

  test("every setting the server options read is declared, with the server's setting names", () => {
    const declared = Object.keys(packageJson.contributes.configuration.properties);
    for (const key of ["path", "interpreter", "importStrategy", "select", "extendSelect", "ignore", "configuration",
      "unsafeFixes", "torchVersion", "gpuCheck", "compileLog"]) {
      assert.ok(declared.includes(`${SECTION}.${key}`), `ptlint.${key} is not declared in package.json`);
    }
    assert.ok(packageJson.activationEvents.includes("onLanguage:python"));
  });
});

describe("server options", () => {
  test("the package's default settings send only the booleans", () => {
    assert.deepEqual(initializationOptions(config()), { unsafeFixes: false, gpuCheck: false });
  });

  test("set values are normalised and passed through", () => {
    const sent = initializationOptions(
      config({ select: [" PTL1 ", "", "PTL501"], ignore: ["PTL101"], unsafeFixes: true, torchVersion: "2.4", gpuCheck: true }),
    );
    assert.deepEqual(sent, {
      select: ["PTL1", "PTL501"], ignore: ["PTL101"], unsafeFixes: true, torchVersion: "2.4", gpuCheck: true,
    });
    assert.deepEqual(didChangeConfigurationParams(config({ ignore: ["PTL101"] })), {
      settings: { ptlint: { ignore: ["PTL101"], unsafeFixes: false, gpuCheck: false } },
    });
  });

  test("a missing ptlint is a clear error, not a crash", () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "ptlint-empty-"));
    try {
      assert.throws(() => resolveServerPath(config(), { PATH: empty }), (err: unknown) => {
        assert.ok(err instanceof ServerNotFoundError);
        assert.match(err.message, /no "ptlint" executable in the project environment .*, bundled with the extension or on PATH/);
        assert.match(err.message, /ptlint\.path/);
        return true;
      });
      assert.throws(
        () => resolveServerPath(config({ path: path.join(empty, "ptlint") }), { PATH: empty }),
        /ptlint\.path.*does not exist/,
      );
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  test("extendSelect, configuration and compileLog are passed to the server", () => {
    const sent = initializationOptions(
      config({ extendSelect: ["PTL604", " "], configuration: " ~/cfg/ptlint.toml ", compileLog: "logs/*.log" }),
    );
    assert.deepEqual(sent, {
      extendSelect: ["PTL604"], configuration: path.join(os.homedir(), "cfg/ptlint.toml"),
      compileLog: "logs/*.log", unsafeFixes: false, gpuCheck: false,
    });
    assert.deepEqual(deprecationNotices(config({ extendSelect: ["PTL604"] })), []);
  });

  test("settings the extension does not declare are passed on for the server to name", () => {
    const declared = Object.keys(packageJson.contributes.configuration.properties).map((k) => k.slice(SECTION.length + 1));
    const tree = {
      select: ["PTL1"], unsafeFix: true, trace: { server: "off", srever: 1 }, codeAction: { fixViolation: { enable: true } },
      lint: { extendSelect: [] }, interpreter: [],
    };
    assert.deepEqual(undeclaredSettings(tree, declared), { unsafeFix: true, "trace.srever": 1 });
    assert.deepEqual(initializationOptions(config(), { unsafeFix: true }), { unsafeFix: true, unsafeFixes: false, gpuCheck: false });
  });

  test("renamed settings: the old names are still read, with a deprecation notice", () => {
    const old = config({ "lint.extendSelect": ["PTL604"], "lint.ignore": ["PTL101"] });
    assert.deepEqual(initializationOptions(old), {
      extendSelect: ["PTL604"], ignore: ["PTL101"], unsafeFixes: false, gpuCheck: false,
    });
    const notices = deprecationNotices(old);
    assert.equal(notices.length, 2, JSON.stringify(notices));
    assert.match(notices[0]!, /"ptlint\.lint\.extendSelect" is deprecated; use "ptlint\.extendSelect"/);
    // The new name wins when both are set.
    assert.deepEqual(initializationOptions(config({ extendSelect: ["PTL3"], "lint.extendSelect": ["PTL604"] })).extendSelect, ["PTL3"]);
    // Every declared setting but the deprecated ones is the server's name or a client-only one.
    const declared = Object.keys(packageJson.contributes.configuration.properties).map((k) => k.slice(SECTION.length + 1));
    for (const key of declared.filter((k) => k.startsWith("lint."))) {
      assert.ok(deprecationNotices(config({ [key]: ["PTL1"] })).length === 1, `${key} is deprecated`);
    }
  });

  test("ptlint.path, then the project environment, then the bundled binary, then PATH", () => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "ptlint-project-"));
    const ext = fs.mkdtempSync(path.join(os.tmpdir(), "ptlint-ext-"));
    const install = (file: string) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.copyFileSync(ptlintBin, file);
      fs.chmodSync(file, 0o755);
    };
    try {
      fs.mkdirSync(path.join(ext, "bundled"));
      install(bundledServerPath(ext));
      const env = { PATH: path.dirname(ptlintBin) };
      assert.deepEqual(findServer(config(), env, ext, { folders: [project] }), { command: bundledServerPath(ext), source: "bundled" });
      // The project's .venv.
      const venv = path.join(project, ".venv", "bin", "ptlint");
      install(venv);
      assert.deepEqual(findServer(config(), env, ext, { folders: [project] }), { command: venv, source: "environment" });
      // The selected interpreter's folder wins over a folder's .venv; ptlint.interpreter over the selection.
      const conda = path.join(project, "conda", "bin");
      install(path.join(conda, "ptlint"));
      assert.equal(resolveServerPath(config(), env, ext, { folders: [project], interpreter: path.join(conda, "python") }),
        path.join(conda, "ptlint"));
      assert.equal(resolveServerPath(config({ interpreter: [path.join(project, ".venv", "bin", "python3")] }), env, ext,
        { folders: [project], interpreter: path.join(conda, "python") }), venv);
      // An interpreter without ptlint beside it: the .venv, then the bundled binary.
      assert.equal(resolveServerPath(config(), env, ext, { interpreter: "/usr/bin/python3" }), bundledServerPath(ext));
      // importStrategy useBundled skips the environment; ptlint.path wins over everything.
      assert.equal(resolveServerPath(config({ importStrategy: "useBundled" }), env, ext, { folders: [project] }), bundledServerPath(ext));
      assert.deepEqual(findServer(config({ path: ptlintBin }), env, ext, { folders: [project] }), { command: ptlintBin, source: "ptlint.path" });
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
      fs.rmSync(ext, { recursive: true, force: true });
    }
  });

  test("ptlint.path, then the bundled binary, then PATH", () => {
    const ext = fs.mkdtempSync(path.join(os.tmpdir(), "ptlint-ext-"));
    try {
      // No bundled binary: PATH.
      assert.equal(resolveServerPath(config(), { PATH: path.dirname(ptlintBin) }, ext), ptlintBin);
      fs.mkdirSync(path.join(ext, "bundled"));
      fs.copyFileSync(ptlintBin, bundledServerPath(ext));
      fs.chmodSync(bundledServerPath(ext), 0o755);
      assert.equal(resolveServerPath(config(), { PATH: path.dirname(ptlintBin) }, ext), bundledServerPath(ext));
      assert.equal(resolveServerPath(config({ path: ptlintBin }), { PATH: "" }, ext), ptlintBin);
    } finally {
      fs.rmSync(ext, { recursive: true, force: true });
    }
  });

  test("logLevel decides which server log messages are shown", () => {
    assert.equal(logLevel(config()), "info");
    assert.equal(logLevel(config({ logLevel: "loud" })), "info");
    assert.ok(logs("info", 3) && !logs("info", 4) && logs("error", 1) && !logs("error", 2) && logs("debug", 4));
  });

  test("ptlint.path wins over PATH; PATH is searched otherwise", () => {
    assert.equal(resolveServerPath(config({ path: ptlintBin }), { PATH: "" }), ptlintBin);
    assert.throws(() => resolveServerPath(config({ path: "~/no-such-dir/ptlint" }), { PATH: "" }),
      (err: unknown) => err instanceof ServerNotFoundError && err.message.includes(os.homedir()));
    assert.equal(findOnPath("ptlint", path.dirname(ptlintBin)), ptlintBin);
    const options = serverOptions(resolveServerPath(config(), { PATH: path.dirname(ptlintBin) }));
    assert.ok("run" in options && "command" in options.run);
    assert.equal(options.run.command, ptlintBin);
    assert.deepEqual(options.run.args, ["--lsp"]);
  });
});

describe("session with ptlint --lsp", () => {
  let workDir: string;
  let session: Session;
  const original = fs.readFileSync(path.join(fixtures, "amp_train.py"), "utf8");
  const fixed = fs.readFileSync(path.join(fixtures, "amp_train.py.fixed"), "utf8");
  let uri: string;

  before(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "ptlint-vscode-"));
    const file = path.join(workDir, "amp_train.py");
    fs.writeFileSync(file, original);
    uri = pathToFileURL(file).href;
    // ptlint found on PATH, as for a user who installed it and left ptlint.path empty.
    const env = { ...process.env, PATH: `${path.dirname(ptlintBin)}${path.delimiter}${process.env["PATH"] ?? ""}` };
    session = new Session(config(), env);
    const init = await session.initialize(workDir);
    const caps = init.capabilities as { codeActionProvider?: { codeActionKinds?: string[] } | boolean };
    const kinds = typeof caps.codeActionProvider === "object" ? caps.codeActionProvider.codeActionKinds : undefined;
    // VS Code runs `source.fixAll.ptlint` on save only for a provider that declares the kind.
    assert.ok(kinds?.includes(FIX_ALL_KIND), `codeActionKinds must list ${FIX_ALL_KIND}: ${JSON.stringify(caps.codeActionProvider)}`);
    assert.ok(kinds?.includes("notebook.source.fixAll"), `codeActionKinds must list notebook.source.fixAll`);
    await session.connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "python", version: 1, text: original },
    });
  });

  after(async () => {
    session?.kill();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  let version = 1;
  let text = "";

  async function change(edits: TextEdit[]): Promise<void> {
    // Incremental changes, last-first in one notification, as VS Code sends an applied edit.
    const contentChanges = sortedForChange(text, edits).map((e) => ({ range: e.range, text: e.newText }));
    text = applyEdits(text, edits);
    version += 1;
    await session.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges,
    });
  }

  test("diagnostics arrive", async () => {
    text = original;
    const diags = await session.diagnostics(uri, (p) => p.diagnostics.some(isPTL101), "PTL101 diagnostics");
    const ptl101 = diags.filter(isPTL101);
    assert.equal(ptl101.length, 3, JSON.stringify(diags));
    for (const d of ptl101) {
      assert.equal(d.source, "ptlint");
      assert.ok(d.tags?.includes(2), "PTL1xx diagnostics are tagged Deprecated");
    }
    // The call after the emoji: UTF-16 columns (🙂 is two code units).
    const lines = original.split("\n");
    const onEmojiLine = ptl101.find((d) => d.range.start.line === 6);
    assert.ok(onEmojiLine, "a PTL101 on line 7");
    assert.equal(onEmojiLine.range.start.character, lines[6]!.indexOf("torch.cuda.amp.autocast()"));
    assert.equal(onEmojiLine.range.end.character, lines[6]!.indexOf("torch.cuda.amp.autocast()") + "torch.cuda.amp.autocast()".length);
  });

  test("a quickfix applies", async () => {
    const diags = await session.diagnostics(uri, (p) => p.diagnostics.some(isPTL101), "PTL101 diagnostics");
    const target = diags.find((d) => isPTL101(d) && d.range.start.line === 6)!;
    const actions = await session.codeActions(uri, target.range, [target]);
    const quickfix = actions.find((a) => a.kind === "quickfix" && a.diagnostics?.some(isPTL101) && !a.title.startsWith("Disable"));
    assert.ok(quickfix, `a PTL101 quickfix among ${JSON.stringify(actions.map((a) => [a.kind, a.title]))}`);
    assert.equal(quickfix.isPreferred, true, "a safe fix is the preferred action");
    assert.ok(actions.some((a) => a.kind === "quickfix" && /noqa/.test(JSON.stringify(a))), "a `# noqa: PTL101` action");
    // ptlint.codeAction.*.enable: the server's fix and `# noqa` actions are told apart.
    const noComment = filterCodeActions(actions, codeActionToggles(config({ "codeAction.disableRuleComment.enable": false })));
    assert.ok(noComment.some((a) => a === quickfix) && !noComment.some((a) => /noqa/.test(JSON.stringify(a))));
    const noFix = filterCodeActions(actions, codeActionToggles(config({ "codeAction.fixViolation.enable": false })));
    assert.ok(!noFix.some((a) => a === quickfix) && noFix.some((a) => a.kind === "quickfix" && /noqa/.test(JSON.stringify(a))));
    assert.deepEqual(filterCodeActions(actions, codeActionToggles(config())), actions);
    await change(editsFor(await session.editOf(quickfix), uri));
    // Exactly the diagnosed line changed, to what the CLI fix produces.
    const expected = original.split("\n");
    expected[6] = fixed.split("\n")[6]!;
    assert.equal(text, expected.join("\n"));
    const after = await session.diagnostics(uri, (p) => p.diagnostics.filter(isPTL101).length === 2, "two PTL101 left");
    assert.ok(!after.some((d) => isPTL101(d) && d.range.start.line === 6));
  });

  test("fix-all applies", async () => {
    const whole = { start: { line: 0, character: 0 }, end: { line: text.split("\n").length, character: 0 } };
    // What VS Code sends for `"editor.codeActionsOnSave": {"source.fixAll.ptlint": ...}`.
    const actions = await session.codeActions(uri, whole, [], [FIX_ALL_KIND], 2);
    const fixAll = actions.find((a) => a.kind === FIX_ALL_KIND);
    assert.ok(fixAll, `a ${FIX_ALL_KIND} action among ${JSON.stringify(actions.map((a) => [a.kind, a.title]))}`);
    await change(editsFor(await session.editOf(fixAll), uri));
    assert.equal(text, fixed);
    await session.diagnostics(uri, (p) => !p.diagnostics.some(isPTL101), "no PTL101 left after fix-all");
  });

  test("hover shows a rule only on a noqa code", async () => {
    const file = path.join(workDir, "hover.py");
    const hoverText = "import torch\nwith torch.cuda.amp.autocast():  # noqa: PTL101\n    pass\nwith torch.cuda.amp.autocast():\n    pass\n";
    fs.writeFileSync(file, hoverText);
    const hoverUri = pathToFileURL(file).href;
    await session.connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri: hoverUri, languageId: "python", version: 1, text: hoverText },
    });
    await session.diagnostics(hoverUri, (p) => p.diagnostics.some(isPTL101), "PTL101 in hover.py");
    const hover = (line: number, character: number) =>
      session.connection.sendRequest<{ contents: { value: string } } | null>("textDocument/hover", {
        textDocument: { uri: hoverUri }, position: { line, character },
      });
    const onCode = await hover(1, 44);
    assert.ok(onCode !== null && onCode.contents.value.includes("**PTL101**"), JSON.stringify(onCode));
    // Inside a finding: null, so that another server's hover (pyright's types) shows.
    assert.equal(await hover(3, 12), null);
  });

  test("an unsafe fix is a labelled quick fix, and fix-all leaves it unless unsafeFixes", async () => {
    const file = path.join(workDir, "ddp.py");
    const ddpText = "from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(net, find_unused_parameters=True)\n";
    fs.writeFileSync(file, ddpText);
    const ddpUri = pathToFileURL(file).href;
    await session.connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri: ddpUri, languageId: "python", version: 1, text: ddpText },
    });
    const diags = await session.diagnostics(ddpUri, (p) => p.diagnostics.some((d) => d.code === "PTL301"), "PTL301");
    const target = diags.find((d) => d.code === "PTL301")!;
    const actions = await session.codeActions(ddpUri, target.range, [target]);
    const unsafe = actions.find((a) => a.kind === "quickfix" && a.title.endsWith("(unsafe)"));
    assert.ok(unsafe, `an unsafe quick fix among ${JSON.stringify(actions.map((a) => a.title))}`);
    assert.notEqual(unsafe.isPreferred, true, "an unsafe fix is never preferred");
    const whole = { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } };
    assert.deepEqual(await session.codeActions(ddpUri, whole, [], [FIX_ALL_KIND], 2), [], "no fix-all without unsafeFixes");
  });

  test("notebook.source.fixAll fixes every cell of a notebook", async () => {
    const nb = pathToFileURL(path.join(workDir, "train.ipynb")).href;
    const cells = [0, 1, 2].map((k) => `vscode-notebook-cell:${path.join(workDir, "train.ipynb")}#c${k}`);
    const texts = ["import torch\n", "x = torch.cuda.amp.autocast()\n", "y = torch.cuda.amp.autocast()\n"];
    await session.connection.sendNotification("notebookDocument/didOpen", {
      notebookDocument: { uri: nb, notebookType: "jupyter-notebook", version: 1, cells: cells.map((c) => ({ kind: 2, document: c })) },
      cellTextDocuments: cells.map((c, k) => ({ uri: c, languageId: "python", version: 1, text: texts[k] })),
    });
    await session.diagnostics(cells[2]!, (p) => p.diagnostics.some(isPTL101), "PTL101 in the third cell");
    // What VS Code sends for `"notebook.codeActionsOnSave": {"notebook.source.fixAll": ...}`.
    const whole = { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } };
    const actions = await session.codeActions(cells[0]!, whole, [], ["notebook.source.fixAll"], 2);
    assert.deepEqual(actions.map((a) => a.kind), ["notebook.source.fixAll.ptlint"]);
    const edit = await session.editOf(actions[0]!);
    assert.equal(applyEdits(texts[1]!, editsFor(edit, cells[1]!)), 'x = torch.amp.autocast("cuda")\n');
    assert.equal(applyEdits(texts[2]!, editsFor(edit, cells[2]!)), 'y = torch.amp.autocast("cuda")\n');
  });

  test("an unknown or mistyped setting is named in a warning", async () => {
    session.settings = config();
    session.extra = { unsafeFix: true };
    await session.connection.sendNotification("workspace/didChangeConfiguration", didChangeConfigurationParams(session.settings));
    await session.until(() => session.messages.some((m) => m.type === 2 &&
      m.message.includes("unknown setting `unsafeFix` (did you mean `unsafeFixes`?)")), "a warning naming unsafeFix");
    session.extra = {};
  });

  test("a settings change reaches the server", async () => {
    const other = pathToFileURL(path.join(workDir, "other.py")).href;
    await session.connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri: other, languageId: "python", version: 1, text: original },
    });
    await session.diagnostics(other, (p) => p.diagnostics.some(isPTL101), "PTL101 in a second file");
    session.settings = config({ ignore: ["PTL101"] });
    await session.connection.sendNotification("workspace/didChangeConfiguration", didChangeConfigurationParams(session.settings));
    await session.diagnostics(other, (p) => !p.diagnostics.some(isPTL101), "PTL101 ignored after the change");
  });

  test("shutdown and exit end the server with status 0", async () => {
    assert.equal(await session.close(), 0);
  });
});

// How the extension starts and configures `ptlint --lsp`.
//
// This module is deliberately free of the `vscode` API: the extension imports it to build its
// LanguageClient, and the session test imports the very same functions to drive the real
// server outside VS Code. Anything that decides what the server receives belongs here.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Executable, ServerOptions } from "vscode-languageclient/node";

/** The configuration section, as in `workspace/didChangeConfiguration`. */
export const SECTION = "ptlint";

/** The code action kind the server offers for "apply every safe fix". */
export const FIX_ALL_KIND = "source.fixAll.ptlint";

/** The user-facing settings (docs/lsp.md), as VS Code stores them. */
export interface PtlintSettings {
  select: string[];
  extendSelect: string[];
  ignore: string[];
  configuration: string;
  unsafeFixes: boolean;
  torchVersion: string;
  gpuCheck: boolean;
  compileLog: string;
}

/**
 * Settings renamed so that every name is the server's own (`ptlint.X` is the server's `X`):
 * old name -> new name. The old name is still read when the new one is unset.
 */
export const RENAMED_SETTINGS: Readonly<Record<string, string>> = {
  "lint.extendSelect": "extendSelect",
  "lint.select": "select",
  "lint.ignore": "ignore",
};

/** Is a setting's value set to something (not its empty default)? */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "string") return value.trim().length > 0;
  return true;
}

/** A value under its new name, else under its old name (deprecated). */
function renamed(config: ConfigSource, name: string): unknown {
  const value = config.get<unknown>(name);
  if (isSet(value)) return value;
  for (const [old, current] of Object.entries(RENAMED_SETTINGS)) {
    if (current === name && isSet(config.get<unknown>(old))) return config.get<unknown>(old);
  }
  return value;
}

/** One notice per deprecated setting name in use, naming its replacement. */
export function deprecationNotices(config: ConfigSource): string[] {
  return Object.entries(RENAMED_SETTINGS)
    .filter(([old]) => isSet(config.get<unknown>(old)))
    .map(
      ([old, current]) =>
        `ptlint: the setting "${SECTION}.${old}" is deprecated; use "${SECTION}.${current}" ` +
        `(the old name is still read when the new one is unset).`,
    );
}

/** What the server receives: unset values are left out so the configuration file decides. */
export interface ServerSettings {
  select?: string[];
  extendSelect?: string[];
  ignore?: string[];
  configuration?: string;
  unsafeFixes: boolean;
  torchVersion?: string;
  gpuCheck: boolean;
  compileLog?: string;
}

/** The one method of `vscode.WorkspaceConfiguration` used here, so tests can pass a plain map. */
export interface ConfigSource {
  get<T>(key: string): T | undefined;
}

function stringList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is string => typeof v === "string")
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

/** Reads the `ptlint.*` settings, tolerating missing or mistyped values. */
export function readSettings(config: ConfigSource): PtlintSettings {
  const torchVersion = config.get<unknown>("torchVersion");
  const configuration = config.get<unknown>("configuration");
  const compileLog = config.get<unknown>("compileLog");
  return {
    select: stringList(renamed(config, "select")),
    extendSelect: stringList(renamed(config, "extendSelect")),
    ignore: stringList(renamed(config, "ignore")),
    configuration: typeof configuration === "string" ? configuration.trim() : "",
    unsafeFixes: config.get<unknown>("unsafeFixes") === true,
    torchVersion: typeof torchVersion === "string" ? torchVersion.trim() : "",
    gpuCheck: config.get<unknown>("gpuCheck") === true,
    compileLog: typeof compileLog === "string" ? compileLog.trim() : "",
  };
}

/** The settings object sent as `initializationOptions` and as `settings.ptlint` on change. */
export function serverSettings(settings: PtlintSettings): ServerSettings {
  const out: ServerSettings = {
    unsafeFixes: settings.unsafeFixes,
    gpuCheck: settings.gpuCheck,
  };
  if (settings.select.length > 0) out.select = [...settings.select];
  if (settings.extendSelect.length > 0) out.extendSelect = [...settings.extendSelect];
  if (settings.ignore.length > 0) out.ignore = [...settings.ignore];
  if (settings.configuration.length > 0) out.configuration = expandHome(settings.configuration);
  if (settings.torchVersion.length > 0) out.torchVersion = settings.torchVersion;
  if (settings.compileLog.length > 0) out.compileLog = settings.compileLog;
  return out;
}

export function initializationOptions(config: ConfigSource, extra: Record<string, unknown> = {}): ServerSettings {
  return { ...extra, ...serverSettings(readSettings(config)) };
}

/**
 * The settings a user wrote under `ptlint.` that this extension does not declare (a typo such as
 * `ptlint.unsafeFix`), flattened to dotted names. They are passed on to the server, which names
 * each in a warning with the closest known setting, rather than being dropped silently.
 * `tree` is the section's value tree; `declared` the declared names without the section prefix.
 */
export function undeclaredSettings(tree: unknown, declared: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (value: unknown, prefix: string): void => {
    if (declared.includes(prefix)) return;
    const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
    // A prefix of declared names (`codeAction`, `trace`): look inside.
    if (isObject && (prefix === "" || declared.some((d) => d.startsWith(`${prefix}.`)))) {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
        walk(inner, prefix === "" ? key : `${prefix}.${key}`);
      }
      return;
    }
    if (prefix !== "" && value !== undefined && value !== null) out[prefix] = value;
  };
  walk(tree, "");
  return out;
}

/** `workspace/didChangeConfiguration` parameters for the current settings. */
export function didChangeConfigurationParams(config: ConfigSource, extra: Record<string, unknown> = {}): {
  settings: { [SECTION]: ServerSettings };
} {
  return { settings: { [SECTION]: initializationOptions(config, extra) } };
}

export class ServerNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ServerNotFoundError";
  }
}

function isExecutableFile(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Looks `name` up on a PATH-like string, like the shell would. */
export function findOnPath(
  name: string,
  envPath: string | undefined,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (!envPath) return undefined;
  const suffixes = platform === "win32" ? [".exe", ".cmd", ""] : [""];
  for (const dir of envPath.split(path.delimiter)) {
    if (dir.length === 0) continue;
    for (const suffix of suffixes) {
      const candidate = path.join(dir, name + suffix);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Where a platform-specific package carries the binary, inside the extension's folder. */
export function bundledServerPath(extensionDir: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionDir, "bundled", platform === "win32" ? "ptlint.exe" : "ptlint");
}

/** Where to look for a project's own ptlint (`ptlint.importStrategy`, as ruff-vscode's). */
export type ImportStrategy = "fromEnvironment" | "useBundled";

export function importStrategy(config: ConfigSource): ImportStrategy {
  return config.get<unknown>("importStrategy") === "useBundled" ? "useBundled" : "fromEnvironment";
}

/** Where the server executable was found, for the output channel. */
export interface ResolvedServer {
  command: string;
  source: "ptlint.path" | "environment" | "bundled" | "PATH";
}

/** What the editor knows about the project's Python environment. */
export interface PythonEnvironment {
  /** The workspace folders, on disk. */
  folders?: string[];
  /**
   * The interpreter to use: `ptlint.interpreter` when set, else the one selected in the Python
   * extension (when installed). Its folder (`.venv/bin`) is searched for `ptlint`.
   */
  interpreter?: string;
}

function expandHome(file: string): string {
  return file === "~" || file.startsWith("~/") ? path.join(os.homedir(), file.slice(1)) : file;
}

/** `ptlint.interpreter`: the first entry of the list (or a string), `~/` expanded. */
export function configuredInterpreter(config: ConfigSource): string | undefined {
  const value = config.get<unknown>("interpreter");
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" && first.trim().length > 0 ? expandHome(first.trim()) : undefined;
}

/**
 * The project environment's ptlint: next to the interpreter (the `bin` folder of a venv or
 * conda environment), else in a `.venv` of a workspace folder.
 */
export function environmentServerPath(environment: PythonEnvironment, platform: NodeJS.Platform = process.platform): string | undefined {
  const name = platform === "win32" ? "ptlint.exe" : "ptlint";
  const candidates: string[] = [];
  if (environment.interpreter !== undefined && environment.interpreter.length > 0) {
    candidates.push(path.join(path.dirname(environment.interpreter), name));
  }
  for (const folder of environment.folders ?? []) {
    candidates.push(path.join(folder, ".venv", platform === "win32" ? "Scripts" : "bin", name));
  }
  return candidates.find(isExecutableFile);
}

/**
 * The executable to start, in order: `ptlint.path` when set (it must exist; `~/` is the home
 * folder); the project environment's ptlint (unless `ptlint.importStrategy` is `useBundled`); the
 * binary bundled in the extension (a platform-specific .vsix); `ptlint` on PATH.
 * Throws ServerNotFoundError with a message that says what to do.
 */
export function findServer(
  config: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
  extensionDir?: string,
  environment: PythonEnvironment = {},
): ResolvedServer {
  const configured = config.get<unknown>("path");
  if (typeof configured === "string" && configured.trim().length > 0) {
    const file = expandHome(configured.trim());
    if (!isExecutableFile(file)) {
      throw new ServerNotFoundError(
        `ptlint: the executable set in "ptlint.path" (${file}) does not exist or is not executable.`,
      );
    }
    return { command: file, source: "ptlint.path" };
  }
  if (importStrategy(config) === "fromEnvironment") {
    const interpreter = configuredInterpreter(config) ?? environment.interpreter;
    const found = environmentServerPath({ ...environment, interpreter });
    if (found !== undefined) return { command: found, source: "environment" };
  }
  if (extensionDir !== undefined) {
    const bundled = bundledServerPath(extensionDir);
    if (isExecutableFile(bundled)) return { command: bundled, source: "bundled" };
  }
  const found = findOnPath("ptlint", env["PATH"]);
  if (found === undefined) {
    throw new ServerNotFoundError(
      'ptlint: no "ptlint" executable in the project environment (.venv or the selected ' +
        'interpreter\'s), bundled with the extension or on PATH. Install ptlint ' +
        '(see docs/install.md), install the extension package for your platform, ' +
        'or set "ptlint.path" to the executable.',
    );
  }
  return { command: found, source: "PATH" };
}

/** The command of findServer. */
export function resolveServerPath(
  config: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
  extensionDir?: string,
  environment: PythonEnvironment = {},
): string {
  return findServer(config, env, extensionDir, environment).command;
}

/** Which kinds of quick fix the editor shows (`ptlint.codeAction.*.enable`). */
export interface CodeActionToggles {
  fixViolation: boolean;
  disableRuleComment: boolean;
}

export function codeActionToggles(config: ConfigSource): CodeActionToggles {
  return {
    fixViolation: config.get<unknown>("codeAction.fixViolation.enable") !== false,
    disableRuleComment: config.get<unknown>("codeAction.disableRuleComment.enable") !== false,
  };
}

/** Is this a `# noqa` action (the server titles it "CODE: Disable for this line") rather than a fix? */
function isDisableRuleComment(action: { title: string }): boolean {
  return action.title.endsWith(": Disable for this line");
}

/**
 * The quick fixes to show: a `quickfix` that adds `# noqa` is dropped when
 * `codeAction.disableRuleComment.enable` is false, one that fixes the finding when
 * `codeAction.fixViolation.enable` is false. Other kinds (`source.fixAll.ptlint`) always stay.
 */
export function filterCodeActions<T extends { kind?: string | { value: string }; title: string }>(
  actions: T[],
  toggles: CodeActionToggles,
): T[] {
  return actions.filter((action) => {
    const kind = typeof action.kind === "string" ? action.kind : action.kind?.value;
    if (kind !== "quickfix") return true;
    return isDisableRuleComment(action) ? toggles.disableRuleComment : toggles.fixViolation;
  });
}

/** The extension's log levels (`ptlint.logLevel`), least to most verbose. */
export const LOG_LEVELS = ["error", "warning", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function logLevel(config: ConfigSource): LogLevel {
  const value = config.get<unknown>("logLevel");
  return LOG_LEVELS.includes(value as LogLevel) ? (value as LogLevel) : "info";
}

/**
 * Does a server `window/logMessage` of LSP MessageType `type` (1 error, 2 warning, 3 info,
 * 4 log) reach the output channel at `level`?
 */
export function logs(level: LogLevel, type: number): boolean {
  return type <= LOG_LEVELS.indexOf(level) + 1;
}

/** `ptlint --lsp` on stdio (the transport vscode-languageclient uses when none is named). */
export function serverOptions(command: string, env: NodeJS.ProcessEnv = process.env): ServerOptions {
  const executable: Executable = {
    command,
    args: ["--lsp"],
    options: { env: { ...env } },
  };
  return { run: executable, debug: executable };
}

/** Python sources on disk and unsaved buffers; `.pyi` stubs are `python` in VS Code too. */
export const DOCUMENT_SELECTOR = [
  { scheme: "file", language: "python" },
  { scheme: "untitled", language: "python" },
  // Python cells of Jupyter notebooks (synchronised as LSP 3.17 notebook documents).
  { notebook: "jupyter-notebook", language: "python" },
];

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
  return {
    select: stringList(config.get<unknown>("select")),
    extendSelect: stringList(config.get<unknown>("lint.extendSelect")),
    ignore: stringList(config.get<unknown>("ignore")),
    configuration: typeof configuration === "string" ? configuration.trim() : "",
    unsafeFixes: config.get<unknown>("unsafeFixes") === true,
    torchVersion: typeof torchVersion === "string" ? torchVersion.trim() : "",
    gpuCheck: config.get<unknown>("gpuCheck") === true,
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
  if (settings.configuration.length > 0) {
    let file = settings.configuration;
    if (file === "~" || file.startsWith("~/")) file = path.join(os.homedir(), file.slice(1));
    out.configuration = file;
  }
  if (settings.torchVersion.length > 0) out.torchVersion = settings.torchVersion;
  return out;
}

export function initializationOptions(config: ConfigSource): ServerSettings {
  return serverSettings(readSettings(config));
}

/** `workspace/didChangeConfiguration` parameters for the current settings. */
export function didChangeConfigurationParams(config: ConfigSource): {
  settings: { [SECTION]: ServerSettings };
} {
  return { settings: { [SECTION]: initializationOptions(config) } };
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

/**
 * The executable to start: `ptlint.path` when set (it must exist; `~/` is the home folder), else
 * the binary bundled in the extension (a platform-specific .vsix), else `ptlint` on PATH.
 * Throws ServerNotFoundError with a message that says what to do.
 */
export function resolveServerPath(
  config: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
  extensionDir?: string,
): string {
  const configured = config.get<unknown>("path");
  if (typeof configured === "string" && configured.trim().length > 0) {
    let file = configured.trim();
    if (file === "~" || file.startsWith("~/")) file = path.join(os.homedir(), file.slice(1));
    if (!isExecutableFile(file)) {
      throw new ServerNotFoundError(
        `ptlint: the executable set in "ptlint.path" (${file}) does not exist or is not executable.`,
      );
    }
    return file;
  }
  if (extensionDir !== undefined) {
    const bundled = bundledServerPath(extensionDir);
    if (isExecutableFile(bundled)) return bundled;
  }
  const found = findOnPath("ptlint", env["PATH"]);
  if (found === undefined) {
    throw new ServerNotFoundError(
      'ptlint: no "ptlint" executable bundled with the extension or on PATH. Install ptlint ' +
        '(see docs/install.md), install the extension package for your platform, ' +
        'or set "ptlint.path" to the executable.',
    );
  }
  return found;
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

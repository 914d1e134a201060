// The VS Code client: starts `ptlint --lsp`, keeps its settings in sync, and offers the
// commands. No lint logic lives here; what the server receives is built in serverConfig.ts.

import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  type LanguageClientOptions,
  LogMessageNotification,
  type LSPAny,
  RevealOutputChannelOn,
} from "vscode-languageclient/node";

import {
  codeActionToggles,
  deprecationNotices,
  DOCUMENT_SELECTOR,
  filterCodeActions,
  logLevel,
  logs,
  didChangeConfigurationParams,
  FIX_ALL_KIND,
  findServer,
  importStrategy,
  initializationOptions,
  type PythonEnvironment,
  SECTION,
  undeclaredSettings,
  ServerNotFoundError,
  serverOptions,
} from "./serverConfig";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let extensionDir: string | undefined;

const LOG_NAMES: Record<number, string> = { 1: "error", 2: "warning", 3: "info", 4: "log" };

function configuration(scope?: vscode.Uri): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, scope);
}

let declaredSettings: string[] = [];
let subscriptions: vscode.Disposable[] | undefined;

function isSet(value: unknown): boolean {
  return typeof value === "string" && value.trim().length > 0;
}

/** A user's `ptlint.*` settings this extension does not declare, passed on for the server to name. */
function undeclared(scope?: vscode.Uri): Record<string, unknown> {
  try {
    return undeclaredSettings(JSON.parse(JSON.stringify(configuration(scope))) as unknown, declaredSettings);
  } catch {
    return {};
  }
}

function clientOptions(): LanguageClientOptions {
  return {
    documentSelector: DOCUMENT_SELECTOR,
    initializationOptions: initializationOptions(configuration(), undeclared()),
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    middleware: {
      // `ptlint.codeAction.*.enable`: hide the quick fixes the user turned off.
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        if (!actions) return actions;
        return filterCodeActions(actions, codeActionToggles(configuration(document.uri)));
      },
      workspace: {
        // Answer `workspace/configuration` for our section with the same normalised object as
        // initializationOptions, per folder (multi-root workspaces each use their own settings).
        configuration: async (params, token, next) => {
          const defaults = await next(params, token);
          if (!Array.isArray(defaults)) return defaults;
          return params.items.map((item, i): LSPAny => {
            if (item.section !== SECTION) return defaults[i] as LSPAny;
            const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
            return initializationOptions(configuration(scope), undeclared(scope)) as unknown as LSPAny;
          });
        },
      },
    },
  };
}

/** The Python extension's API, as far as it is used here (it may be absent or older). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

/** Set once the Python extension's interpreter changes are followed (a restart picks its ptlint). */
let followingInterpreter = false;

/** The workspace folders and the interpreter selected in the Python extension, when there is one. */
async function pythonEnvironment(): Promise<PythonEnvironment> {
  // An untrusted workspace's `.venv` could hold any program: not started until trust is granted.
  if (!vscode.workspace.isTrusted) return {};
  const folders = (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === "file")
    .map((f) => f.uri.fsPath);
  let interpreter: string | undefined;
  try {
    const python = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
    if (python !== undefined) {
      const api = python.isActive ? python.exports : await python.activate();
      interpreter = api?.environments?.getActiveEnvironmentPath(vscode.workspace.workspaceFolders?.[0]?.uri)?.path;
      const changed = api?.environments?.onDidChangeActiveEnvironmentPath;
      if (!followingInterpreter && changed !== undefined) {
        followingInterpreter = true;
        subscriptions?.push(
          changed(() => {
            if (importStrategy(configuration()) === "fromEnvironment" && !isSet(configuration().get("path"))) {
              void restartClient();
            }
          }),
        );
      }
    }
  } catch (err) {
    output.appendLine(`The Python extension's interpreter could not be read: ${String(err)}`);
  }
  return { folders, interpreter };
}

/** A warning per deprecated setting name in use (once per session and name). */
const noticesShown = new Set<string>();
function showDeprecationNotices(): void {
  for (const notice of deprecationNotices(configuration())) {
    if (noticesShown.has(notice)) continue;
    noticesShown.add(notice);
    output.appendLine(notice);
    void vscode.window.showWarningMessage(notice);
  }
}

async function startClient(): Promise<void> {
  if (configuration().get<boolean>("enable") === false) {
    output.appendLine('ptlint is turned off ("ptlint.enable" is false).');
    return;
  }
  let command: string;
  try {
    const found = findServer(configuration(), process.env, extensionDir, await pythonEnvironment());
    command = found.command;
    output.appendLine(`Using ${command} (from ${found.source})`);
  } catch (err) {
    if (!(err instanceof ServerNotFoundError)) throw err;
    output.appendLine(err.message);
    const choice = await vscode.window.showErrorMessage(err.message, "Open Settings", "Show Output");
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "ptlint.path");
    } else if (choice === "Show Output") {
      output.show(true);
    }
    return;
  }
  output.appendLine(`Starting ${command} --lsp`);
  client = new LanguageClient("ptlint", "ptlint", serverOptions(command), clientOptions());
  try {
    await client.start();
    // `ptlint.logLevel`: the server's log messages above it do not reach the output channel.
    client.onNotification(LogMessageNotification.type, (params) => {
      if (logs(logLevel(configuration()), params.type)) output.appendLine(`[${LOG_NAMES[params.type] ?? "log"}] ${params.message}`);
    });
  } catch (err) {
    const message = `ptlint: the server (${command} --lsp) failed to start: ${String(err)}`;
    output.appendLine(message);
    void vscode.window.showErrorMessage(message, "Show Output").then((choice) => {
      if (choice === "Show Output") output.show(true);
    });
  }
}

async function stopClient(): Promise<void> {
  const running = client;
  client = undefined;
  if (running === undefined) return;
  try {
    await running.stop();
  } catch (err) {
    output.appendLine(`Stopping the server failed: ${String(err)}`);
  }
}

async function restartClient(): Promise<void> {
  await stopClient();
  await startClient();
}

/** Applies the server's `source.fixAll.ptlint` action to the active Python editor. */
async function fixAll(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.languageId !== "python") {
    void vscode.window.showInformationMessage("ptlint: open a Python file to fix it.");
    return;
  }
  const document = editor.document;
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
    "vscode.executeCodeActionProvider",
    document.uri,
    whole,
    FIX_ALL_KIND,
  );
  const kind = vscode.CodeActionKind.Source.append("fixAll").append("ptlint");
  const action = (actions ?? []).find((a) => a.kind !== undefined && kind.contains(a.kind));
  if (action === undefined) {
    void vscode.window.showInformationMessage("ptlint: nothing to fix.");
    return;
  }
  if (action.edit !== undefined) await vscode.workspace.applyEdit(action.edit);
  if (action.command !== undefined) {
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }
}

function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
  if (!event.affectsConfiguration(SECTION)) return;
  showDeprecationNotices();
  const restartOn = ["path", "enable", "interpreter", "importStrategy"];
  if (restartOn.some((name) => event.affectsConfiguration(`${SECTION}.${name}`))) {
    void restartClient();
    return;
  }
  if (client === undefined || !client.isRunning()) return;
  void client.sendNotification(
    DidChangeConfigurationNotification.type,
    didChangeConfigurationParams(configuration(), undeclared()),
  );
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("ptlint");
  extensionDir = context.extensionPath;
  subscriptions = context.subscriptions;
  const manifest = context.extension.packageJSON as { contributes?: { configuration?: { properties?: object } } };
  declaredSettings = Object.keys(manifest.contributes?.configuration?.properties ?? {}).map((k) =>
    k.slice(SECTION.length + 1),
  );
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("ptlint.fixAll", fixAll),
    vscode.commands.registerCommand("ptlint.restart", restartClient),
    vscode.commands.registerCommand("ptlint.showOutput", () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restartClient()),
  );
  showDeprecationNotices();
  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

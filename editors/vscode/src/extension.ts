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
  DOCUMENT_SELECTOR,
  filterCodeActions,
  logLevel,
  logs,
  didChangeConfigurationParams,
  FIX_ALL_KIND,
  initializationOptions,
  resolveServerPath,
  SECTION,
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

function clientOptions(): LanguageClientOptions {
  return {
    documentSelector: DOCUMENT_SELECTOR,
    initializationOptions: initializationOptions(configuration()),
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
            return initializationOptions(configuration(scope)) as unknown as LSPAny;
          });
        },
      },
    },
  };
}

async function startClient(): Promise<void> {
  if (configuration().get<boolean>("enable") === false) {
    output.appendLine('ptlint is turned off ("ptlint.enable" is false).');
    return;
  }
  let command: string;
  try {
    command = resolveServerPath(configuration(), process.env, extensionDir);
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
  if (event.affectsConfiguration(`${SECTION}.path`) || event.affectsConfiguration(`${SECTION}.enable`)) {
    void restartClient();
    return;
  }
  if (client === undefined || !client.isRunning()) return;
  void client.sendNotification(
    DidChangeConfigurationNotification.type,
    didChangeConfigurationParams(configuration()),
  );
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("ptlint");
  extensionDir = context.extensionPath;
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("ptlint.fixAll", fixAll),
    vscode.commands.registerCommand("ptlint.restart", restartClient),
    vscode.commands.registerCommand("ptlint.showOutput", () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
  );
  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

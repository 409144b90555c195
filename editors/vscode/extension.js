// extension.js: starts coroc-lsp, coroc's language server, for the .coc
// documents of the workspace (languageId "coc", from package.json), over its
// standard input and output. The highlighting needs no code: it is the
// grammar that package.json contributes.
//
// The one thing done here besides: the code lens "C: stackless / stackful"
// runs the server's command coroc.showGeneratedC, whose answer is the
// generated C of one coroutine ({version, text}, or null before a good
// translation). The language client sends the command and returns that answer
// to no one; the middleware below shows it beside the .coc, as a read-only
// document of a scheme of its own (a content provider's documents cannot be
// edited), named COROUTINE.BACKEND.c so that VS Code colours it as C.
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

const SCHEME = "coroc-generated";
const COMMAND = "coroc.showGeneratedC";

let client;
const shown = new Map(); // a generated document's URI (as a string) -> its text

function serverOptions() {
  const command = vscode.workspace.getConfiguration("coroc").get("server.path", "coroc-lsp");
  return { command, args: [] };
}

// The name of the generated document of the command's argument {uri, coroutine, backend}.
function generatedUri(arg) {
  const backend = arg.backend || "stackless";
  const file = (arg.uri || "").split("/").pop().replace(/\.coc$/, "") || "coroc";
  const name = arg.coroutine || file;
  return vscode.Uri.from({ scheme: SCHEME, path: `/${name}.${backend}.c`, query: arg.uri || "" });
}

function showGeneratedC(changed) {
  return async (command, args, next) => {
    const result = await next(command, args);
    if (command !== COMMAND) return result;
    if (!result || typeof result.text !== "string") {
      vscode.window.showInformationMessage("coroc: no translation of this file yet (it has an error)");
      return result;
    }
    const uri = generatedUri((args && args[0]) || {});
    shown.set(uri.toString(), result.text);
    changed.fire(uri); // (an open one shows the new text)
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    return result;
  };
}

async function activate(context) {
  const changed = new vscode.EventEmitter();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => shown.get(uri.toString()) || "",
    }),
  );
  client = new LanguageClient("coroc-lsp", "coroc-lsp", serverOptions(), {
    documentSelector: [{ scheme: "file", language: "coc" }],
    middleware: { executeCommand: showGeneratedC(changed) },
  });
  context.subscriptions.push(client);
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

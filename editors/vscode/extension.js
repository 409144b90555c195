// extension.js: starts coroc-lsp, coroc's language server, for the .coc
// documents of the workspace (languageId "coc", from package.json), over its
// standard input and output. The highlighting needs no code: it is the
// grammar that package.json contributes.
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function serverOptions() {
  const command = vscode.workspace.getConfiguration("coroc").get("server.path", "coroc-lsp");
  return { command, args: [] };
}

async function activate(context) {
  client = new LanguageClient("coroc-lsp", "coroc-lsp", serverOptions(), {
    documentSelector: [{ scheme: "file", language: "coc" }],
  });
  context.subscriptions.push(client);
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

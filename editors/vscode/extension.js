// Starts `rulesrun lsp` (the setting rulesrun.command) for .rules files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("rulesrun").get("command", ["rulesrun", "lsp"]);
  client = new LanguageClient(
    "rulesrun",
    "rulesrun language server",
    { command, args },
    { documentSelector: [{ scheme: "file", language: "rules" }, { scheme: "untitled", language: "rules" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

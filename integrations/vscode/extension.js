// parlint for VS Code: starts `parlint lsp` on stdio for YAML, Python and shell documents (SLURM
// .sbatch/.slurm/.slrm files are registered as shell scripts) and restarts it when the settings change.
'use strict';
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function createClient() {
  const config = vscode.workspace.getConfiguration('parlint');
  const serverOptions = {
    command: config.get('path', 'parlint'),
    args: ['lsp'],
    transport: TransportKind.stdio,
  };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'file', language: 'python' },
      { scheme: 'file', language: 'shellscript' },
      { scheme: 'untitled', language: 'yaml' },
      { scheme: 'untitled', language: 'shellscript' },
    ],
    initializationOptions: { debounceMs: config.get('debounceMs', 25) },
    // Configuration changes (.parlint.yaml, [tool.parlint] in pyproject.toml) re-lint every open document.
    synchronize: {
      fileEvents: [
        vscode.workspace.createFileSystemWatcher('**/.parlint.yaml'),
        vscode.workspace.createFileSystemWatcher('**/pyproject.toml'),
      ],
    },
  };
  return new LanguageClient('parlint', 'parlint', serverOptions, clientOptions);
}

async function activate(context) {
  client = createClient();
  await client.start();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('parlint')) return;
      await client.stop();
      client = createClient();
      await client.start();
    }),
    { dispose: () => client && client.stop() },
  );
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

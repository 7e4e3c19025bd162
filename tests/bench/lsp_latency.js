// Latency of `parlint lsp`: from sending textDocument/didChange for a 2,000-line SLURM script to receiving
// the publishDiagnostics for that version. A benchmark, not a test: `make bench-lsp` runs it.
// Edits are sent one at a time (each waits for its diagnostics) so that debouncing never merges them.
'use strict';
const cp = require('node:child_process');
const path = require('node:path');
const rpc = require('vscode-jsonrpc/node');
const proto = require('vscode-languageserver-protocol');

const PARLINT = process.env.PARLINT || path.join(__dirname, '..', '..', 'build', 'parlint');
const EDITS = Number(process.env.EDITS || 300);
const text = cp.execFileSync('python3', [path.join(__dirname, 'gen_script.py'), '2000']).toString();
const uri = 'file:///tmp/parlint-bench/train.sbatch';

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(debounceMs) {
  const child = cp.spawn(PARLINT, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout),
                                           new rpc.StreamMessageWriter(child.stdin));
  let waiting = null;
  conn.onNotification(proto.PublishDiagnosticsNotification.type, (p) => {
    if (waiting && p.version === waiting.version) waiting.resolve();
  });
  conn.listen();
  await conn.sendRequest(proto.InitializeRequest.type,
                         { processId: null, rootUri: null, capabilities: {}, initializationOptions: { debounceMs } });
  conn.sendNotification(proto.InitializedNotification.type, {});
  const published = (version) => new Promise((resolve) => { waiting = { version, resolve }; });
  let wait = published(1);
  conn.sendNotification(proto.DidOpenTextDocumentNotification.type,
                        { textDocument: { uri, languageId: 'shellscript', version: 1, text } });
  await wait;
  const line = text.split('\n').findIndex((l) => l.startsWith('TP=${TP:-'));
  const times = [];
  for (let v = 2; v < EDITS + 2; ++v) {
    wait = published(v);
    const start = process.hrtime.bigint();
    // A one-character edit: the TP default alternates between 4 and 8.
    conn.sendNotification(proto.DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: v },
      contentChanges: [{ range: { start: { line, character: 9 }, end: { line, character: 10 } },
                         text: v % 2 ? '4' : '8' }],
    });
    await wait;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  await conn.sendRequest(proto.ShutdownRequest.type);
  conn.sendNotification(proto.ExitNotification.type);
  conn.dispose();
  times.sort((a, b) => a - b);
  return { debounceMs, edits: times.length, median: percentile(times, 50), p99: percentile(times, 99),
           max: times[times.length - 1] };
}

(async () => {
  console.log(`parlint lsp latency, didChange -> publishDiagnostics, ${text.split('\n').length - 1}-line sbatch script`);
  for (const debounce of [0, 25]) {
    const r = await measure(debounce);
    console.log(`  debounce ${String(r.debounceMs).padStart(2)} ms: median ${r.median.toFixed(1)} ms, ` +
                `p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms over ${r.edits} edits`);
  }
})();

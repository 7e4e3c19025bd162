// `parlint lsp` driven by a real LSP client library: vscode-jsonrpc and vscode-languageserver-protocol
// (the libraries VS Code's own client is built on), pinned in tests/tools/package-lock.json.
// Run by ctest: PARLINT=build/parlint NODE_PATH=build/test-tools/node_modules node --test tests/lsp/client_test.js
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const rpc = require('vscode-jsonrpc/node');
const proto = require('vscode-languageserver-protocol');

const PARLINT = process.env.PARLINT || path.join(__dirname, '..', '..', 'build', 'parlint');

const SCRIPT = `#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py \\
  --tensor-model-parallel-size 16 --sequence-parallel --seq-length 4096 \\
  --num-layers 32 --hidden-size 4096 --num-attention-heads 32
`;
const LAUNCH = `#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py \\
  --tensor-model-parallel-size 8 --sequence-parallel --seq-length 4096 \\
  --config-file conf/model.yaml
`;
const MODEL_OK = 'num_layers: 32\nhidden_size: 4096\nnum_attention_heads: 32\n';

function workspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parlint-lsp-'));
  fs.mkdirSync(path.join(dir, 'conf'));
  fs.writeFileSync(path.join(dir, 'train.sbatch'), SCRIPT);
  fs.writeFileSync(path.join(dir, 'launch.sbatch'), LAUNCH);
  fs.writeFileSync(path.join(dir, 'conf', 'model.yaml'), MODEL_OK);
  return dir;
}

const uriOf = (p) => 'file://' + p.split('/').map(encodeURIComponent).join('/');

// A client session: a spawned server, a connection, and the diagnostics it has published so far.
async function start(capabilities = {}, initializationOptions = { debounceMs: 10 }) {
  const child = cp.spawn(PARLINT, ['lsp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout),
                                           new rpc.StreamMessageWriter(child.stdin));
  const published = new Map();  // uri -> list of {version, diagnostics}
  const waiters = [];
  conn.onNotification(proto.PublishDiagnosticsNotification.type, (p) => {
    if (!published.has(p.uri)) published.set(p.uri, []);
    published.get(p.uri).push(p);
    for (const w of [...waiters]) if (w.check()) waiters.splice(waiters.indexOf(w), 1);
  });
  conn.onRequest('client/registerCapability', () => null);
  conn.listen();
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const init = await conn.sendRequest(proto.InitializeRequest.type, {
    processId: process.pid, rootUri: null, capabilities, initializationOptions, workspaceFolders: null,
  });
  conn.sendNotification(proto.InitializedNotification.type, {});
  const s = {
    child, conn, init, published, exited, stderr: () => stderr,
    latest: (uri) => { const l = published.get(uri); return l ? l[l.length - 1] : undefined; },
    // Resolves with the first publication for `uri` that satisfies `pred`, past or future.
    until(uri, pred, what = 'diagnostics') {
      return new Promise((resolve, reject) => {
        const check = () => {
          const p = s.latest(uri);
          if (p && pred(p)) { clearTimeout(timer); resolve(p); return true; }
          return false;
        };
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what} on ${uri}: ` +
          JSON.stringify(s.latest(uri)).slice(0, 300) + '\nserver stderr:\n' + stderr)), 10000);
        if (!check()) waiters.push({ check });
      });
    },
    open(file, text, languageId) {
      conn.sendNotification(proto.DidOpenTextDocumentNotification.type,
                            { textDocument: { uri: uriOf(file), languageId, version: 1, text } });
    },
    async stop() {
      await conn.sendRequest(proto.ShutdownRequest.type);
      conn.sendNotification(proto.ExitNotification.type);
      const code = await exited;
      conn.dispose();
      return code;
    },
  };
  return s;
}

const codes = (p) => p.diagnostics.map((d) => d.code).sort();

// Every server a test starts is killed when the test ends, so a failed assertion cannot leave a live
// child process that keeps the test runner waiting.
const children = new Set();
const { afterEach } = require('node:test');
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
});

test('capabilities, diagnostics, a fix, a dependency edit, a code action, hover and shutdown', async () => {
  const dir = workspace();
  const s = await start({ general: { positionEncodings: ['utf-16'] } });
  const caps = s.init.capabilities;
  assert.equal(caps.positionEncoding, 'utf-16');
  assert.equal(caps.textDocumentSync.change, proto.TextDocumentSyncKind.Incremental);
  assert.equal(caps.hoverProvider, true);
  assert.deepEqual(caps.codeActionProvider.codeActionKinds, ['quickfix', 'source.fixAll.parlint']);

  // A bad script: TP=16 on 8-GPU nodes.
  const script = path.join(dir, 'train.sbatch');
  const uri = uriOf(script);
  s.open(script, SCRIPT, 'shellscript');
  let p = await s.until(uri, (x) => codes(x).includes('PL101'));
  const d = p.diagnostics.find((x) => x.code === 'PL101');
  assert.deepEqual(d.range, { start: { line: 5, character: 2 }, end: { line: 5, character: 33 } });
  assert.equal(d.severity, proto.DiagnosticSeverity.Error);
  assert.equal(d.source, 'parlint');
  assert.match(d.codeDescription.href, /docs\/rules\.md#pl101-tp-crosses-nvlink-domain$/);
  assert.match(d.message, /TP=16 spans 2 NVLink domains of 8 GPUs/);
  assert.equal(d.relatedInformation[0].location.uri, uri);
  assert.equal(p.version, 1);

  // Fix it with an incremental edit: "16" -> "8" on line 6.
  s.conn.sendNotification(proto.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: { line: 5, character: 31 }, end: { line: 5, character: 33 } }, text: '8' }],
  });
  p = await s.until(uri, (x) => x.version === 2);
  assert.deepEqual(codes(p), []);

  // A script that reads a YAML: editing the open YAML buffer (unsaved) re-lints the script.
  const launch = path.join(dir, 'launch.sbatch');
  const yaml = path.join(dir, 'conf', 'model.yaml');
  s.open(launch, LAUNCH, 'shellscript');
  s.open(yaml, MODEL_OK, 'yaml');
  await s.until(uriOf(launch), (x) => x.diagnostics.length === 0);
  s.conn.sendNotification(proto.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: uriOf(yaml), version: 2 },
    contentChanges: [{ text: MODEL_OK.replace('heads: 32', 'heads: 12') }],
  });
  p = await s.until(uriOf(launch), (x) => codes(x).includes('PL501'), 'PL501 from the edited YAML');
  assert.match(p.diagnostics[0].message, /num_attention_heads=12 is not divisible by TP=8/);
  assert.equal(fs.readFileSync(yaml, 'utf8'), MODEL_OK, 'the buffer, not the disk, was read');

  // The code action inserts a suppression; applying it removes the finding.
  const bad = p.diagnostics.find((x) => x.code === 'PL501');
  const actions = await s.conn.sendRequest(proto.CodeActionRequest.type, {
    textDocument: { uri: uriOf(launch) }, range: bad.range, context: { diagnostics: [bad] },
  });
  assert.equal(actions.length, 1);
  assert.equal(actions[0].kind, 'quickfix');
  const edits = actions[0].edit.changes[uriOf(launch)];
  const fixed = applyEdits(LAUNCH, edits);
  // The flagged line is inside a backslash-continued command: the comment cannot go at its end.
  assert.match(fixed, /# parlint: disable=PL501\nsrun/);
  s.conn.sendNotification(proto.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: uriOf(launch), version: 2 }, contentChanges: [{ text: fixed }],
  });
  p = await s.until(uriOf(launch), (x) => x.version === 2);
  assert.deepEqual(codes(p), []);

  // Hover on the TP value of the first script shows the resolved layout.
  const hover = await s.conn.sendRequest(proto.HoverRequest.type, {
    textDocument: { uri }, position: { line: 5, character: 31 },
  });
  assert.equal(hover.contents.kind, 'markdown');
  assert.match(hover.contents.value, /\| \*\*TP\*\* \| 8 \| --tensor-model-parallel-size 8 at line 6 \|/);
  assert.match(hover.contents.value, /DP = W \/ \(TP·PP·CP\) = 16 \/ \(8·1·1\) = 2/);
  assert.match(hover.contents.value, /minimum GPUs M = PP·lcm\(TP·CP, EP·ETP\) = 1·lcm\(8, 8\) = 8/);
  const nothing = await s.conn.sendRequest(proto.HoverRequest.type, {
    textDocument: { uri }, position: { line: 0, character: 2 },
  });
  assert.equal(nothing, null);

  // Closing a document clears its diagnostics.
  s.conn.sendNotification(proto.DidCloseTextDocumentNotification.type, { textDocument: { uri: uriOf(launch) } });
  await s.until(uriOf(launch), (x) => x.diagnostics.length === 0 && x.version === undefined);

  assert.equal(await s.stop(), 0);
});

// SP at TP=1 (a safe fix removes the flag) and a misspelt pipeline flag (a safe respelling), non-ASCII
// text before them on the lines so that UTF-16 columns differ from code points.
const FIXABLE = `#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun --nproc_per_node=8 pretrain_gpt.py \\
  --tensor-model-parallel-size 1 \\
  --sequence-parallel \\
  --pipeline-model-paralel-size 1 \\
  --num-layers 32 --data-path "données/𝔠orpus"
`;

test('a rule\'s fix as a preferred quick fix, and source.fixAll.parlint', async () => {
  const dir = workspace();
  const s = await start({ general: { positionEncodings: ['utf-16'] } });
  const file = path.join(dir, 'fix.sh');
  const uri = uriOf(file);
  s.open(file, FIXABLE, 'shellscript');
  let p = await s.until(uri, (x) => codes(x).includes('PL201') && codes(x).includes('PL801'));
  const sp = p.diagnostics.find((x) => x.code === 'PL201');
  const actions = await s.conn.sendRequest(proto.CodeActionRequest.type, {
    textDocument: { uri }, range: sp.range, context: { diagnostics: [sp], only: ['quickfix'] },
  });
  const fix = actions.find((a) => a.title.startsWith('Fix PL201'));
  assert.ok(fix, JSON.stringify(actions));
  assert.equal(fix.kind, 'quickfix');
  assert.equal(fix.isPreferred, true);
  assert.ok(actions.some((a) => a.title.startsWith('Suppress PL201')), 'the suppression stays on offer');
  let text = applyEdits(FIXABLE, fix.edit.changes[uri]);
  assert.equal(text, FIXABLE.replace('  --sequence-parallel \\\n', ''));
  s.conn.sendNotification(proto.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 }, contentChanges: [{ text }],
  });
  p = await s.until(uri, (x) => x.version === 2);
  assert.deepEqual(codes(p), ['PL801']);

  // Every safe fix of the document at once, as editors request it on save.
  const all = await s.conn.sendRequest(proto.CodeActionRequest.type, {
    textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [], only: ['source.fixAll'] },
  });
  assert.equal(all.length, 1, JSON.stringify(all));
  assert.equal(all[0].kind, 'source.fixAll.parlint');
  text = applyEdits(text, all[0].edit.changes[uri]);
  assert.match(text, /--pipeline-model-parallel-size 1/);
  assert.match(text, /"données\/𝔠orpus"\n$/);
  s.conn.sendNotification(proto.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 3 }, contentChanges: [{ text }],
  });
  p = await s.until(uri, (x) => x.version === 3);
  assert.deepEqual(codes(p), []);
  assert.equal(await s.stop(), 0);
});

test('configuration reload, newest version wins, UTF-8 negotiation', async () => {
  const dir = workspace();
  const s = await start({ general: { positionEncodings: ['utf-8', 'utf-16'] },
                          workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
                        { debounceMs: 40 });
  assert.equal(s.init.capabilities.positionEncoding, 'utf-8');
  const file = path.join(dir, 'wide.yaml');
  // Non-ASCII before the finding: "日本" is 6 bytes in UTF-8 (2 UTF-16 units); 🚀 is 4 bytes (2 units).
  const text = 'trainer: {devices: 8, num_nodes: 2}\nmodel: {name: "日本🚀", tensor_model_parallel_size: 16}\n';
  fs.writeFileSync(file, text);
  s.open(file, text, 'yaml');
  let p = await s.until(uriOf(file), (x) => codes(x).includes('PL101'));
  const prefix = 'model: {name: "日本🚀", tensor_model_parallel_size: ';
  assert.equal(p.diagnostics[0].range.start.character, Buffer.byteLength(prefix, 'utf8'));

  // A burst of edits: only the newest version's result is published last, and it is right.
  for (let v = 2; v <= 6; ++v) {
    s.conn.sendNotification(proto.DidChangeTextDocumentNotification.type, {
      textDocument: { uri: uriOf(file), version: v },
      contentChanges: [{ text: text.replace('size: 16', `size: ${v === 6 ? 4 : 16 + v}`) }],
    });
  }
  p = await s.until(uriOf(file), (x) => x.version === 6);
  assert.deepEqual(codes(p), []);
  // Never an older version after a newer one, and nothing after the newest: a stale result is dropped.
  const versions = s.published.get(uriOf(file)).map((x) => x.version);
  assert.ok(versions.every((v, i) => i === 0 || v >= versions[i - 1]), 'out of order: ' + versions);
  assert.equal(versions[versions.length - 1], 6);

  // .parlint.yaml changes on disk: the watcher notification re-lints with the new configuration.
  s.conn.sendNotification(proto.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: uriOf(file), version: 7 }, contentChanges: [{ text }],
  });
  await s.until(uriOf(file), (x) => x.version === 7 && codes(x).includes('PL101'));
  fs.writeFileSync(path.join(dir, '.parlint.yaml'), 'ignore: [PL101]\n');
  const before = s.published.get(uriOf(file)).length;
  s.conn.sendNotification(proto.DidChangeWatchedFilesNotification.type, {
    changes: [{ uri: uriOf(path.join(dir, '.parlint.yaml')), type: proto.FileChangeType.Created }],
  });
  p = await s.until(uriOf(file), (x) => s.published.get(uriOf(file)).length > before && !codes(x).includes('PL101'));
  assert.equal(await s.stop(), 0);
});

// Raw bytes: what no client library would send.
function rawSession() {
  const child = cp.spawn(PARLINT, ['lsp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let buf = Buffer.alloc(0);
  const messages = [];
  let notify = null;
  child.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) break;
      const m = /Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString());
      const len = Number(m[1]);
      if (buf.length < end + 4 + len) break;
      messages.push(JSON.parse(buf.subarray(end + 4, end + 4 + len).toString()));
      buf = buf.subarray(end + 4 + len);
      if (notify) notify();
    }
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const frame = (obj) => {
    const body = Buffer.from(typeof obj === 'string' ? obj : JSON.stringify(obj));
    return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
  };
  return {
    child, messages, exited, frame,
    write: (b) => child.stdin.write(b),
    waitFor: (pred) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timeout; got ' + JSON.stringify(messages))), 10000);
      const check = () => { const m = messages.find(pred); if (m) { clearTimeout(timer); notify = null; resolve(m); } };
      notify = check;
      check();
    }),
  };
}

test('malformed input gets JSON-RPC errors and the server keeps serving', async () => {
  const r = rawSession();
  // A request before initialize.
  r.write(r.frame({ jsonrpc: '2.0', id: 1, method: 'textDocument/hover', params: {} }));
  assert.equal((await r.waitFor((m) => m.id === 1)).error.code, -32002);
  r.write(r.frame({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { capabilities: {} } }));
  await r.waitFor((m) => m.id === 2 && m.result);
  // Invalid JSON, a header without Content-Length, a bad Content-Length, a non-object message.
  r.write(r.frame('{"jsonrpc": "2.0", "id": 3, "method": '));
  r.write(Buffer.from('Content-Type: application/json\r\n\r\n'));
  r.write(Buffer.from('Content-Length: twelve\r\n\r\n'));
  r.write(r.frame('[1, 2, 3]'));
  // Unknown method, bad params for a request and for a notification.
  r.write(r.frame({ jsonrpc: '2.0', id: 4, method: 'textDocument/frobnicate', params: {} }));
  r.write(r.frame({ jsonrpc: '2.0', id: 5, method: 'textDocument/hover', params: { textDocument: 7 } }));
  r.write(r.frame({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 3 } } }));
  // A message over the 64 MiB limit is refused without being parsed.
  const huge = Buffer.alloc(65 * 1024 * 1024, 0x20);
  r.write(Buffer.concat([Buffer.from(`Content-Length: ${huge.length}\r\n\r\n`), huge]));
  r.write(r.frame({ jsonrpc: '2.0', id: 6, method: 'shutdown' }));
  await r.waitFor((m) => m.id === 6);
  const errors = r.messages.filter((m) => m.error).map((m) => [m.id, m.error.code]);
  assert.deepEqual(errors, [[1, -32002], [null, -32700], [null, -32700], [null, -32700], [null, -32600],
                            [4, -32601], [5, -32602], [null, -32700]]);
  assert.match(r.messages.filter((m) => m.error && m.id === null).pop().error.message, /over the 64 MiB limit/);
  assert.equal((await r.waitFor((m) => m.id === 6)).result, null);
  r.write(r.frame({ jsonrpc: '2.0', method: 'exit' }));
  assert.equal(await r.exited, 0);
});

test('exit without shutdown is exit code 1; end of input ends the server', async () => {
  const r = rawSession();
  r.write(r.frame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } }));
  await r.waitFor((m) => m.id === 1);
  r.write(r.frame({ jsonrpc: '2.0', method: 'exit' }));
  assert.equal(await r.exited, 1);
  const r2 = rawSession();
  r2.child.stdin.end();
  assert.equal(await r2.exited, 1);
});

function applyEdits(text, edits) {
  const lines = text.split('\n');
  const offset = (pos) => lines.slice(0, pos.line).reduce((n, l) => n + l.length + 1, 0) + pos.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const e of sorted)
    text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  return text;
}

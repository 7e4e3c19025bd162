#!/usr/bin/env python3
"""`parlint lsp` under bursts of edits and requests from a raw client (Python standard library only).

The client sends hundreds of textDocument/didChange notifications (full and incremental sync) as fast as
it can, without waiting for anything, interleaved with hover and code-action requests, with and without
short pauses (an editor with and without client-side debounce), on several documents at once. Every byte
the server writes goes through a strict framing parser: each frame must be exactly
`Content-Length: N\\r\\n\\r\\n` followed by N bytes of JSON; a repeated header, any other header or a stray
byte between frames fails the test. Then: every request has exactly one response with its id, the last
publishDiagnostics of each document is for its newest version and says what `parlint check` says of that
text, and shutdown + exit ends the server with exit code 0. Some sessions also turn on PARLINT_LSP_TRACE
(stderr written from both server threads) or send initialize again mid-burst (a new debounce).

Run by ctest (lsp-stress) and by `make test-tsan` under ThreadSanitizer:
  PARLINT=build/parlint python3 tests/lsp/stress_test.py
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PARLINT = os.path.abspath(os.environ.get("PARLINT") or os.path.join(HERE, "..", "..", "build", "parlint"))
# Sanitizer builds run many times slower; the waits below are deadlines, not sleeps.
DEADLINE = float(os.environ.get("PARLINT_STRESS_DEADLINE", "120"))

TP16_YAML = """# NeMo 1: 8 GPUs per node, TP=16 spans two nodes (PL101). \u00fc\u4e2d
trainer:
  devices: 8
  num_nodes: 2
model:
  tensor_model_parallel_size: 16
"""
CLEAN_YAML = """trainer:
  devices: 8
  num_nodes: 2
model:
  tensor_model_parallel_size: 8
"""
SCRIPT = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py \\
  --tensor-model-parallel-size 16 --sequence-parallel --seq-length 4096 \\
  --num-layers 32 --hidden-size 4096 --num-attention-heads 32
"""
LAUNCH = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py \\
  --tensor-model-parallel-size 8 --sequence-parallel --seq-length 4096 \\
  --config-file conf/model.yaml
"""
MODEL = "num_layers: 32\nhidden_size: 4096\nnum_attention_heads: 32\n"

SANITIZER_REPORT = re.compile(r"ThreadSanitizer|AddressSanitizer|LeakSanitizer|runtime error:")


class Failure(Exception):
    pass


def utf16_index(line, character):
    """The str index of an LSP (UTF-16) character offset in one line."""
    units = 0
    for i, ch in enumerate(line):
        if units >= character:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def apply_change(text, change):
    """What the server should hold after one contentChanges entry (LSP semantics, UTF-16 positions)."""
    if "range" not in change:
        return change["text"]
    lines = text.split("\n")

    def offset(pos):
        line = min(pos["line"], len(lines) - 1)
        start = sum(len(l) + 1 for l in lines[:line])
        return start + utf16_index(lines[line], pos["character"])

    r = change["range"]
    return text[: offset(r["start"])] + change["text"] + text[offset(r["end"]) :]


class FrameParser:
    """Strict LSP framing: `Content-Length: N\\r\\n\\r\\n` + N bytes of a JSON-RPC 2.0 object, nothing else."""

    PREFIX = b"Content-Length: "

    def __init__(self):
        self.buf = bytearray()
        self.offset = 0  # stream offset of buf[0], for error messages

    def feed(self, data):
        self.buf += data
        out = []
        while True:
            frame = self._one()
            if frame is None:
                return out
            out.append(frame)

    def _fail(self, why, at=0):
        start = max(0, at - 80)
        raise Failure(
            f"malformed frame at output byte {self.offset + at}: {why}\n"
            f"  bytes there: {bytes(self.buf[start:at + 200])!r}"
        )

    def _one(self):
        b, p = self.buf, self.PREFIX
        if len(b) < len(p):
            if not p.startswith(bytes(b)):
                self._fail("expected 'Content-Length: '")
            return None
        if not b.startswith(p):
            self._fail("expected 'Content-Length: '")
        i = len(p)
        while i < len(b) and 0x30 <= b[i] <= 0x39:
            i += 1
        if i - len(p) > 12:
            self._fail("Content-Length has too many digits", len(p))
        tail = bytes(b[i : i + 4])
        if not b"\r\n\r\n".startswith(tail):
            # A second header line (a repeated Content-Length, Content-Type) or garbage lands here.
            self._fail("the header must be exactly one Content-Length line then an empty line", i)
        if len(tail) < 4:
            return None
        if i == len(p):
            self._fail("Content-Length without digits", i)
        n = int(b[len(p) : i])
        start = i + 4
        if len(b) < start + n:
            return None
        raw = bytes(b[start : start + n])
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            self._fail(f"the body of {n} bytes is not JSON in UTF-8 ({e})", start)
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            self._fail("the body is not a JSON-RPC 2.0 object", start)
        del b[: start + n]
        self.offset += start + n
        return msg


class Client:
    def __init__(self, label, debounce_ms=None, dynamic_watch=False, trace=False, env_extra=None):
        self.label = label
        env = dict(os.environ, PARLINT_LSP_TRACE="1") if trace else None  # stderr from both threads
        if env_extra:
            env = dict(env or os.environ, **env_extra)
        self.proc = subprocess.Popen(
            [PARLINT, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
            env=env,
        )
        self.cond = threading.Condition()
        self.parser = FrameParser()
        self.error = None  # the first framing or protocol failure the reader thread saw
        self.eof = False
        self.responses = {}  # id -> list of responses (exactly one expected)
        self.published = {}  # uri -> list of publishDiagnostics params
        self.frames = 0
        self.stderr = bytearray()
        self.next_id = 0
        self.sent_ids = set()
        self.write_lock = threading.Lock()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        init = {"processId": os.getpid(), "rootUri": None, "capabilities": {}, "workspaceFolders": None}
        if dynamic_watch:
            init["capabilities"] = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
        if debounce_ms is not None:
            init["initializationOptions"] = {"debounceMs": debounce_ms}
        r = self.wait_response(self.request("initialize", init))
        if "capabilities" not in r.get("result", {}):
            raise Failure(f"{label}: initialize answered {r}")
        self.notify("initialized", {})

    # ---- the server's output ----
    def _read_stdout(self):
        fd = self.proc.stdout.fileno()
        try:
            while True:
                data = os.read(fd, 65536)
                if not data:
                    break
                frames = self.parser.feed(data)
                with self.cond:
                    for m in frames:
                        self._take(m)
                    self.cond.notify_all()
            if self.parser.buf:
                self.parser._fail("the output ends inside a frame")
        except Failure as e:
            with self.cond:
                self.error = self.error or str(e)
        finally:
            with self.cond:
                self.eof = True
                self.cond.notify_all()

    def _take(self, m):
        self.frames += 1
        if "method" in m and "id" in m:  # a request to the client: client/registerCapability
            # Answered from another thread: this one must keep draining the server's output meanwhile.
            reply = {"jsonrpc": "2.0", "id": m["id"], "result": None}
            threading.Thread(target=self._send_now, args=(reply,), daemon=True).start()
        elif "method" in m:
            if m["method"] == "textDocument/publishDiagnostics":
                self.published.setdefault(m["params"]["uri"], []).append(m["params"])
        elif "id" in m and ("result" in m) != ("error" in m):
            if m["id"] not in self.sent_ids:
                self.error = self.error or f"a response to an id never sent: {json.dumps(m)[:300]}"
            self.responses.setdefault(m["id"], []).append(m)
        else:
            self.error = self.error or f"neither a request, a notification nor a response: {json.dumps(m)[:300]}"

    def _read_stderr(self):
        fd = self.proc.stderr.fileno()
        while True:
            data = os.read(fd, 65536)
            if not data:
                return
            with self.cond:
                self.stderr += data

    def check(self):
        with self.cond:
            if self.error:
                raise Failure(f"{self.label}: {self.error}{self.stderr_tail()}")
            if SANITIZER_REPORT.search(self.stderr.decode("utf-8", "replace")):
                raise Failure(f"{self.label}: the server's stderr has a sanitizer report{self.stderr_tail()}")

    def stderr_tail(self):
        text = self.stderr.decode("utf-8", "replace")
        m = SANITIZER_REPORT.search(text)
        start = max(0, m.start() - 200) if m else max(0, len(text) - 6000)  # a report from its start
        return f"\nserver stderr:\n{text[start:start + 20000]}" if text else ""

    def wait(self, pred, what, timeout=DEADLINE):
        end = time.monotonic() + timeout
        with self.cond:
            while not pred():
                if self.error or self.eof:
                    break
                left = end - time.monotonic()
                if left <= 0:
                    raise Failure(f"{self.label}: timed out waiting for {what}{self.stderr_tail()}")
                self.cond.wait(left)
        self.check()
        with self.cond:
            if not pred():
                code = self.proc.poll()
                raise Failure(f"{self.label}: output ended (exit code {code}) waiting for {what}{self.stderr_tail()}")

    def wait_response(self, rid):
        self.wait(lambda: rid in self.responses, f"the response to request {rid}")
        with self.cond:
            return self.responses[rid][0]

    # ---- the client's input ----
    @staticmethod
    def frame(msg):
        body = json.dumps(msg, ensure_ascii=False).encode("utf-8")
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def _send_now(self, msg):
        self.write(self.frame(msg))

    def write(self, data):
        with self.write_lock:
            try:
                self.proc.stdin.write(data)
            except BrokenPipeError:
                pass  # the server is gone; the next wait says why

    def notify(self, method, params, batch=None):
        data = self.frame({"jsonrpc": "2.0", "method": method, "params": params})
        if batch is None:
            self.write(data)
        else:
            batch.append(data)

    def request(self, method, params, batch=None):
        self.next_id += 1
        rid = self.next_id
        with self.cond:
            self.sent_ids.add(rid)
        data = self.frame({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        if batch is None:
            self.write(data)
        else:
            batch.append(data)
        return rid

    def finish(self):
        rid = self.request("shutdown", None)
        r = self.wait_response(rid)
        if r.get("result", "missing") is not None:
            raise Failure(f"{self.label}: shutdown answered {r}")
        self.notify("exit", None)
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Failure(f"{self.label}: the server did not exit after `exit`{self.stderr_tail()}")
        self.wait(lambda: self.eof, "the end of the output")
        self.check()
        if code != 0:
            raise Failure(f"{self.label}: exit code {code} after shutdown + exit{self.stderr_tail()}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Document:
    def __init__(self, client, path, language, text):
        self.client, self.path, self.text, self.version = client, path, text, 1
        self.uri = "file://" + path
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": self.uri, "languageId": language, "version": 1, "text": text}},
        )

    def change(self, changes, batch=None):
        for c in changes:
            self.text = apply_change(self.text, c)
        self.version += 1
        self.client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": changes},
            batch,
        )

    def line_of(self, needle):
        for i, line in enumerate(self.text.split("\n")):
            if needle in line:
                return i, line
        raise Failure(f"{self.path}: no line with {needle!r}")


def number_edit(doc, key, value):
    """An incremental edit: the number after `key` on its line becomes `value`."""
    i, line = doc.line_of(key)
    m = re.search(re.escape(key) + r"[ :=]*(\d+)", line)
    start = len(line[: m.start(1)].encode("utf-16-le")) // 2
    end = len(line[: m.end(1)].encode("utf-16-le")) // 2
    return {"range": {"start": {"line": i, "character": start}, "end": {"line": i, "character": end}},
            "text": str(value)}


def random_edits(rng, doc, key):
    """One didChange's contentChanges: a number edited in place, a comment line added or taken out, both
    in one notification, or the whole text replaced (full sync)."""
    value = rng.choice([1, 2, 4, 8, 16, 32])
    kind = rng.random()
    if kind < 0.15:
        return [{"text": apply_change(doc.text, number_edit(doc, key, value))}]
    lines = doc.text.split("\n")
    if len(lines) > 3 and lines[1].startswith("# edit"):
        comment = {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}, "text": ""}
    else:
        comment = {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
                   "text": f"# edit {rng.randrange(1000)} \u00e9\U0001f600\n"}
    if kind < 0.3:
        return [comment]
    if kind < 0.4:  # applied in order: the comment's line numbers do not depend on the number edit
        return [number_edit(doc, key, value), comment]
    return [number_edit(doc, key, value)]


def expected_findings(workspace, docs):
    """What `parlint check` reports for the final texts, by path: {(code, 0-based line, message)}."""
    for d in docs:
        with open(d.path, "w", encoding="utf-8") as f:
            f.write(d.text)
    r = subprocess.run([PARLINT, "check", "--format", "json", "--jobs", "1", *[d.path for d in docs]],
                       capture_output=True, text=True, timeout=DEADLINE, cwd=workspace)
    if r.returncode not in (0, 1):
        raise Failure(f"parlint check failed ({r.returncode}): {r.stderr}")
    out = {}
    for diag in json.loads(r.stdout)["diagnostics"]:
        path = os.path.join(workspace, diag["path"]) if not os.path.isabs(diag["path"]) else diag["path"]
        out.setdefault(os.path.realpath(path), set()).add(
            (diag["code"], diag["range"]["start"]["line"] - 1, diag["message"]))
    return out


def published_findings(params):
    return {(d["code"], d["range"]["start"]["line"], d["message"].split("\nhelp: ")[0]) for d in params["diagnostics"]}


def session(label, rng, debounce_ms, pause, changes_per_doc, dynamic_watch=False, trace=False,
            reinitialize=False):
    """One server: open documents, burst edits and requests at them, check the end state, shut down."""
    started = time.monotonic()
    workspace = os.path.realpath(tempfile.mkdtemp(prefix="parlint-stress-"))
    os.mkdir(os.path.join(workspace, "conf"))
    files = {"tp16.yaml": TP16_YAML, "clean.yaml": CLEAN_YAML, "train.sbatch": SCRIPT,
             "launch.sbatch": LAUNCH, "conf/model.yaml": MODEL}
    for name, text in files.items():
        with open(os.path.join(workspace, name), "w", encoding="utf-8") as f:
            f.write(text)
    c = Client(label, debounce_ms, dynamic_watch, trace)
    try:
        p = lambda name: os.path.join(workspace, name)
        docs = {
            "tp16": (Document(c, p("tp16.yaml"), "yaml", TP16_YAML), "tensor_model_parallel_size"),
            "clean": (Document(c, p("clean.yaml"), "yaml", CLEAN_YAML), "tensor_model_parallel_size"),
            "train": (Document(c, p("train.sbatch"), "shellscript", SCRIPT), "--tensor-model-parallel-size"),
            "launch": (Document(c, p("launch.sbatch"), "shellscript", LAUNCH), "--tensor-model-parallel-size"),
            "model": (Document(c, p("conf/model.yaml"), "yaml", MODEL), "num_attention_heads"),
        }
        # The opened tp16.yaml must show PL101 before anything else happens: the scenario is a real one.
        tp16 = docs["tp16"][0]
        c.wait(lambda: any(d["code"] == "PL101" for pub in c.published.get(tp16.uri, []) for d in pub["diagnostics"]),
               "PL101 on the opened tp16.yaml")

        requests = []
        batch = [] if pause is None else None
        names = list(docs)
        for step in range(changes_per_doc * len(docs)):
            doc, key = docs[names[step % len(names)] if step % 3 else rng.choice(names)]
            doc.change(random_edits(rng, doc, key), batch)
            if step % 7 == 0:
                i, line = doc.line_of(key)
                requests.append(c.request("textDocument/hover", {
                    "textDocument": {"uri": doc.uri}, "position": {"line": i, "character": line.find(key) + 2}}, batch))
            if step % 53 == 0:
                with c.cond:
                    latest = (c.published.get(doc.uri) or [{}])[-1].get("diagnostics", [])
                diags = latest or [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                                    "source": "parlint", "code": "PL101", "message": ""}]
                requests.append(c.request("textDocument/codeAction", {
                    "textDocument": {"uri": doc.uri}, "range": diags[0]["range"], "context": {"diagnostics": diags}},
                    batch))
            if step % 97 == 0:
                c.notify("workspace/didChangeConfiguration", {"settings": {}}, batch)
            if reinitialize and step % 61 == 60:  # a repeated initialize changes the debounce under the worker
                requests.append(c.request("initialize", {
                    "processId": None, "rootUri": None, "capabilities": {},
                    "initializationOptions": {"debounceMs": rng.randrange(0, 10)}}, batch))
            if trace and step % 31 == 0:  # the server logs these on stderr while the worker traces
                c.notify("textDocument/didChange", {"textDocument": {"uri": doc.uri + ".not-open", "version": 1},
                                                    "contentChanges": [{"text": ""}]}, batch)
            if batch is not None and len(batch) >= rng.randrange(1, 40):
                c.write(b"".join(batch))  # many frames in one write, as a pipe delivers them
                batch.clear()
            if pause:
                time.sleep(rng.uniform(0, pause))
                if step % 50 == 49:
                    time.sleep(0.04)  # longer than the server's debounce: it lints mid-stream
        if batch:
            c.write(b"".join(batch))
        # The final texts: tp16.yaml ends as it began (PL101), clean.yaml with TP=8 again.
        for name, text in (("tp16", TP16_YAML), ("clean", CLEAN_YAML)):
            docs[name][0].change([{"text": text}])
        docs["train"][0].change([number_edit(docs["train"][0], "--tensor-model-parallel-size", 16)])
        c.wait(lambda: all(r in c.responses for r in requests), f"responses to all {len(requests)} requests")

        # Every document's newest version gets published, and nothing older comes after it.
        all_docs = [d for d, _ in docs.values()]
        newest = lambda d: (c.published.get(d.uri) or [{}])[-1].get("version") == d.version
        c.wait(lambda: all(newest(d) for d in all_docs), "publications of every document's newest version")
        # Then until the server has been quiet for a while: a lint still running may publish once more.
        while True:
            with c.cond:
                frames = c.frames
            time.sleep(0.5)
            with c.cond:
                if c.frames == frames:
                    break
        with c.cond:
            published = {d.uri: list(c.published[d.uri]) for d in all_docs}
            responses = dict(c.responses)
        c.check()
        for d in all_docs:
            versions = [pub.get("version") for pub in published[d.uri]]
            if versions[-1] != d.version:
                raise Failure(f"{label}: {d.path}: version {versions[-1]} published after version {d.version}")
            if any(a > b for a, b in zip(versions, versions[1:]) if a is not None and b is not None):
                raise Failure(f"{label}: {d.path}: published versions go backwards: {versions}")
        for rid in c.sent_ids:
            got = responses.get(rid, [])
            if len(got) != 1:
                raise Failure(f"{label}: request {rid} got {len(got)} responses: {got}")
            if "error" in got[0]:
                raise Failure(f"{label}: request {rid} failed: {got[0]}")
        # What the newest version says is what `parlint check` says of the same text.
        want = expected_findings(workspace, all_docs)
        for d in all_docs:
            have = published_findings(published[d.uri][-1])
            if have != want.get(d.path, set()):
                raise Failure(f"{label}: {d.path} v{d.version}: the last publication says\n  {sorted(have)}\n"
                              f"but parlint check says\n  {sorted(want.get(d.path, set()))}\nof:\n{d.text}")
        if not any(code == "PL101" for code, _, _ in want.get(tp16.path, set())):
            raise Failure(f"{label}: tp16.yaml lost its PL101")
        answered = sum(1 for r in requests if responses[r][0]["result"])  # a hover's contents, a quick fix
        c.finish()
        print(f"{label}: {sum(d.version - 1 for d in all_docs)} changes, {len(requests)} requests "
              f"({answered} with content), {c.frames} frames, {time.monotonic() - started:.1f} s", flush=True)
    finally:
        c.kill()
        shutil.rmtree(workspace, ignore_errors=True)


def budget_session():
    """A document over the per-file budget gets PL903 and does not hold up the others: the one worker
    gives it the budget's work (here 20 million units, counted, so the same on any machine), then lints
    the next document."""
    workspace = tempfile.mkdtemp()
    client = Client("budget", debounce_ms=0, env_extra={"PARLINT_FILE_BUDGET": "60000,20000000"})
    try:
        heavy_text = "#!/bin/bash\n" + "".join(f"A{i}=$((1 + {i}))\n" for i in range(300_000))
        heavy = Document(client, os.path.join(workspace, "heavy.sh"), "shellscript", heavy_text)
        small = Document(client, os.path.join(workspace, "small.yaml"), "yaml", TP16_YAML)

        def codes(doc):
            with client.cond:
                last = client.published.get(doc.uri, [])
                return {d["code"] for d in last[-1]["diagnostics"]} if last else None

        client.wait(lambda: codes(small) is not None and "PL101" in codes(small), "the small document's PL101")
        client.wait(lambda: codes(heavy) is not None, "the heavy document's diagnostics")
        with client.cond:
            notes = [d for d in client.published[heavy.uri][-1]["diagnostics"] if d["code"] == "PL903"]
        if not notes or "20 million units" not in notes[0]["message"]:
            raise Failure(f"budget: no PL903 for the work budget on the heavy document: {notes}")
        client.finish()
    finally:
        client.kill()
        shutil.rmtree(workspace, ignore_errors=True)


def main():
    if not os.access(PARLINT, os.X_OK):
        print(f"stress_test: no parlint binary at {PARLINT} (set PARLINT)", file=sys.stderr)
        return 2
    rng = random.Random(int(os.environ.get("PARLINT_STRESS_SEED", "1")))
    started = time.monotonic()
    rounds = int(os.environ.get("PARLINT_STRESS_ROUNDS", "3"))
    try:
        for r in range(rounds):
            # No debounce on either side: the worker publishes while the reader is still reading the burst.
            session(f"round {r + 1} burst, server debounce 0" + (", trace" if r % 2 else ""), rng, 0, None, 120,
                    trace=r % 2 == 1)
            session(f"round {r + 1} burst, default debounce, trace", rng, None, None, 120, dynamic_watch=True,
                    trace=True)
            session(f"round {r + 1} paced, server debounce 5, initialize again", rng, 5, 0.002, 40,
                    reinitialize=True)
        budget_session()
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print(f"stress_test: OK in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

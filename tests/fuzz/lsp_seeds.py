"""Writes seed inputs for the LSP fuzz target: framed JSON-RPC sessions (initialize, open a fixture,
edit it incrementally, hover, ask for code actions, shut down), plus a few malformed framings."""
import json
import os
import sys


def frame(msg):
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def session(uri, language, text):
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"capabilities": {"general": {"positionEncodings": ["utf-8"]}}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}},
        {"jsonrpc": "2.0", "method": "textDocument/didChange",
         "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
             {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 3}}, "text": "x: 8"}]}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
         "params": {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 4}}},
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeAction",
         "params": {"textDocument": {"uri": uri}, "range": {"start": {"line": 1, "character": 0},
                                                             "end": {"line": 1, "character": 1}},
                    "context": {"diagnostics": [{"source": "parlint", "code": "PL101", "message": "m",
                                                 "range": {"start": {"line": 1, "character": 0},
                                                           "end": {"line": 1, "character": 1}}}]}}},
        {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}},
        {"jsonrpc": "2.0", "id": 4, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    return b"".join(frame(m) for m in msgs)


def main(out_dir, yaml_path, shell_path):
    os.makedirs(out_dir, exist_ok=True)
    seeds = {
        "yaml-session": session("file:///fuzz/a.yaml", "yaml", open(yaml_path).read()),
        "shell-session": session("file:///fuzz/a.sbatch", "shellscript", open(shell_path).read()),
        "bad-length": b"Content-Length: nine\r\n\r\n{}",
        "no-length": b"Content-Type: x\r\n\r\n{}",
        "bad-json": b"Content-Length: 5\r\n\r\n{\"a\":",
    }
    for name, data in seeds.items():
        with open(os.path.join(out_dir, "seed-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(*sys.argv[1:4])

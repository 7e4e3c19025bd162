"""Editors: Neovim (Debian's 0.7.2, headless) attaches `parlint lsp` through integrations/nvim (on 'runtimepath') and
receives the diagnostics and the hover; the VS Code extension in integrations/vscode packages into a .vsix
with @vscode/vsce."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))
TOOLS = os.environ.get("TEST_TOOLS", os.path.join(ROOT, "build", "test-tools"))
NVIM = shutil.which("nvim")

SCRIPT = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py \\
  --tensor-model-parallel-size 16 --sequence-parallel --seq-length 4096 \\
  --num-layers 32 --hidden-size 4096 --num-attention-heads 32
"""

DRIVER = r"""
vim.opt.runtimepath:append(os.getenv('PARLINT_NVIM_DIR'))  -- as a user installs it: a plugin folder
require('parlint').setup({ cmd = { os.getenv('PARLINT'), 'lsp' }, debounce_ms = 0 })
vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('PARLINT_FILE')))
local attached = vim.wait(10000, function() return #vim.lsp.buf_get_clients(0) > 0 end, 20)
local got = vim.wait(15000, function() return #vim.diagnostic.get(0) > 0 end, 20)
local out = { filetype = vim.bo.filetype, attached = attached, got = got, diagnostics = {} }
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = (d.user_data and d.user_data.lsp) or {}
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    severity = d.severity, source = d.source, message = d.message, code = lsp.code or d.code })
end
local params = { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 5, character = 31 } }
local replies = vim.lsp.buf_request_sync(0, 'textDocument/hover', params, 10000) or {}
for _, r in pairs(replies) do
  if r.result then out.hover = r.result.contents.value end
end
local f = io.open(os.getenv('PARLINT_OUT'), 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
"""


@unittest.skipUnless(NVIM, "Debian's neovim is installed by scripts/setup-deps.sh")
class Neovim(unittest.TestCase):
    def test_headless_neovim_shows_parlint_diagnostics_and_hover(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "train.sbatch")
            with open(script, "w") as f:
                f.write(SCRIPT)
            driver = os.path.join(tmp, "driver.lua")
            with open(driver, "w") as f:
                f.write(DRIVER)
            out = os.path.join(tmp, "out.json")
            env = dict(os.environ, PARLINT=PARLINT, PARLINT_FILE=script, PARLINT_OUT=out, HOME=tmp,
                       PARLINT_NVIM_DIR=os.path.join(ROOT, "integrations", "nvim"), XDG_STATE_HOME=tmp)
            p = subprocess.run([NVIM, "--headless", "--clean", "-c", f"luafile {driver}"], cwd=tmp, env=env,
                               capture_output=True, text=True, timeout=120)
            self.assertTrue(os.path.exists(out), p.stdout + p.stderr)
            with open(out) as f:
                result = json.load(f)
        self.assertEqual(result["filetype"], "sh")
        self.assertTrue(result["attached"], result)
        self.assertTrue(result["got"], result)
        d = [x for x in result["diagnostics"] if x["code"] == "PL101"]
        self.assertEqual(len(d), 1, result["diagnostics"])
        self.assertEqual((d[0]["lnum"], d[0]["col"], d[0]["end_lnum"], d[0]["end_col"]), (5, 2, 5, 33))
        self.assertEqual(d[0]["severity"], 1)
        self.assertEqual(d[0]["source"], "parlint")
        self.assertIn("TP=16 spans 2 NVLink domains of 8 GPUs", d[0]["message"])
        self.assertIn("| **TP** | 16 |", result.get("hover", ""))


class VsCodeExtension(unittest.TestCase):
    def test_extension_packages_into_a_vsix(self):
        vsce = os.path.join(TOOLS, "node_modules", ".bin", "vsce")
        src = os.path.join(ROOT, "integrations", "vscode")
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, "vscode")
            shutil.copytree(src, work, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
            p = subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=work,
                               capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr)
            check = subprocess.run(["node", "--check", "extension.js"], cwd=work, capture_output=True, text=True)
            self.assertEqual(check.returncode, 0, check.stderr)
            vsix = os.path.join(tmp, "parlint.vsix")
            p = subprocess.run([vsce, "package", "--skip-license", "--out", vsix], cwd=work, capture_output=True,
                               text=True, timeout=600, input="")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with zipfile.ZipFile(vsix) as z:
                names = set(z.namelist())
                manifest = json.loads(z.read("extension/package.json"))
        self.assertIn("extension/extension.js", names)
        self.assertIn("extension.vsixmanifest", names)
        self.assertIn("extension/node_modules/vscode-languageclient/package.json", names)
        self.assertEqual(manifest["main"], "./extension.js")
        self.assertIn("onLanguage:shellscript", manifest["activationEvents"])


if __name__ == "__main__":
    unittest.main()

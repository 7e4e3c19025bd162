"""One version, one tag: project(parlint VERSION X.Y.Z) in CMakeLists.txt is what `parlint --version`
prints; every pre-commit `rev:`, `uses: parlint/parlint@...`, release download URL and package file name
in the README, the docs, action.yml and the integrations names vX.Y.Z; the release workflow builds on
tags v* and refuses a tag that is not v<version> before it packages anything."""
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))
BUILD = os.path.abspath(os.environ.get("BUILD_DIR", os.path.dirname(PARLINT)))
WORKFLOW = os.path.join(ROOT, ".github", "workflows", "release.yml")


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def project_version():
    m = re.search(r"^project\(parlint VERSION (\d+\.\d+\.\d+)\b", read("CMakeLists.txt"), re.M)
    assert m, "no project(parlint VERSION X.Y.Z) in CMakeLists.txt"
    return m.group(1)


VERSION = project_version()
TAG = f"v{VERSION}"
# Where users are told which parlint to pin.
DOCUMENTS = ["README.md", "action.yml", ".pre-commit-hooks.yaml"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))
    + glob.glob(os.path.join(ROOT, "integrations", "**", "*"), recursive=True) if os.path.isfile(p)
    and not p.endswith(("package-lock.json", ".js", ".lua")))


def pinned(text):
    """(kind, ref) for each place a text names a parlint release: a pre-commit `rev:`, a
    `parlint/parlint@ref` action, a release download URL, a package file name (as vX.Y.Z)."""
    refs = [("uses", m.group(1)) for m in re.finditer(r"\bparlint/parlint@([\w.\-]+)", text)]
    refs += [("rev", m.group(1)) for m in re.finditer(r"\brev:\s*['\"]?([\w.\-]+)", text)]
    refs += [("download", m.group(1)) for m in re.finditer(r"/releases/download/([\w.\-]+)", text)]
    refs += [("file", "v" + m.group(1)) for m in
             re.finditer(r"\bparlint[_-](\d[\w.]*?)(?:_amd64\.deb|-py3-none|-linux-x86_64)", text)]
    return [(kind, ref) for kind, ref in refs if ref != "vX.Y.Z"]  # the placeholder of explanations


class VersionStory(unittest.TestCase):
    def test_binary_reports_the_project_version(self):
        p = subprocess.run([PARLINT, "--version"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stdout.splitlines()[0], f"parlint {VERSION}")

    def test_documents_pin_the_release_tag(self):
        found = {}
        for rel in DOCUMENTS:
            for kind, ref in pinned(read(rel)):
                self.assertEqual(ref, TAG, f"{rel}: {kind} {ref}, but CMakeLists.txt is at {VERSION}")
                found.setdefault(rel, set()).add(kind)
        # The integrations manual and the README's install section show them all.
        self.assertEqual(found.get("docs/integrations.md"), {"rev", "uses"})
        self.assertEqual(found.get("README.md"), {"rev", "uses", "download", "file"})

    def test_pinned_finds_what_it_must(self):
        text = ("repos:\n  - repo: https://github.com/parlint/parlint\n    rev: v9.9.9\n"
                "    hooks: [{id: parlint}]\n- uses: parlint/parlint@v1.2.3\n"
                "curl -LO https://github.com/parlint/parlint/releases/download/v2.0.0/parlint_2.0.1_amd64.deb\n"
                "parlint-3.0.0-py3-none-any.whl parlint-4.0.0-linux-x86_64.tar.gz pin `rev: v5.0.0`\n")
        self.assertEqual(sorted(pinned(text)), [
            ("download", "v2.0.0"), ("file", "v2.0.1"), ("file", "v3.0.0"), ("file", "v4.0.0"),
            ("rev", "v5.0.0"), ("rev", "v9.9.9"), ("uses", "v1.2.3")])

    def test_release_workflow(self):
        with open(WORKFLOW) as f:
            flow = yaml.safe_load(f)
        on = flow.get("on", flow.get(True))  # PyYAML reads the key `on` as true
        self.assertEqual(on, {"push": {"tags": ["v*"]}})
        self.assertEqual(flow["permissions"], {"contents": "write"})
        job = flow["jobs"]["package"]
        self.assertEqual(job["container"], "debian:12")
        steps = job["steps"]
        for step in steps:
            if "uses" in step:  # third-party code pinned to a commit
                self.assertRegex(step["uses"], r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")
        scripts = "\n".join(s.get("run", "") for s in steps)
        self.assertIn('make package PACKAGE_TAG="$TAG"', scripts)
        self.assertIn('test "$(build/parlint --version | head -n 1)" = "parlint ${TAG#v}"', scripts)
        self.assertIn("python3 -m unittest -v test_package test_release", scripts)
        self.assertIn("gh release upload", scripts)
        for artifact in ("*.deb", "*.whl", "*.tar.gz", "SHA256SUMS"):
            self.assertIn(artifact, scripts)
        tag_env = [s for s in steps if s.get("env", {}).get("TAG") == "${{ github.ref_name }}"]
        self.assertEqual(len(tag_env), 2)  # the package step and the upload step

    def test_package_refuses_a_tag_that_is_not_the_version(self):
        spec = importlib.util.spec_from_file_location("package", os.path.join(ROOT, "scripts", "package.py"))
        package = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(package)
        if not os.path.exists(os.path.join(BUILD, "CPackConfig.cmake")):
            self.skipTest(f"{BUILD} is not configured")
        self.assertEqual(package.configured_version(BUILD), VERSION)
        with tempfile.TemporaryDirectory() as out:
            dist = os.path.join(out, "dist")
            for tag in (VERSION, f"v{VERSION}.1", "v0.0.0", "latest"):
                p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "package.py"), "--build-dir", BUILD,
                                    "--out-dir", dist, "--tag", tag], capture_output=True, text=True, timeout=60)
                self.assertNotEqual(p.returncode, 0, tag)
                self.assertIn(f"is not v{VERSION}", p.stderr)
                self.assertFalse(os.path.exists(dist), "nothing is packaged for a wrong tag")


if __name__ == "__main__":
    unittest.main()

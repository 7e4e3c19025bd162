"""`make install` with PREFIX puts one self-contained parlint on PATH: it runs from anywhere, without the
source tree, with its grammars, model table and rule documentation inside the binary; its man page and
bash and zsh completions go under PREFIX/share."""
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD_DIR", os.path.join(ROOT, "build"))


class MakeInstall(unittest.TestCase):
    def test_prefix_install_is_self_contained(self):
        with tempfile.TemporaryDirectory() as tmp:
            prefix = os.path.join(tmp, "prefix with space")
            p = subprocess.run(["make", "-C", ROOT, "install", f"PREFIX={prefix}", f"BUILD={BUILD}"],
                               capture_output=True, text=True, timeout=1200)
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
            installed = sorted(os.path.relpath(os.path.join(d, f), prefix)
                               for d, _, files in os.walk(prefix) for f in files)
            # The binary, and the man page and completions generated from it (cmake/Packaging.cmake).
            self.assertEqual(installed, ["bin/parlint", "share/bash-completion/completions/parlint",
                                         "share/man/man1/parlint.1", "share/zsh/site-functions/_parlint"])
            binary = os.path.join(prefix, "bin", "parlint")
            # Run it away from the source and build trees, found through PATH.
            work = os.path.join(tmp, "work")
            os.mkdir(work)
            shutil.copy(os.path.join(ROOT, "fixtures", "examples", "nemo1_gpt3_20b_tp16.yaml"), work)
            env = {"PATH": os.path.join(prefix, "bin") + ":/usr/bin:/bin", "HOME": tmp}

            def run(*args):
                return subprocess.run(["parlint", *args], cwd=work, env=env, capture_output=True, text=True,
                                      timeout=60)

            v = run("--version")
            self.assertEqual(v.returncode, 0)
            self.assertRegex(v.stdout, r"^parlint \d+\.\d+\.\d+\n")
            self.assertRegex(v.stdout, r"tree-sitter 0\.25\.1, tree-sitter-python 0\.25\.0, tree-sitter-bash 0\.25\.1")
            doc = run("rule", "PL101")
            self.assertEqual(doc.returncode, 0)
            self.assertIn("## Example", doc.stdout)
            check = run("check", "--format", "gcc", "nemo1_gpt3_20b_tp16.yaml")
            self.assertEqual(check.returncode, 1)
            self.assertIn("[PL101]", check.stdout)
            plan = run("plan", "--model", "llama3-70b", "--tp", "8", "--pp", "4", "--gpus", "64")
            self.assertEqual(plan.returncode, 0, plan.stderr)
            self.assertIn("Llama 3 70B (built-in model table)", plan.stdout)  # the table is inside the binary
            # Stripped: a fraction of the build tree's binary with its debug information.
            self.assertLess(os.path.getsize(binary), os.path.getsize(os.path.join(BUILD, "parlint")))


if __name__ == "__main__":
    unittest.main()

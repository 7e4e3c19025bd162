"""scripts/setup-deps.sh without root: it names the exact apt-get line and stops with exit code 2; with
--check it never installs, even as root. scripts/build-parlint.sh (the parlint-build pre-commit hook and
the action's build) only checks the build packages: it never runs sudo or apt-get."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "setup-deps.sh")


class SetupDeps(unittest.TestCase):
    def test_nothing_missing_is_silent_success(self):
        r = subprocess.run([SCRIPT], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("setpriv"), "needs root to drop privileges")
    def test_non_root_with_missing_packages_prints_the_command(self):
        env = dict(os.environ, PARLINT_EXTRA_PACKAGES="parlint-no-such-package")
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", SCRIPT],
                           capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("sudo apt-get install -y parlint-no-such-package", r.stderr)

    def test_check_never_installs_and_names_the_command(self):
        env = dict(os.environ, PARLINT_EXTRA_PACKAGES="parlint-no-such-package")
        for args in (["--check"], ["--build", "--check"]):
            r = subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            sudo = "" if os.geteuid() == 0 else "sudo "
            self.assertIn(f"  {sudo}apt-get install -y parlint-no-such-package\n", r.stderr)
            self.assertNotIn("installing", r.stderr)

    def test_build_packages_are_a_subset(self):
        r = subprocess.run([SCRIPT, "--build", "--check"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = subprocess.run([SCRIPT, "--bogus"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown argument", r.stderr)


class Groups(unittest.TestCase):
    """`make run` installs only what building needs; the test and bench tools come with their targets."""

    def test_the_build_group_holds_no_test_or_bench_tool(self):
        with open(SCRIPT, encoding="utf-8") as f:
            text = f.read()
        build = re.search(r"^build=\((.*?)\)", text, re.S | re.M).group(1)
        names = set(re.sub(r"#[^\n]*", "", build).split())
        self.assertIn("g++", names)
        for tool in ("libgtest-dev", "neovim", "clang", "valgrind", "pre-commit", "libbenchmark-dev", "lintian"):
            self.assertNotIn(tool, names)
        test = re.search(r"^test=\((.*?)\)", text, re.S | re.M).group(1)
        self.assertIn("libgtest-dev", test)

    def test_unknown_group_is_refused(self):
        r = subprocess.run([SCRIPT, "everything"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown argument", r.stderr)


class BuildHookNeverInstalls(unittest.TestCase):
    def test_missing_build_package_stops_with_the_command_and_no_sudo(self):
        with tempfile.TemporaryDirectory() as tmp:
            # sudo and apt-get that leave a mark if anything runs them.
            fake = os.path.join(tmp, "bin")
            os.mkdir(fake)
            mark = os.path.join(tmp, "ran")
            for name in ("sudo", "apt-get", "apt"):
                with open(os.path.join(fake, name), "w") as f:
                    f.write(f"#!/bin/sh\necho {name} \"$@\" >> {mark}\nexit 0\n")
                os.chmod(os.path.join(fake, name), 0o755)
            env = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"],
                       PARLINT_EXTRA_PACKAGES="parlint-no-such-package")
            build = os.path.join(tmp, "build")
            r = subprocess.run([os.path.join(ROOT, "scripts", "build-parlint.sh"), build], capture_output=True,
                               text=True, env=env, timeout=120)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("apt-get install -y parlint-no-such-package", r.stderr)
            self.assertIn("then run again", r.stderr)
            self.assertEqual(r.stdout, "")
            self.assertFalse(os.path.exists(mark), "build-parlint.sh ran sudo or apt-get")
            self.assertFalse(os.path.exists(os.path.join(build, "cmake")), "it started a build")


if __name__ == "__main__":
    unittest.main()


class FreshMachine(unittest.TestCase):
    """tests/fresh_machine.sh (make test-fresh-machine) runs the README's commands on a fresh Debian 12 root:
    the README must still say each of them, in the order the script runs them."""

    def test_the_readme_says_what_the_fresh_machine_test_runs(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        with open(os.path.join(ROOT, "tests", "fresh_machine.sh"), encoding="utf-8") as f:
            script = f.read()
        install = readme[readme.index("## Install"):]
        order = [install.index(c) for c in ("apt-get install -y git make", "git clone ", "make run")]
        self.assertEqual(order, sorted(order))
        self.assertIn("make test", readme[readme.index("## Building from source"):])
        for command in ("apt-get install -y git make", "git clone -q /parlint.bundle", '"make run"', '"make test"'):
            self.assertIn(command, script)
        self.assertIn("test-fresh-machine:", open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read())


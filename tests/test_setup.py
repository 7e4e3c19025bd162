"""scripts/setup-deps.sh without root: it names the exact apt-get line and stops with exit code 2."""
import os
import shutil
import subprocess
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


if __name__ == "__main__":
    unittest.main()

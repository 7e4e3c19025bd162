"""The pinned npm tarballs: a second configure is offline, and a tarball with the wrong hash is refused.

Run by ctest with BUILD_DIR set to the build folder (which already holds the verified tarballs).
"""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")))
DRIVER = os.path.join(ROOT, "tests", "cmake", "fetch_npm_tarballs.cmake")


def fetch(lock, out, path_env):
    env = dict(os.environ, PATH=path_env)
    cmake = shutil.which("cmake")
    return subprocess.run([cmake, f"-DLOCK={lock}", f"-DOUT={out}", "-P", DRIVER], env=env, capture_output=True,
                          text=True, timeout=120)


class NpmTarballs(unittest.TestCase):
    def test_second_configure_needs_no_npm_and_no_network(self):
        # No npm on PATH at all: only the verified tarballs already in the build folder can be used.
        r = fetch(os.path.join(ROOT, "deps.lock"), os.path.join(BUILD, "_npm"), "/nonexistent")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("Fetching", r.stdout)

    def test_tarball_with_wrong_hash_is_refused(self):
        tmp = tempfile.mkdtemp(prefix="parlint-deps-")
        try:
            bindir = os.path.join(tmp, "bin")
            os.makedirs(bindir)
            fake = os.path.join(bindir, "npm")
            # A stand-in for a compromised registry: `npm pack` writes a tarball with other content.
            with open(fake, "w") as f:
                f.write("#!/bin/sh\nfor a in \"$@\"; do case $prev in --pack-destination) dest=$a;; esac; prev=$a; done\n"
                        "echo tampered > \"$dest/tree-sitter-0.25.1.tgz\"\n")
            os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
            lock = os.path.join(tmp, "deps.lock")
            with open(lock, "w") as f:
                f.write("tree-sitter 0.25.1 07aeba8dd71630e7e72b2d4ca3bd2680c3471824100cc5ebff44e78a6ed0b6d3\n")
            out = os.path.join(tmp, "npm")
            r = fetch(lock, out, bindir + ":/usr/bin:/bin")
            self.assertNotEqual(r.returncode, 0)
            message = " ".join(r.stderr.split())  # CMake wraps long messages
            self.assertIn("does not match deps.lock", message)
            self.assertIn("refused", message)
            self.assertFalse(os.path.exists(os.path.join(out, "tree-sitter-0.25.1.tgz")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()

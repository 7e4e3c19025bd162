"""`make package`: the .deb, the wheel and the tarball, each installed the way a user installs it and run
against a fixture: the .deb unpacked with `dpkg -x` into a temporary root (its control fields and file
list read with dpkg-deb, the package checked by lintian), the wheel installed with pip into a fresh venv
without the network and uninstalled again, the tarball extracted with tar. All three carry the same
stripped static binary, the generated man page and completions, and the version of CMakeLists.txt.

PARLINT_DIST names a folder `make package` already filled (the release workflow); otherwise the test runs
`make package` on BUILD_DIR itself."""
import base64
import csv
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")))
DOCS = os.path.join(BUILD, "cli-docs")
FIXTURE = os.path.join(ROOT, "fixtures", "examples", "nemo1_gpt3_20b_tp16.yaml")
PLATFORMS = "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64"


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"^project\(parlint VERSION (\d+\.\d+\.\d+)\b", f.read(), re.M).group(1)


VERSION = project_version()
DEB = f"parlint_{VERSION}_amd64.deb"
WHEEL = f"parlint-{VERSION}-py3-none-{PLATFORMS}.whl"
TOP = f"parlint-{VERSION}-linux-x86_64"
TARBALL = f"{TOP}.tar.gz"
DEB_FILES = {
    "usr/bin/parlint": 0o755,
    "usr/share/bash-completion/completions/parlint": 0o644,
    "usr/share/zsh/vendor-completions/_parlint": 0o644,
    "usr/share/man/man1/parlint.1.gz": 0o644,
    "usr/share/doc/parlint/copyright": 0o644,
    "usr/share/doc/parlint/changelog.gz": 0o644,
    "usr/share/doc/parlint/README.md": 0o644,
    "usr/share/doc/parlint/usage.md": 0o644,
    "usr/share/doc/parlint/configuration.md": 0o644,
    "usr/share/doc/parlint/plan.md": 0o644,
    "usr/share/doc/parlint/integrations.md": 0o644,
    "usr/share/doc/parlint/editors.md": 0o644,
    "usr/share/lintian/overrides/parlint": 0o644,
}
TAR_FILES = {
    "bin/parlint": 0o755,
    "share/man/man1/parlint.1": 0o644,
    "share/bash-completion/completions/parlint": 0o644,
    "share/zsh/site-functions/_parlint": 0o644,
    "README.md": 0o644,
}


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def sha256(path):
    return hashlib.sha256(read(path, "rb")).hexdigest()


def git_epoch():
    p = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True, text=True)
    return int(p.stdout.strip()) if p.returncode == 0 and p.stdout.strip() else None


class Packages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.dist = os.environ.get("PARLINT_DIST")
        if not cls.dist:
            p = subprocess.run(["make", "-C", ROOT, "package", f"BUILD={BUILD}"], capture_output=True, text=True,
                               timeout=1800)
            if p.returncode != 0:
                raise AssertionError("make package failed:\n" + p.stdout[-3000:] + p.stderr[-3000:])
            cls.dist = os.path.join(BUILD, "dist")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def artifact(self, name):
        path = os.path.join(self.dist, name)
        self.assertTrue(os.path.isfile(path), f"{name} is missing from {self.dist}")
        return path

    def work(self):
        """A folder away from the source tree holding the fixture."""
        w = tempfile.mkdtemp(dir=self.tmp)
        shutil.copy(FIXTURE, w)
        return w

    def assert_runs(self, env, cwd, binary="parlint"):
        """The installed parlint, found through env's PATH, prints the version and lints the fixture."""
        def run(*args):
            return subprocess.run([binary, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)

        v = run("--version")
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertEqual(v.stdout.splitlines()[0], f"parlint {VERSION}")
        check = run("check", "--format", "json", os.path.basename(FIXTURE))
        self.assertEqual(check.returncode, 1, check.stderr)
        report = json.loads(check.stdout)
        self.assertEqual(report["tool"]["version"], VERSION)
        self.assertIn("PL101", [d["code"] for d in report["diagnostics"]])
        doc = run("rule", "PL101")  # the documentation is inside the binary
        self.assertEqual(doc.returncode, 0)
        self.assertIn("## Example", doc.stdout)

    def assert_static(self, binary):
        headers = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
        self.assertNotIn("INTERP", headers)
        self.assertIn("Advanced Micro Devices X86-64",
                      subprocess.run(["readelf", "-h", binary], capture_output=True, text=True).stdout)
        sections = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout
        self.assertNotIn(".debug_info", sections)  # stripped
        self.assertNotIn(".symtab", sections)

    def test_dist_holds_exactly_the_three_packages_and_their_sums(self):
        self.assertEqual(sorted(os.listdir(self.dist)), sorted([DEB, WHEEL, TARBALL, "SHA256SUMS"]))
        p = subprocess.run(["sha256sum", "--check", "--strict", "SHA256SUMS"], cwd=self.dist, capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(len(read(os.path.join(self.dist, "SHA256SUMS")).splitlines()), 3)

    # --- .deb -------------------------------------------------------------------------------------

    def test_deb_control_fields(self):
        deb = self.artifact(DEB)
        fields = {}
        for line in subprocess.run(["dpkg-deb", "-f", deb], capture_output=True, text=True, check=True).stdout.splitlines():
            if not line.startswith(" "):
                key, _, value = line.partition(": ")
                fields[key] = value
        self.assertEqual(fields["Package"], "parlint")
        self.assertEqual(fields["Version"], VERSION)
        self.assertEqual(fields["Architecture"], "amd64")
        self.assertRegex(fields["Maintainer"], r"^[^<>]+ <[^<>@\s]+@[^<>@\s]+>$")
        self.assertEqual(fields["Homepage"], "https://github.com/parlint/parlint")
        self.assertEqual(fields["Section"], "devel")
        self.assertTrue(fields["Description"].startswith("static linter for distributed-training"))
        # Static binary: no shared library to depend on.
        self.assertFalse({"Depends", "Pre-Depends", "Recommends"} & set(fields), fields)
        info = subprocess.run(["dpkg-deb", "-I", deb], capture_output=True, text=True, check=True).stdout
        self.assertIn("md5sums", info)
        self.assertIn(" .\n", info)  # an extended description with a paragraph break

    def test_deb_file_list(self):
        deb = self.artifact(DEB)
        listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True, check=True).stdout
        files = {}
        for line in listing.splitlines():
            perms, owner, _size, _date, _time, path = line.split(None, 5)
            self.assertEqual(owner, "root/root", line)
            path = path.removeprefix("./")
            if perms.startswith("d"):
                self.assertEqual(perms, "drwxr-xr-x", line)
                continue
            self.assertTrue(perms.startswith("-"), line)
            files[path] = perms
        self.assertEqual(set(files), set(DEB_FILES))
        for path, mode in DEB_FILES.items():
            self.assertEqual(files[path], "-rwxr-xr-x" if mode == 0o755 else "-rw-r--r--", path)

    def test_deb_unpacked_into_a_root_runs(self):
        root = os.path.join(tempfile.mkdtemp(dir=self.tmp), "root")
        subprocess.run(["dpkg-deb", "-x", self.artifact(DEB), root], check=True)
        binary = os.path.join(root, "usr", "bin", "parlint")
        self.assert_static(binary)
        env = {"PATH": os.path.join(root, "usr", "bin") + ":/usr/bin:/bin", "HOME": self.tmp}
        self.assert_runs(env, self.work())
        share = os.path.join(root, "usr", "share")
        man = read(os.path.join(share, "man", "man1", "parlint.1.gz"), "rb")
        self.assertEqual(man[4:8], b"\0\0\0\0")  # gzip -n: no time in the header
        self.assertEqual(gzip.decompress(man).decode(), read(os.path.join(DOCS, "parlint.1")))
        self.assertEqual(read(os.path.join(share, "bash-completion", "completions", "parlint")),
                         read(os.path.join(DOCS, "parlint.bash")))
        self.assertEqual(read(os.path.join(share, "zsh", "vendor-completions", "_parlint")),
                         read(os.path.join(DOCS, "_parlint")))
        changelog = gzip.decompress(read(os.path.join(share, "doc", "parlint", "changelog.gz"), "rb")).decode()
        self.assertTrue(changelog.startswith(f"parlint ({VERSION}) unstable; urgency=medium\n"), changelog)
        self.assertIn("Copyright", read(os.path.join(share, "doc", "parlint", "copyright")))

    @unittest.skipUnless(shutil.which("lintian"), "lintian is installed by scripts/setup-deps.sh")
    def test_deb_passes_lintian(self):
        p = subprocess.run(["lintian", "--fail-on", "error,warning", "--display-level", ">=warning",
                            self.artifact(DEB)], capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual([l for l in p.stdout.splitlines() if re.match(r"^[EW]: ", l)], [])

    # --- wheel ------------------------------------------------------------------------------------

    def test_wheel_layout_and_metadata(self):
        with zipfile.ZipFile(self.artifact(WHEEL)) as z:
            self.assertIsNone(z.testzip())
            names = z.namelist()
            info_dir = f"parlint-{VERSION}.dist-info"
            script = f"parlint-{VERSION}.data/scripts/parlint"
            self.assertEqual(sorted(names), sorted([
                script, f"parlint-{VERSION}.data/data/share/man/man1/parlint.1",
                f"{info_dir}/METADATA", f"{info_dir}/WHEEL", f"{info_dir}/RECORD"]))
            self.assertEqual(names[-1], f"{info_dir}/RECORD")
            self.assertEqual(z.getinfo(script).external_attr >> 16, 0o100755)
            wheel = z.read(f"{info_dir}/WHEEL").decode()
            self.assertIn("Wheel-Version: 1.0\n", wheel)
            self.assertIn("Root-Is-Purelib: false\n", wheel)  # platform-specific: the binary
            tags = re.findall(r"^Tag: (.*)$", wheel, re.M)
            self.assertEqual(tags, [f"py3-none-{p}" for p in PLATFORMS.split(".")])
            meta = z.read(f"{info_dir}/METADATA").decode()
            head = meta.split("\n\n", 1)[0]
            self.assertIn("Metadata-Version: 2.1\n", head)
            self.assertIn("Name: parlint\n", head)
            self.assertIn(f"Version: {VERSION}\n", head)
            self.assertIn("Description-Content-Type: text/markdown", head)
            self.assertTrue(meta.split("\n\n", 1)[1].startswith("# parlint\n"))  # README as the description
            rows = list(csv.reader(io.StringIO(z.read(f"{info_dir}/RECORD").decode())))
            self.assertEqual(sorted(r[0] for r in rows), sorted(names))
            for path, digest, size in rows:
                if path == f"{info_dir}/RECORD":
                    self.assertEqual((digest, size), ("", ""))
                    continue
                data = z.read(path)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual(digest, "sha256=" + expected, path)
                self.assertEqual(int(size), len(data), path)
            self.assertEqual(z.read(f"parlint-{VERSION}.data/data/share/man/man1/parlint.1").decode(),
                             read(os.path.join(DOCS, "parlint.1")))

    def test_wheel_installs_in_a_venv_runs_and_uninstalls(self):
        venv = os.path.join(tempfile.mkdtemp(dir=self.tmp), "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300)
        pip_env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
        pip = [os.path.join(venv, "bin", "python"), "-m", "pip"]
        p = subprocess.run([*pip, "install", "--no-index", "--no-cache-dir", self.artifact(WHEEL)], env=pip_env,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        binary = os.path.join(venv, "bin", "parlint")
        self.assertTrue(os.access(binary, os.X_OK))
        self.assertEqual(sha256(binary), self.tarball_binary_sha())  # pip copied the binary as it is
        man = os.path.join(venv, "share", "man", "man1", "parlint.1")
        self.assertTrue(os.path.isfile(man))
        env = {"PATH": os.path.join(venv, "bin") + ":/usr/bin:/bin", "HOME": self.tmp}
        self.assert_runs(env, self.work())
        show = subprocess.run([*pip, "show", "parlint"], env=pip_env, capture_output=True, text=True)
        self.assertIn(f"Version: {VERSION}", show.stdout)
        p = subprocess.run([*pip, "uninstall", "--yes", "parlint"], env=pip_env, capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertFalse(os.path.exists(binary))
        self.assertFalse(os.path.exists(man))

    # --- tarball ----------------------------------------------------------------------------------

    def tarball_binary_sha(self):
        with tarfile.open(self.artifact(TARBALL)) as tar:
            return hashlib.sha256(tar.extractfile(f"{TOP}/bin/parlint").read()).hexdigest()

    def test_tarball_members(self):
        with tarfile.open(self.artifact(TARBALL)) as tar:
            members = tar.getmembers()
        self.assertEqual(members[0].name, TOP)
        files = {}
        for m in members:
            self.assertEqual((m.uid, m.gid, m.uname, m.gname), (0, 0, "root", "root"), m.name)
            self.assertTrue(m.name == TOP or m.name.startswith(TOP + "/"), m.name)
            if m.isdir():
                self.assertEqual(m.mode, 0o755, m.name)
            else:
                self.assertTrue(m.isfile(), m.name)
                files[m.name[len(TOP) + 1:]] = m.mode
        self.assertEqual(files, TAR_FILES)

    def test_tarball_extracted_runs(self):
        where = tempfile.mkdtemp(dir=self.tmp)
        subprocess.run(["tar", "-xzf", self.artifact(TARBALL), "-C", where], check=True)
        top = os.path.join(where, TOP)
        self.assert_static(os.path.join(top, "bin", "parlint"))
        env = {"PATH": os.path.join(top, "bin") + ":/usr/bin:/bin", "HOME": self.tmp}
        self.assert_runs(env, self.work())
        self.assertEqual(read(os.path.join(top, "share", "man", "man1", "parlint.1")),
                         read(os.path.join(DOCS, "parlint.1")))
        self.assertEqual(read(os.path.join(top, "share", "bash-completion", "completions", "parlint")),
                         read(os.path.join(DOCS, "parlint.bash")))
        self.assertEqual(read(os.path.join(top, "share", "zsh", "site-functions", "_parlint")),
                         read(os.path.join(DOCS, "_parlint")))
        self.assertEqual(read(os.path.join(top, "README.md")), read(os.path.join(ROOT, "README.md")))
        # The documented install: into a prefix, without the top folder.
        prefix = os.path.join(where, "prefix")
        os.mkdir(prefix)
        subprocess.run(["tar", "-xzf", self.artifact(TARBALL), "-C", prefix, "--strip-components=1"], check=True)
        self.assert_runs({"PATH": os.path.join(prefix, "bin") + ":/usr/bin:/bin", "HOME": self.tmp}, self.work())

    def test_one_binary_in_all_three(self):
        root = os.path.join(tempfile.mkdtemp(dir=self.tmp), "root")
        subprocess.run(["dpkg-deb", "-x", self.artifact(DEB), root], check=True)
        with zipfile.ZipFile(self.artifact(WHEEL)) as z:
            wheel_sha = hashlib.sha256(z.read(f"parlint-{VERSION}.data/scripts/parlint")).hexdigest()
        self.assertEqual(sha256(os.path.join(root, "usr", "bin", "parlint")), self.tarball_binary_sha())
        self.assertEqual(wheel_sha, self.tarball_binary_sha())

    # --- the GitHub Action at a release tag -----------------------------------------------------

    def action_setup(self, server, ref, **extra):
        """integrations/github/action-setup.sh as the runner starts it, with the release served from
        `server` (a file:// URL stands in for https://github.com) and no parlint on PATH."""
        tmp = tempfile.mkdtemp(dir=self.tmp)
        github_env = os.path.join(tmp, "github_env")
        env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "RUNNER_TEMP": tmp, "GITHUB_ENV": github_env,
               "GITHUB_SERVER_URL": server, "PARLINT_ACTION_REF": ref, "PARLINT_ACTION_REPOSITORY": "parlint/parlint",
               **extra}
        p = subprocess.run([os.path.join(ROOT, "integrations", "github", "action-setup.sh")], env=env,
                           capture_output=True, text=True, timeout=300)
        bins = re.findall(r"^PARLINT_BIN=(.*)$", read(github_env), re.M) if os.path.exists(github_env) else []
        return p, bins, tmp

    def test_action_at_the_release_tag_runs_the_release_tarball(self):
        if os.path.exists("/usr/bin/parlint") or os.path.exists("/bin/parlint"):
            self.skipTest("a parlint on the system PATH would be used first")
        server = os.path.join(self.tmp, "server")
        release = os.path.join(server, "parlint", "parlint", "releases", "download", f"v{VERSION}")
        os.makedirs(release, exist_ok=True)
        shutil.copy(self.artifact(TARBALL), release)
        shutil.copy(self.artifact("SHA256SUMS"), release)
        p, bins, tmp = self.action_setup("file://" + server, f"v{VERSION}")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(bins, [os.path.join(tmp, f"parlint-v{VERSION}", TOP, "bin", "parlint")])
        self.assertTrue(p.stdout.startswith(f"parlint {VERSION}\n"), p.stdout)
        self.assert_runs({"PATH": os.path.dirname(bins[0]) + ":/usr/bin:/bin", "HOME": tmp}, self.work())

        # At a branch or another commit, the release is not this source: the action builds (here it finds
        # a build already in its build folder, as on a second run).
        built = os.path.join(self.tmp, "action-build")
        os.makedirs(built, exist_ok=True)
        shutil.copy(os.path.join(BUILD, "parlint"), built)
        p, bins, _ = self.action_setup("file://" + server, "main", PARLINT_BUILD_DIR=built)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(bins, [os.path.join(built, "parlint")])

        # A tarball that does not match the release's SHA256SUMS is refused, not built around.
        with open(os.path.join(release, "SHA256SUMS"), "w") as f:
            f.write(f"{'0' * 64}  {TARBALL}\n")
        p, bins, _ = self.action_setup("file://" + server, f"v{VERSION}", PARLINT_BUILD_DIR=built)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("does not match the SHA256SUMS", p.stderr)
        self.assertEqual(bins, [])

    @unittest.skipIf(os.environ.get("PARLINT_DIST"), "checked where the packages were built by this test")
    def test_wheel_and_tarball_are_reproducible(self):
        # Packaged again from the same build with the same date (the last commit's): the same bytes.
        epoch = git_epoch()
        if epoch is None:
            self.skipTest("not a git checkout: no commit date to package with")
        out = os.path.join(self.tmp, "again")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "package.py"), "--build-dir", BUILD,
                            "--out-dir", out], env=dict(os.environ, SOURCE_DATE_EPOCH=str(epoch)),
                           capture_output=True, text=True, timeout=900)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        for name in (WHEEL, TARBALL):
            self.assertEqual(sha256(os.path.join(out, name)), sha256(self.artifact(name)), name)
        with tarfile.open(self.artifact(TARBALL)) as tar:
            self.assertEqual({m.mtime for m in tar.getmembers()}, {epoch})


if __name__ == "__main__":
    unittest.main()

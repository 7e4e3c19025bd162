"""The pre-commit hooks, driven by Debian's real `pre-commit` against a snapshot of this working tree used
as a hook repository (local path and commit): a bad sbatch script blocks the commit with the right code,
the fix lets it through, configured excludes and cross-file references still apply when pre-commit passes
file names, the `parlint-fix` hook applies the safe fixes, and the `parlint-build` hook builds parlint from source on first use and then reuses it."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))
PRE_COMMIT = shutil.which("pre-commit")

BAD = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py \\
  --tensor-model-parallel-size 16 --pipeline-model-parallel-size 1 --sequence-parallel \\
  --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096
"""
GOOD = BAD.replace("--tensor-model-parallel-size 16", "--tensor-model-parallel-size 8")
CROSS_SCRIPT = """#!/bin/bash
#SBATCH --nodes=1
#SBATCH --gpus-per-node=8
torchrun --nproc-per-node 8 train.py --config-file conf/model.yaml
"""
CROSS_YAML = """tensor_model_parallel_size: 16
num_layers: 32
hidden_size: 4096
num_attention_heads: 32
"""


def git(cwd, *args, check=True):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env, check=check,
                          capture_output=True, text=True, timeout=120)


def snapshot_hook_repo(dest):
    """This working tree (tracked and new files, as they are now) committed into a fresh repository."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = os.path.join(ROOT, rel)
        if not os.path.isfile(src):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, rel))
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "snapshot")
    return git(dest, "rev-parse", "HEAD").stdout.strip()


@unittest.skipUnless(PRE_COMMIT, "Debian's pre-commit is installed by scripts/setup-deps.sh")
class PreCommitHooks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.hooks = os.path.join(cls.tmp, "hooks")
        os.mkdir(cls.hooks)
        cls.rev = snapshot_hook_repo(cls.hooks)
        cls.cache = os.path.join(cls.tmp, "pre-commit-home")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def project(self, hook_id, files):
        repo = tempfile.mkdtemp(dir=self.tmp)
        git(repo, "init", "-q")
        with open(os.path.join(repo, ".pre-commit-config.yaml"), "w") as f:
            f.write(f"repos:\n- repo: {self.hooks}\n  rev: {self.rev}\n  hooks:\n  - id: {hook_id}\n")
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(repo, rel)) or repo, exist_ok=True)
            with open(os.path.join(repo, rel), "w") as f:
                f.write(text)
        return repo

    def env(self, with_parlint=True):
        path = "/usr/bin:/bin"
        if with_parlint:
            path = os.path.dirname(PARLINT) + ":" + path
        return dict(os.environ, PATH=path, PRE_COMMIT_HOME=self.cache, GIT_AUTHOR_NAME="t",
                    GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")

    def pre_commit(self, repo, *args, with_parlint=True, timeout=300):
        return subprocess.run([PRE_COMMIT, *args], cwd=repo, env=self.env(with_parlint), capture_output=True,
                              text=True, timeout=timeout)

    def test_bad_script_blocks_the_commit_and_the_fix_passes(self):
        repo = self.project("parlint", {"slurm/bad.sbatch": BAD, "slurm/good.sbatch": GOOD,
                                        "tools/util.py": "import os\nprint(os.getcwd())\n",
                                        "README.md": "# notes: TP=16\n"})
        self.assertEqual(self.pre_commit(repo, "install").returncode, 0)
        git(repo, "add", "-A")
        env = self.env()
        commit = subprocess.run(["git", "commit", "-q", "-m", "add scripts"], cwd=repo, env=env,
                                capture_output=True, text=True, timeout=300)
        self.assertNotEqual(commit.returncode, 0, "the hook let a bad script through")
        self.assertIn("slurm/bad.sbatch:7:", commit.stdout + commit.stderr)
        self.assertIn("PL101", commit.stdout + commit.stderr)
        self.assertEqual(git(repo, "rev-list", "--all").stdout, "")  # nothing committed

        run = self.pre_commit(repo, "run", "--all-files")
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("error[PL101]", run.stdout)
        self.assertNotIn("good.sbatch", run.stdout)
        self.assertNotIn("util.py", run.stdout)  # nothing to say about it, and not an error

        with open(os.path.join(repo, "slurm/bad.sbatch"), "w") as f:
            f.write(GOOD)
        git(repo, "add", "-A")
        commit = subprocess.run(["git", "commit", "-q", "-m", "fixed"], cwd=repo, env=env, capture_output=True,
                                text=True, timeout=300)
        self.assertEqual(commit.returncode, 0, commit.stdout + commit.stderr)
        run = self.pre_commit(repo, "run", "--all-files")
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("Passed", run.stdout)

    def test_fix_hook_fixes_the_file_and_the_second_run_passes(self):
        # SP with TP=1 (Megatron-LM warns and turns it off): the safe fix removes the flag.
        fixable = GOOD.replace("--tensor-model-parallel-size 8", "--tensor-model-parallel-size 1")
        repo = self.project("parlint-fix", {"slurm/sp.sbatch": fixable})
        git(repo, "add", "-A")
        run = self.pre_commit(repo, "run", "--all-files")
        # pre-commit fails a hook that changed files, and says so.
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("files were modified by this hook", run.stdout)
        with open(os.path.join(repo, "slurm/sp.sbatch")) as f:
            fixed = f.read()
        self.assertNotIn("--sequence-parallel", fixed)
        self.assertEqual(fixed, fixable.replace(" --sequence-parallel", ""))
        git(repo, "add", "-A")
        run = self.pre_commit(repo, "run", "--all-files")
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("Passed", run.stdout)

    def test_every_file_parlint_lints_is_passed_and_other_files_are_left_alone(self):
        # What `parlint check .` lints: an extension-less sbatch script (not executable, so identify sees no
        # #! line), .sub, .sbatch, YAML and Python. A Makefile and a LICENSE are passed too (extension-less
        # names) and must give no finding. A recording parlint on PATH, which runs the real one, says what
        # pre-commit passed.
        repo = self.project("parlint", {"train_job": BAD, "job.sub": BAD, "x.sbatch": GOOD,
                                        "conf/a.yaml": CROSS_YAML, "r.py": "import os\nprint(os.getcwd())\n",
                                        "Makefile": "all: build\n\tcc -o x x.c \\\n\t  -O2\n.PHONY: all\n",
                                        "LICENSE": "Permission is hereby granted: free of charge.\n",
                                        "README.md": "# notes\n"})
        shim = os.path.join(repo, ".bin")
        os.mkdir(shim)
        log = os.path.join(repo, ".passed")
        with open(os.path.join(shim, "parlint"), "w") as f:
            f.write(f'#!/bin/sh\nprintf "%s\\n" "$@" >> {log}\nexec {PARLINT} "$@"\n')
        os.chmod(os.path.join(shim, "parlint"), 0o755)
        git(repo, "add", "-A")
        env = dict(self.env(), PATH=shim + ":/usr/bin:/bin")
        run = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=repo, env=env, capture_output=True,
                             text=True, timeout=300)
        with open(log) as f:
            passed = set(f.read().split())
        for name in ("train_job", "job.sub", "x.sbatch", "conf/a.yaml", "r.py"):
            self.assertIn(name, passed)
        self.assertNotIn("README.md", passed)
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("train_job:7:", run.stdout)
        self.assertIn("job.sub:7:", run.stdout)
        for quiet in ("Makefile", "LICENSE", "x.sbatch"):
            self.assertNotIn(quiet, run.stdout)

    def test_configured_exclude_applies_to_files_pre_commit_passes(self):
        repo = self.project("parlint", {".parlint.yaml": 'exclude: ["third_party/**"]\n',
                                        "third_party/vendor.sbatch": BAD, "slurm/good.sbatch": GOOD})
        git(repo, "add", "-A")
        run = self.pre_commit(repo, "run", "--all-files")
        self.assertEqual(run.returncode, 0, run.stdout)

    def test_cross_file_reference_is_read_from_disk(self):
        # Only the script is passed (as when only it changed); the YAML it names is read from disk.
        repo = self.project("parlint", {"launch.sbatch": CROSS_SCRIPT, "conf/model.yaml": CROSS_YAML})
        git(repo, "add", "-A")
        run = self.pre_commit(repo, "run", "--files", "launch.sbatch")
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("conf/model.yaml:1:", run.stdout)
        self.assertIn("PL101", run.stdout)

    def test_build_hook_builds_once_then_reuses(self):
        repo = self.project("parlint-build", {"slurm/bad.sbatch": BAD, "slurm/good.sbatch": GOOD})
        git(repo, "add", "-A")
        # No parlint on PATH: the hook must build it inside its clone.
        first = self.pre_commit(repo, "run", "--all-files", with_parlint=False, timeout=1800)
        self.assertEqual(first.returncode, 1, first.stdout[-3000:])
        self.assertIn("error[PL101]", first.stdout)
        built = [os.path.join(d, ".parlint-build", "parlint") for d in
                 (os.path.join(self.cache, x) for x in os.listdir(self.cache))
                 if os.path.exists(os.path.join(d, ".parlint-build", "parlint"))]
        self.assertEqual(len(built), 1, "the binary is cached inside the hook's clone")
        mtime = os.path.getmtime(built[0])
        started = time.monotonic()
        second = self.pre_commit(repo, "run", "--all-files", with_parlint=False)
        self.assertEqual(second.returncode, 1)
        self.assertIn("error[PL101]", second.stdout)
        self.assertEqual(os.path.getmtime(built[0]), mtime, "the second run rebuilt parlint")
        self.assertLess(time.monotonic() - started, 60)


if __name__ == "__main__":
    unittest.main()

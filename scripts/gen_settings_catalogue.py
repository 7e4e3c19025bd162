#!/usr/bin/env python3
"""Build rules/data/settings_catalogue.tsv: the real setting names of each framework parlint reads.

PL801 ("unknown-parallel-key") reports a key or flag that looks like a parallel setting but is not one
(DESIGN §2, "PL801's scope"). "Not one" means: not in this catalogue, which lists every real setting
name of each framework at a pinned commit, so a real setting is never reported as unknown.

What is collected (one row per (framework, syntax, name); the first source found is kept):

  megatron-lm      flag        argparse option strings of the training parser: add_argument() calls
                               under megatron/ (megatron/training/arguments.py and every file it
                               includes), the flags ArgumentGroupFactory derives from config dataclasses
                               (--tensor-model-parallel-size comes from ModelParallelConfig this way),
                               and the --no-* twin of each BooleanOptionalAction
  megatron-lm      dest        the argparse dest of each training flag (YAML configs use dest names)
  megatron-lm      tool-flag   option strings (argparse or click) of scripts outside megatron/: tools/
                               (checkpoint converters), examples/, pretrain_*.py, tasks/, and of scripts
                               under megatron/ (outside megatron/training) that have their own __main__
  megatron-lm      field       fields of the megatron/training config dataclasses (CheckpointConfig, ...)
  megatron-lm      section / field-path  sections of the megatron/training *ConfigContainer classes and
                               section.field paths (checkpoint.fully_parallel_save)
  megatron-core    field       fields (own and inherited) of every @dataclass *Config under megatron/core/
  megatron-bridge  field       fields (own and inherited, also those inherited from Megatron-LM at the
                               3rdparty/Megatron-LM submodule commit) of every @dataclass under
                               src/megatron/bridge/
  megatron-bridge  section     fields of ConfigContainer (model, train, dataset, checkpoint, ddp, ...)
  megatron-bridge  field-path  section.field for every class a section's annotation names and the
                               dataclasses derived from those (model.tensor_model_parallel_size,
                               checkpoint.fully_parallel_save, dataset.sequence_length)
  megatron-bridge  private-field  `x._name = ...` assignments in src/megatron/bridge whose name contains
                               "parallel" (recipes set cfg.model._pipeline_model_parallel_layout_builder;
                               upper-case parallel_state globals are left out)
  megatron-bridge  flag / tool-flag  argparse options of scripts/performance and scripts/training
                               (launchers: -tp, -pp, ...) / of every other script
  nemo2            arg         __init__ parameters of the NeMo 2 strategies (MegatronStrategy, ...) and
                               of the comm-overlap callback; fields of the strategy dataclasses
                               (ParallelismConfig)
  nemo2            field       own fields of the NeMo 2 *Config dataclasses (nemo/collections/{llm,vlm},
                               nemo/lightning)
  nemo1            key         every mapping key of NeMo 1 YAML configs (NeMo examples/**/conf/**,
                               NeMo-Framework-Launcher launcher_scripts/conf/**) and every string key read
                               with cfg.get("...") / cfg["..."] in nemo/ Python
  nemo1            key-path    the dotted path of each YAML key (model.tensor_model_parallel_size)
  megatron-deepspeed  flag / dest / tool-flag  as for megatron-lm, plus the flags DeepSpeed itself adds
                               (deepspeed.add_config_arguments; hand-written list, see DEEPSPEED_CORE_FLAGS)
  gpt-neox         field       fields of the megatron/neox_arguments dataclasses (pipe_parallel_size, ...)

Output: UTF-8 TSV. Comment lines name the commit of each repository, then a column header, then rows
sorted by (framework, syntax, name):
    framework <TAB> syntax <TAB> name <TAB> source [<TAB> owner]
source is `repository-path:line@first-12-hex-of-the-commit`; owner is the class a field or argument
belongs to and is left out (4 fields) when there is none.

How it reads the sources: statically, with the `ast` module and a small indentation-based YAML key scanner.
It never imports or executes framework code (the sources need torch, GPUs, ...), and it needs only the
Python 3.11 standard library and git. Each input is a bare git mirror (read at HEAD with git cat-file) or
a normal checkout (work tree files, commit from `git rev-parse HEAD`).

Run (or `make update-settings`, see the Makefile for the path variables):
    python3 scripts/gen_settings_catalogue.py \\
        --megatron-lm DIR --megatron-bridge DIR --nemo DIR --nemo-launcher DIR \\
        --megatron-deepspeed DIR --gpt-neox DIR --verl DIR --nemo-rl DIR --flagscale DIR
        [--out rules/data/settings_catalogue.tsv]
Diagnostics (unparsable files, option names built at run time, bases outside the sources) go to stderr.
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import os
import re
import subprocess
import sys
from collections import Counter
from typing import Iterable, Iterator

# Flags that deepspeed.add_config_arguments(parser) adds; Megatron-DeepSpeed's megatron/arguments.py calls
# it, but the flags live in the DeepSpeed library (deepspeed/__init__.py, _add_core_arguments), not in any
# repository read here, so they are written down by hand.
DEEPSPEED_CORE_FLAGS = ["--deepspeed", "--deepspeed_config", "--deepscale", "--deepscale_config", "--deepspeed_mpi"]
DEEPSPEED_CORE_SOURCE = "deepspeed:_add_core_arguments"

# Upstream names, used when a checkout's origin or a mirror's folder name does not say.
DEFAULT_REPO_NAMES = {
    "megatron-lm": "NVIDIA/Megatron-LM",
    "megatron-bridge": "NVIDIA-NeMo/Megatron-Bridge",
    "nemo": "NVIDIA/NeMo",
    "nemo-launcher": "NVIDIA/NeMo-Framework-Launcher",
    "megatron-deepspeed": "microsoft/Megatron-DeepSpeed",
    "gpt-neox": "EleutherAI/gpt-neox",
}

WARNINGS: Counter = Counter()


def warn(kind: str, message: str) -> None:
    """Diagnostics go to stderr, one line each, and are counted by kind for the summary."""
    WARNINGS[kind] += 1
    print(f"warning: {kind}: {message}", file=sys.stderr)


# ----------------------------------------------------------------------------------------------------------
# Reading a repository: bare mirror or checkout
# ----------------------------------------------------------------------------------------------------------

class Repo:
    """One repository at one commit. Files are read with a long-running `git cat-file --batch` (bare
    mirrors have no work tree, and one process per file would be slow on thousands of files)."""

    def __init__(self, path: str, key: str, commit: str | None = None):
        self.key = key
        self.path = os.path.abspath(path)
        # A checkout has a work tree; a bare mirror (or a git directory without one) does not.
        inside = subprocess.run(["git", "-C", self.path, "rev-parse", "--is-inside-work-tree"],
                                capture_output=True, text=True).stdout.strip() == "true"
        self.worktree = subprocess.run(["git", "-C", self.path, "rev-parse", "--show-toplevel"], check=True,
                                       capture_output=True, text=True).stdout.strip() if inside else None
        head = self._git("rev-parse", "HEAD^{commit}").strip()
        self.sha = self._git("rev-parse", f"{commit}^{{commit}}").strip() if commit else head
        # A checkout is read from its work tree only at its own HEAD; another commit comes from its objects.
        self.from_worktree = self.worktree is not None and self.sha == head
        self.name = self._repo_name()
        if self.from_worktree:
            out = subprocess.run(["git", "-C", self.worktree, "ls-files", "-z"], check=True,
                                 capture_output=True).stdout
        else:
            out = self._git_bytes("ls-tree", "-r", "-z", "--name-only", self.sha)
        self.files = sorted(p for p in out.decode("utf-8", "replace").split("\0") if p)
        self.file_set = set(self.files)
        self._batch = None
        self._cache: dict[str, str | None] = {}

    @property
    def sha12(self) -> str:
        return self.sha[:12]

    def _git_bytes(self, *args: str) -> bytes:
        return subprocess.run(["git", "--git-dir", self._git_dir(), *args], check=True,
                              capture_output=True).stdout

    def _git(self, *args: str) -> str:
        return self._git_bytes(*args).decode()

    def _git_dir(self) -> str:
        if not hasattr(self, "_gitdir"):
            out = subprocess.run(["git", "-C", self.path, "rev-parse", "--absolute-git-dir"], check=True,
                                 capture_output=True, text=True).stdout.strip()
            self._gitdir = out
        return self._gitdir

    def _repo_name(self) -> str:
        try:
            url = subprocess.run(["git", "--git-dir", self._git_dir(), "config", "--get", "remote.origin.url"],
                                 capture_output=True, text=True).stdout.strip()
        except OSError:
            url = ""
        m = re.search(r"github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$", url)
        if m:
            return f"{m.group(1)}/{m.group(2)}"
        # Workplace mirrors live in .../<owner>+<name>/repo (a clone of one has that as its origin).
        for where in (self.path, url):
            m = re.search(r"([\w.-]+)\+([\w.-]+)/repo/?$", where)
            if m:
                return f"{m.group(1)}/{m.group(2)}"
        return DEFAULT_REPO_NAMES.get(self.key, self.key)

    def read(self, path: str) -> str | None:
        """The file's text, or None when it is absent (mirrors lack files of 4 MiB and more)."""
        if path in self._cache:
            return self._cache[path]
        text = self._read_uncached(path)
        self._cache[path] = text
        return text

    def _read_uncached(self, path: str) -> str | None:
        if self.from_worktree:
            try:
                with open(os.path.join(self.worktree, path), "rb") as f:
                    return f.read().decode("utf-8", "replace")
            except OSError:
                return None
        if self._batch is None:
            self._batch = subprocess.Popen(["git", "--git-dir", self._git_dir(), "cat-file", "--batch"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._batch.stdin.write(f"{self.sha}:{path}\n".encode())
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().decode().split()
        if len(header) != 3:  # "<spec> missing" or ambiguous
            return None
        size = int(header[2])
        data = self._batch.stdout.read(size)
        self._batch.stdout.read(1)  # the newline after the object
        if header[1] != "blob":
            return None
        return data.decode("utf-8", "replace")

    def tree_entry(self, path: str) -> str | None:
        """The object id a tree entry points at (a submodule's pinned commit, for example)."""
        out = self._git("ls-tree", self.sha, "--", path).split()
        return out[2] if len(out) >= 3 else None

    def has_commit(self, sha: str) -> bool:
        return subprocess.run(["git", "--git-dir", self._git_dir(), "cat-file", "-e", f"{sha}^{{commit}}"],
                              capture_output=True).returncode == 0

    def src(self, path: str, line: int) -> str:
        return f"{path}:{line}@{self.sha12}"

    def close(self) -> None:
        if self._batch is not None:
            self._batch.stdin.close()
            self._batch.wait()
            self._batch = None


# ----------------------------------------------------------------------------------------------------------
# Rows
# ----------------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Row:
    framework: str
    syntax: str
    name: str
    source: str
    owner: str = ""


def clean(name: str) -> str | None:
    """A name usable in a TSV field, or None (empty, or with whitespace that no real setting has)."""
    name = name.strip()
    if not name or re.search(r"\s", name):
        return None
    return name


# ----------------------------------------------------------------------------------------------------------
# Python sources: parsing, imports, classes, dataclass fields
# ----------------------------------------------------------------------------------------------------------

def parse_python(repo: Repo, path: str) -> ast.Module | None:
    text = repo.read(path)
    if text is None:
        warn("unreadable", f"{repo.name}:{path} is not stored")
        return None
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as e:  # e.g. syntax newer than this Python, or a template
        warn("unparsable", f"{repo.name}:{path}: {e.__class__.__name__}: {e}")
        return None


def has_main_guard(tree: ast.Module) -> bool:
    """True for a stand-alone script: `if __name__ == "__main__":` at module level."""
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            names = [n for n in [node.test.left, *node.test.comparators] if isinstance(n, ast.Name)]
            consts = [n for n in [node.test.left, *node.test.comparators] if isinstance(n, ast.Constant)]
            if any(n.id == "__name__" for n in names) and any(c.value == "__main__" for c in consts):
                return True
    return False


def dotted(expr: ast.expr) -> str | None:
    """`a.b.C` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


def is_dataclass_decorator(dec: ast.expr) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    name = dotted(target) or ""
    return name.split(".")[-1] == "dataclass"


@dataclasses.dataclass
class FieldInfo:
    """A dataclass field as declared: where, its annotation and default (as AST, for ArgumentGroupFactory)."""
    name: str
    repo: Repo
    path: str
    line: int
    annotation: ast.expr
    value: ast.expr | None
    declared_in: str

    def field_call_kw(self, key: str) -> ast.expr | None:
        """A keyword of `field(...)` when the default is written as dataclasses.field(...)."""
        if isinstance(self.value, ast.Call) and (dotted(self.value.func) or "").split(".")[-1] == "field":
            for kw in self.value.keywords:
                if kw.arg == key:
                    return kw.value
        return None

    @property
    def init(self) -> bool:
        v = self.field_call_kw("init")
        return not (isinstance(v, ast.Constant) and v.value is False)


@dataclasses.dataclass
class ModuleInfo:
    repo: Repo
    path: str
    module: str
    tree: ast.Module
    classes: dict[str, ast.ClassDef]
    imports: dict[str, tuple[str, str | None]]  # local name -> (module, name or None for `import module`)
    star_imports: list[str]


class PythonSources:
    """Python modules of one or more repositories, mounted at their package names, so that a class's bases
    can be followed through imports, also from one repository into another (Bridge -> Megatron-LM)."""

    def __init__(self, mounts: list[tuple[Repo, str, str]]):
        # (repo, path prefix in the repo, package name), most specific first: ("src/", "megatron.bridge").
        self.mounts = mounts
        self._modules: dict[tuple[int, str], ModuleInfo | None] = {}
        self._fields: dict[tuple[int, str, str], dict[str, FieldInfo]] = {}
        self.unresolved: Counter = Counter()

    # -- modules --
    def module_name(self, repo: Repo, path: str) -> str:
        for r, prefix, _pkg in self.mounts:
            if r is repo and path.startswith(prefix):
                rel = path[len(prefix):]
                break
        else:
            rel = path
        rel = rel[:-3] if rel.endswith(".py") else rel
        if rel.endswith("/__init__"):
            rel = rel[: -len("/__init__")]
        return rel.replace("/", ".")

    def locate(self, module: str) -> tuple[Repo, str] | None:
        for repo, prefix, pkg in self.mounts:
            if module == pkg or module.startswith(pkg + "."):
                rel = prefix + module.replace(".", "/")
                for cand in (rel + ".py", rel + "/__init__.py"):
                    if cand in repo.file_set:
                        return repo, cand
        return None

    def module(self, repo: Repo, path: str) -> ModuleInfo | None:
        key = (id(repo), path)
        if key not in self._modules:
            self._modules[key] = self._load(repo, path)
        return self._modules[key]

    def _load(self, repo: Repo, path: str) -> ModuleInfo | None:
        tree = parse_python(repo, path)
        if tree is None:
            return None
        module = self.module_name(repo, path)
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        classes: dict[str, ast.ClassDef] = {}
        imports: dict[str, tuple[str, str | None]] = {}
        star: list[str] = []
        # Classes at module level (also inside `if`/`try`), not nested in functions or classes.
        stack: list[ast.AST] = list(tree.body)
        while stack:
            node = stack.pop(0)
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, node)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for attr in ("body", "orelse", "finalbody", "handlers"):
                    stack.extend(getattr(node, attr, []) or [])
            elif isinstance(node, ast.ExceptHandler):
                stack.extend(node.body)
        # Imports anywhere (function-local ones too: arguments.py imports config classes inside functions).
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".") if package else []
                    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                for alias in node.names:
                    if alias.name == "*":
                        star.append(src)
                    else:
                        imports.setdefault(alias.asname or alias.name, (src, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        imports.setdefault(alias.asname, (alias.name, None))
                    else:
                        imports.setdefault(alias.name.split(".")[0], (alias.name.split(".")[0], None))
        return ModuleInfo(repo, path, module, tree, classes, imports, star)

    # -- classes --
    def find_class(self, module: str, name: str, depth: int = 0) -> tuple[ModuleInfo, ast.ClassDef] | None:
        """Class `name` as seen from `module`: defined there, or re-exported by an import."""
        if depth > 10:
            return None
        loc = self.locate(module)
        if loc is None:
            # `from pkg import submodule` then `submodule.Class` arrives here as module "pkg.submodule".
            return None
        info = self.module(*loc)
        if info is None:
            return None
        if name in info.classes:
            return info, info.classes[name]
        if name in info.imports:
            src, orig = info.imports[name]
            if orig is not None:
                found = self.find_class(src, orig, depth + 1)
                if found:
                    return found
        for src in info.star_imports:
            found = self.find_class(src, name, depth + 1)
            if found:
                return found
        return None

    def resolve(self, info: ModuleInfo, expr: ast.expr) -> tuple[ModuleInfo, ast.ClassDef] | None:
        """The class an expression (a base, a call argument) names, seen from module `info`."""
        if isinstance(expr, ast.Subscript):  # Generic[T]-style bases
            expr = expr.value
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if not rest:
            if head in info.classes:
                return info, info.classes[head]
            if head in info.imports:
                src, orig = info.imports[head]
                if orig is not None:
                    return self.find_class(src, orig) or self.find_class(f"{src}.{orig}", orig)
            for src in info.star_imports:
                found = self.find_class(src, head)
                if found:
                    return found
            return None
        if head in info.imports:
            src, orig = info.imports[head]
            base = src if orig is None else f"{src}.{orig}"
            mod, _, cls = f"{base}.{rest}".rpartition(".")
            return self.find_class(mod, cls)
        return None

    def classes_in(self, repo: Repo, path: str) -> Iterator[tuple[ModuleInfo, ast.ClassDef]]:
        info = self.module(repo, path)
        if info is not None:
            for cls in info.classes.values():
                yield info, cls

    def ancestors(self, info: ModuleInfo, cls: ast.ClassDef, depth: int = 0) -> set[tuple[int, str, str]]:
        """Keys (repo, path, name) of the class and of every base that can be followed."""
        out = {(id(info.repo), info.path, cls.name)}
        if depth < 20:
            for base in cls.bases:
                found = self.resolve(info, base)
                if found is not None:
                    out |= self.ancestors(*found, depth=depth + 1)
        return out

    def fields(self, info: ModuleInfo, cls: ast.ClassDef, depth: int = 0) -> dict[str, FieldInfo]:
        """dataclasses.fields() of the class, statically: fields of its (dataclass) bases, then its own
        annotated attributes when it is itself a @dataclass (ClassVar and KW_ONLY are not fields)."""
        key = (id(info.repo), info.path, cls.name)
        if key in self._fields:
            return self._fields[key]
        result: dict[str, FieldInfo] = {}
        if depth > 20:
            return result
        for base in reversed(cls.bases):
            found = self.resolve(info, base)
            if found is None:
                name = dotted(base.value if isinstance(base, ast.Subscript) else base) or ast.unparse(base)
                self.unresolved[name] += 1
                continue
            result.update(self.fields(*found, depth=depth + 1))
        if any(is_dataclass_decorator(d) for d in cls.decorator_list):
            for stmt in cls.body:
                if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                    continue
                ann = ast.unparse(stmt.annotation)
                if re.match(r"^(typing\.|dataclasses\.)?(ClassVar|KW_ONLY)\b", ann):
                    continue
                result[stmt.target.id] = FieldInfo(stmt.target.id, info.repo, info.path, stmt.lineno,
                                                   stmt.annotation, stmt.value, cls.name)
        self._fields[key] = result
        return result


def is_dataclass(cls: ast.ClassDef) -> bool:
    return any(is_dataclass_decorator(d) for d in cls.decorator_list)


def py_files(repo: Repo, prefix: str = "", exclude_tests: bool = True) -> list[str]:
    out = []
    for p in repo.files:
        if not p.endswith(".py") or not p.startswith(prefix):
            continue
        parts = p.split("/")
        if exclude_tests and (parts[0] in ("tests", "test", ".github", ".gitlab")
                              or any(x in ("tests", "test", "unit_tests", "functional_tests") for x in parts[:-1])):
            continue
        out.append(p)
    return out


def prioritised(paths: Iterable[str], first: list[str]) -> list[str]:
    """Paths in a stable order with the canonical files first, so that a name found in several places
    cites the canonical one (the catalogue keeps the first source of each name)."""
    def rank(p: str) -> tuple[int, str]:
        for i, f in enumerate(first):
            if p == f or (f.endswith("/") and p.startswith(f)):
                return i, p
        return len(first), p
    return sorted(paths, key=rank)


# ----------------------------------------------------------------------------------------------------------
# argparse
# ----------------------------------------------------------------------------------------------------------

def is_boolean_optional(action: ast.expr | None) -> bool:
    return action is not None and (dotted(action) or "").split(".")[-1] == "BooleanOptionalAction"


def derived_dest(options: list[str]) -> str | None:
    """argparse's rule: the first long option, else the first short one, without dashes, '-' -> '_'."""
    longs = [o for o in options if o.startswith("--")]
    chosen = (longs or options or [None])[0]
    if chosen is None:
        return None
    return chosen.lstrip("-").replace("-", "_") or None


def boolean_optional_twins(options: list[str]) -> list[str]:
    """argparse.BooleanOptionalAction adds `--no-foo` for every `--foo`."""
    return ["--no-" + o[2:] for o in options if o.startswith("--")]


def _loop_bindings(tree: ast.Module) -> dict[int, dict[str, list[str]]]:
    """For each call inside `for NAME in [literal strings]:`, the strings NAME takes, so that
    add_argument(f"--{NAME}") can be expanded."""
    out: dict[int, dict[str, list[str]]] = {}

    def visit(node: ast.AST, env: dict[str, list[str]]) -> None:
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(
                node.iter, (ast.List, ast.Tuple, ast.Set)):
            vals = [e.value for e in node.iter.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(vals) == len(node.iter.elts):
                env = {**env, node.target.id: vals}
        if isinstance(node, ast.Call):
            out[id(node)] = env
        for child in ast.iter_child_nodes(node):
            visit(child, env)

    visit(tree, {})
    return out


def _option_strings(arg: ast.expr, env: dict[str, list[str]]) -> list[tuple[str, int]] | None:
    """Option strings of one positional argument of add_argument(), or None when built at run time."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [(arg.value, arg.lineno)]
    if isinstance(arg, ast.Starred) and isinstance(arg.value, (ast.List, ast.Tuple)):
        out = []
        for e in arg.value.elts:
            got = _option_strings(e, env)
            if got is None:
                return None
            out += got
        return out
    if isinstance(arg, ast.JoinedStr):
        # f"--{name}" over a loop variable with literal values.
        variants = [""]
        for part in arg.values:
            if isinstance(part, ast.Constant):
                variants = [v + str(part.value) for v in variants]
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name) and \
                    part.value.id in env and part.conversion == -1 and part.format_spec is None:
                variants = [v + x for v in variants for x in env[part.value.id]]
            else:
                return None
        return [(v, arg.lineno) for v in variants]
    return None


@dataclasses.dataclass
class ArgOption:
    option: str
    line: int
    dest: str | None
    dest_line: int
    boolean_optional: bool


def argparse_options(repo: Repo, path: str, tree: ast.Module | None, quiet: bool = False) -> Iterator[ArgOption]:
    """Every option string added with `<anything>.add_argument(...)` (parser, group, mutually exclusive
    group, subparser, helper functions `_add_*_args(parser)`), its dest (explicit or derived) and whether
    it is a BooleanOptionalAction; also click options. A file Python cannot parse is scanned with a regular
    expression."""
    if tree is None:
        yield from _argparse_options_regex(repo, path)
        return
    envs = _loop_bindings(tree)
    click_names = {"click.option"} | {a.asname or a.name for n in ast.walk(tree)
                                      if isinstance(n, ast.ImportFrom) and n.module == "click"
                                      for a in n.names if a.name == "option"}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if dotted(node.func) in click_names:
            # click (tools/checkpoint/checkpoint_inspector.py): @click.option("--name", "--on/--off", ...)
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    for o in arg.value.split("/"):
                        if o.startswith("-") and len(o) > 1:
                            yield ArgOption(o, arg.lineno, None, arg.lineno, False)
            continue
        if not (isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        options: list[tuple[str, int]] = []
        dynamic = False
        for arg in node.args:
            got = _option_strings(arg, envs.get(id(node), {}))
            if got is None:
                dynamic = True
            else:
                options += got
        kws = {k.arg: k.value for k in node.keywords if k.arg}
        if dynamic and not quiet:
            warn("dynamic-option", f"{repo.name}:{path}:{node.lineno}: option name built at run time: "
                                   f"{ast.unparse(node.func)}({', '.join(ast.unparse(a) for a in node.args)})")
        flags = [(o, ln) for o, ln in options if o.startswith("-") and len(o) > 1]
        if not flags:
            continue  # a positional argument: not something a command line spells
        dest_node = kws.get("dest")
        if isinstance(dest_node, ast.Constant) and isinstance(dest_node.value, str):
            dest, dest_line = dest_node.value, dest_node.lineno
        else:
            dest, dest_line = derived_dest([o for o, _ in flags]), flags[0][1]
        boolopt = is_boolean_optional(kws.get("action"))
        for o, ln in flags:
            yield ArgOption(o, ln, dest, dest_line, boolopt)


_ADD_ARG_RE = re.compile(r"\.add_argument\(\s*((?:(?:'[^']*'|\"[^\"]*\")\s*,\s*)+)")


def _argparse_options_regex(repo: Repo, path: str) -> Iterator[ArgOption]:
    text = repo.read(path) or ""
    for m in _ADD_ARG_RE.finditer(text):
        line = text.count("\n", 0, m.start(1)) + 1
        flags = [s[1:-1] for s in re.findall(r"'[^']*'|\"[^\"]*\"", m.group(1))]
        flags = [f for f in flags if f.startswith("-") and len(f) > 1]
        if flags:
            tail = text[m.end(): m.end() + 400]
            boolopt = bool(re.match(r"[^)]*BooleanOptionalAction", tail))
            dm = re.match(r"[^)]*?\bdest\s*=\s*['\"]([^'\"]+)['\"]", tail)
            dest = dm.group(1) if dm else derived_dest(flags)
            for f in flags:
                yield ArgOption(f, line, dest, line, boolopt)


def argparse_rows(repo: Repo, path: str, tree: ast.Module | None, framework: str, syntax: str,
                  with_dest: bool, quiet: bool = False) -> Iterator[Row]:
    for opt in argparse_options(repo, path, tree, quiet):
        names = [opt.option] + (boolean_optional_twins([opt.option]) if opt.boolean_optional else [])
        for n in names:
            if clean(n):
                yield Row(framework, syntax, n, repo.src(path, opt.line))
        if with_dest and opt.dest and clean(opt.dest):
            yield Row(framework, "dest", opt.dest, repo.src(path, opt.dest_line))


# ----------------------------------------------------------------------------------------------------------
# Megatron-LM's ArgumentGroupFactory: flags derived from config dataclasses
# ----------------------------------------------------------------------------------------------------------

def _literal_strings(node: ast.expr | None) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        vals = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return vals if len(vals) == len(node.elts) else None
    return None


def _unwrap_optional(ann: ast.expr) -> ast.expr:
    """Optional[X], Union[X, None] and X | None are X, as ArgumentGroupFactory._extract_type reads them."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return ann
    if isinstance(ann, ast.Subscript):
        head = (dotted(ann.value) or "").split(".")[-1]
        if head == "Optional":
            return _unwrap_optional(ann.slice)
        if head == "Union" and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) == 2 and \
                isinstance(ann.slice.elts[1], ast.Constant) and ann.slice.elts[1].value is None:
            return _unwrap_optional(ann.slice.elts[0])
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr) and \
            isinstance(ann.right, ast.Constant) and ann.right.value is None:
        return _unwrap_optional(ann.left)
    return ann


def _meta_dict(f: FieldInfo) -> dict[str, ast.expr]:
    """The field's metadata={"argparse_meta": {...}} entries, as AST."""
    meta = f.field_call_kw("metadata")
    out: dict[str, ast.expr] = {}
    if isinstance(meta, ast.Dict):
        for k, v in zip(meta.keys, meta.values):
            if isinstance(k, ast.Constant) and k.value == "argparse_meta" and isinstance(v, ast.Dict):
                for k2, v2 in zip(v.keys, v.values):
                    if isinstance(k2, ast.Constant) and isinstance(k2.value, str):
                        out[k2.value] = v2
    return out


def factory_flags(f: FieldInfo) -> tuple[list[str], str]:
    """The option strings and dest ArgumentGroupFactory (megatron/training/argument_utils.py) gives one
    field: `--name-with-dashes`; for a bool whose default is not False, `--no-name` and `--disable-name`;
    argparse_meta's arg_names / dest replace them; a BooleanOptionalAction adds the --no- twins."""
    base = "--" + f.name.replace("_", "-")
    names = [base]
    if isinstance(_unwrap_optional(f.annotation), ast.Name) and _unwrap_optional(f.annotation).id == "bool":
        default = f.field_call_kw("default") if f.field_call_kw("default") is not None else f.value
        if f.field_call_kw("default_factory") is not None:
            fac = f.field_call_kw("default_factory")
            default = ast.Constant(False) if isinstance(fac, ast.Name) and fac.id == "bool" else None
        if isinstance(default, ast.Call):  # field(...) without default=: MISSING, which is not False
            default = None
        # The factory tests `attribute.default == False`: True for False and 0, not for None or MISSING.
        store_true = isinstance(default, ast.Constant) and default.value is not None \
            and default.value == False  # noqa: E712
        if not store_true:
            names = ["--no-" + f.name.replace("_", "-"), "--disable-" + f.name.replace("_", "-")]
    meta = _meta_dict(f)
    if _literal_strings(meta.get("arg_names")):
        names = _literal_strings(meta["arg_names"])
    dest = f.name
    if isinstance(meta.get("dest"), ast.Constant) and isinstance(meta["dest"].value, str):
        dest = meta["dest"].value
    if is_boolean_optional(meta.get("action")):
        names += boolean_optional_twins(names)
    return names, dest


def factory_rows(py: PythonSources, repo: Repo, path: str, framework: str) -> Iterator[Row]:
    """Rows for each `ArgumentGroupFactory(ConfigClass, exclude=[...]).build_group(...)` in a file."""
    info = py.module(repo, path)
    if info is None:
        return
    parents = {id(c): p for p in ast.walk(info.tree) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(info.tree):
        if not (isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("ArgumentGroupFactory")
                and node.args):
            continue
        found = py.resolve(info, node.args[0])
        if found is None:
            warn("factory-class", f"{repo.name}:{path}:{node.lineno}: cannot find {ast.unparse(node.args[0])}")
            continue
        exclude_node = next((k.value for k in node.keywords if k.arg == "exclude"), None)
        if exclude_node is None and len(node.args) > 1:
            exclude_node = node.args[1]
        exclude = _literal_strings(exclude_node)
        if exclude is None and isinstance(exclude_node, ast.Name):
            # exclude=exclude: the list assigned in the enclosing function.
            scope = node
            while id(scope) in parents and not isinstance(scope, (ast.FunctionDef, ast.Module)):
                scope = parents[id(scope)]
            for st in ast.walk(scope):
                if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == exclude_node.id
                                                      for t in st.targets):
                    exclude = _literal_strings(st.value)
        if exclude is None:
            if exclude_node is not None:
                warn("factory-exclude", f"{repo.name}:{path}:{node.lineno}: exclude list not literal; none used")
            exclude = []
        cls_name = found[1].name
        for f in py.fields(*found).values():
            if f.name in exclude or not f.init:
                continue
            names, dest = factory_flags(f)
            for n in names:
                if clean(n):
                    yield Row(framework, "flag", n, repo.src(path, node.lineno), cls_name)
            if clean(dest):
                yield Row(framework, "dest", dest, repo.src(path, node.lineno), cls_name)


def dataclass_rows(py: PythonSources, repo: Repo, paths: Iterable[str], framework: str, syntax: str,
                   name_filter=lambda name: True, inherited: bool = True) -> Iterator[Row]:
    """One row per field of each @dataclass in `paths` that passes `name_filter`; the source is where the
    field is declared (possibly in a base class, possibly in another repository), the owner the class."""
    for path in paths:
        for info, cls in py.classes_in(repo, path):
            if not is_dataclass(cls) or not name_filter(cls.name):
                continue
            for f in py.fields(info, cls).values():
                if not inherited and f.declared_in != cls.name:
                    continue
                if clean(f.name):
                    yield Row(framework, syntax, f.name, cited(f, repo), cls.name)
            for name, line in init_params(cls):
                yield Row(framework, syntax, name, repo.src(info.path, line), cls.name)


def init_params(cls: ast.ClassDef) -> Iterator[tuple[str, int]]:
    """Parameters of a dataclass's own __init__: a hand-written one takes names that are not fields
    (Bridge's GPTDatasetConfig(seq_length=..., data_path=...))."""
    for st in cls.body:
        if isinstance(st, ast.FunctionDef) and st.name == "__init__":
            for arg in [*st.args.posonlyargs, *st.args.args, *st.args.kwonlyargs]:
                if arg.arg not in ("self", "cls") and clean(arg.arg):
                    yield arg.arg, arg.lineno


def section_rows(py: PythonSources, repo: Repo, paths: list[str], framework: str,
                 is_container) -> Iterator[Row]:
    """For each config container (ConfigContainer), its sections (`section` rows: model, checkpoint, ...)
    and every `section.field` (`field-path` rows: checkpoint.fully_parallel_save, dataset.sequence_length).
    A section's fields are those of every class its annotation names (model: GPTModelProvider | ...) and
    of every dataclass in `paths` derived from one of them (LlamaModelProvider, ...)."""
    classes = [(info, cls) for path in paths for info, cls in py.classes_in(repo, path) if is_dataclass(cls)]
    ancestry = {id(cls): py.ancestors(info, cls) for info, cls in classes}
    for info, cls in classes:
        if not is_container(cls.name):
            continue
        for stmt in cls.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            section = stmt.target.id
            if section.startswith("_"):  # private state of the container, not a section
                continue
            yield Row(framework, "section", section, repo.src(info.path, stmt.lineno), cls.name)
            names = sorted((n for n in ast.walk(stmt.annotation) if isinstance(n, (ast.Name, ast.Attribute))),
                           key=lambda n: (n.lineno, n.col_offset))  # as written: GPTModelProvider first
            named = [py.resolve(info, n) for n in names]
            named = [c for c in named if c is not None and py.fields(*c)]
            keys = {(id(i.repo), i.path, c.name) for i, c in named}
            seen = {id(c) for _, c in named}
            members = named + [(i, c) for i, c in classes if ancestry[id(c)] & keys and id(c) not in seen]
            for member_info, member in members:
                for f in py.fields(member_info, member).values():
                    if clean(f.name):
                        yield Row(framework, "field-path", f"{section}.{f.name}", cited(f, repo), member.name)
                for name, line in init_params(member):
                    yield Row(framework, "field-path", f"{section}.{name}",
                              cited(FieldInfo(name, member_info.repo, member_info.path, line, member, None,
                                              member.name), repo), member.name)


def cited(f: FieldInfo, home: Repo) -> str:
    """Source of a field; a field inherited from another repository (Bridge's bases in Megatron-LM) is
    cited under the path that repository has in `home` (its submodule folder) at its own commit."""
    if f.repo is home:
        return f.repo.src(f.path, f.line)
    prefix = getattr(home, "submodule_paths", {}).get(id(f.repo), "")
    return f"{prefix}{f.path}:{f.line}@{f.repo.sha12}"


# ----------------------------------------------------------------------------------------------------------
# YAML keys
# ----------------------------------------------------------------------------------------------------------

# `key:`, `- key:`, `"key":` at the start of a line, then a space or the end of the line.
_YAML_KEY_RE = re.compile(r"""^(?P<indent>[ ]*)(?P<dash>(?:-[ ]+)*)
                              (?:(?P<plain>[A-Za-z_][\w.-]*)|"(?P<dq>[A-Za-z_][\w.-]*)"|'(?P<sq>[A-Za-z_][\w.-]*)')
                              [ ]*:(?:[ \t]+(?P<value>.*))?$""", re.X)


def yaml_keys(text: str) -> Iterator[tuple[str, str, int]]:
    """(key, dotted path, line) of every mapping key, by indentation. Tolerant and loader-free: block
    scalars (`key: |`) are skipped, list items (`- key:`) add no path segment, `${...}` values are ignored."""
    stack: list[tuple[int, str]] = []  # (column of the key, key)
    block_col = None  # inside a block scalar started by a key at this column
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.replace("\t", "    ")
        stripped = line.strip()
        if block_col is not None:
            if not stripped or len(line) - len(line.lstrip(" ")) > block_col:
                continue
            block_col = None
        if not stripped or stripped.startswith("#"):
            continue
        if stripped in ("---", "...") or stripped.startswith("--- "):
            stack = []
            continue
        m = _YAML_KEY_RE.match(line)
        if not m:
            continue
        key = m.group("plain") or m.group("dq") or m.group("sq")
        col = len(m.group("indent")) + len(m.group("dash"))
        while stack and stack[-1][0] >= col:
            stack.pop()
        path = ".".join([k for _, k in stack] + [key])
        yield key, path, lineno
        stack.append((col, key))
        value = re.sub(r"\s+#.*$", "", m.group("value") or "").strip()
        if re.fullmatch(r"[|>][-+0-9]*", value):
            block_col = col
        elif value.startswith("{"):
            for sub, sub_path in _flow_keys(value):
                yield sub, f"{path}.{sub_path}", lineno


def _flow_keys(value: str) -> Iterator[tuple[str, str]]:
    """Keys of a one-line flow mapping, `{train: [...], test: {a: 1}}`, with their paths inside it."""
    path: list[str | None] = []  # one entry per open brace: the key it belongs to
    pending: str | None = None
    quote = None
    i = 0
    while i < len(value):
        ch = value[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            path.append(pending)
            pending = None
        elif ch == "}":
            if path:
                path.pop()
        elif ch in "[]":
            pass
        m = re.match(r"[{,]\s*([A-Za-z_][\w.-]*)\s*:(?:\s|$)", value[i:]) if not quote and ch in "{," else None
        if m and path:
            pending = m.group(1)
            yield pending, ".".join([k for k in path[1:] if k] + [pending])
        i += 1


def yaml_rows(repo: Repo, paths: Iterable[str], framework: str) -> Iterator[Row]:
    for path in paths:
        text = repo.read(path)
        if text is None:
            warn("unreadable", f"{repo.name}:{path} is not stored")
            continue
        for key, dotted_path, line in yaml_keys(text):
            if clean(key):
                yield Row(framework, "key", key, repo.src(path, line))
            if clean(dotted_path) and dotted_path != key:
                yield Row(framework, "key-path", dotted_path, repo.src(path, line))


def config_get_keys(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """String keys read from a config object: cfg.get("k"), cfg.model.get("k", d), model_cfg["k"],
    where the receiver's name mentions cfg/conf. (Keys read as attributes, cfg.model.k, fail when the YAML
    lacks them, so the YAML scan already has those; .get() is how optional keys are read.)"""
    def configish(expr: ast.expr) -> bool:
        name = dotted(expr)
        return bool(name) and any(re.search(r"cfg|conf", part, re.I) for part in name.split("."))

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                and configish(node.func.value):
            yield node.args[0].value, node.lineno
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
                isinstance(node.slice.value, str) and configish(node.value):
            yield node.slice.value, node.lineno


# ----------------------------------------------------------------------------------------------------------
# One function per framework
# ----------------------------------------------------------------------------------------------------------

def collect_megatron_lm(mlm: Repo, py: PythonSources) -> Iterator[Row]:
    """megatron-lm: training flags (add_argument and ArgumentGroupFactory) and their dests, tool flags,
    and the fields of the megatron/training config dataclasses."""
    fw = "megatron-lm"
    # Training parser: megatron/training first (arguments.py is the canonical citation), then the rest of
    # megatron/ (post_training, inference, elastification... add their groups to the same parser).
    for path in prioritised(py_files(mlm, "megatron/"), ["megatron/training/arguments.py", "megatron/training/"]):
        info = py.module(mlm, path)
        tree = info.tree if info else None
        text = mlm.read(path) or ""
        if "add_argument" in text:
            standalone = tree is not None and has_main_guard(tree) and not path.startswith("megatron/training/")
            # argument_utils.py's one add_argument(*arg_names) is ArgumentGroupFactory, emulated below.
            yield from argparse_rows(mlm, path, tree, fw, "tool-flag" if standalone else "flag",
                                     with_dest=not standalone, quiet=path.endswith("argument_utils.py"))
        if "ArgumentGroupFactory(" in text and not path.endswith("argument_utils.py"):
            yield from factory_rows(py, mlm, path, fw)
    # Entry points and tools: converters (tools/checkpoint) first.
    others = [p for p in py_files(mlm) if not p.startswith("megatron/") and p != "setup.py"]
    for path in prioritised(others, ["tools/checkpoint/", "tools/", "pretrain_", "train_rl.py"]):
        if "add_argument" not in (mlm.read(path) or "") and "option(" not in (mlm.read(path) or ""):
            continue
        yield from argparse_rows(mlm, path, parse_python(mlm, path), fw, "tool-flag", with_dest=False)
    # megatron/training's own config dataclasses (CheckpointConfig, ...) and its containers' sections.
    training = prioritised(py_files(mlm, "megatron/training/"), ["megatron/training/config/"])
    yield from dataclass_rows(py, mlm, training, fw, "field", lambda n: n.endswith("Config"))
    yield from section_rows(py, mlm, training + prioritised(py_files(mlm, "megatron/core/"), []), fw,
                            lambda n: n.endswith("ConfigContainer"))


def collect_megatron_core(mlm: Repo, py: PythonSources) -> Iterator[Row]:
    """megatron-core: fields of every @dataclass *Config under megatron/core/, inherited ones included."""
    first = ["megatron/core/model_parallel_config.py", "megatron/core/transformer/transformer_config.py",
             "megatron/core/distributed/distributed_data_parallel_config.py",
             "megatron/core/optimizer/optimizer_config.py"]
    paths = prioritised(py_files(mlm, "megatron/core/"), first)
    yield from dataclass_rows(py, mlm, paths, "megatron-core", "field", lambda n: n.endswith("Config"))


def collect_megatron_bridge(bridge: Repo, py: PythonSources) -> Iterator[Row]:
    """megatron-bridge: dataclass fields (with those inherited from Megatron-LM), ConfigContainer
    sections, private *parallel* attributes that recipes set, and script flags."""
    fw = "megatron-bridge"
    src = prioritised(py_files(bridge, "src/megatron/bridge/"),
                      ["src/megatron/bridge/training/config.py", "src/megatron/bridge/models/gpt_provider.py",
                       "src/megatron/bridge/models/", "src/megatron/bridge/training/"])
    yield from dataclass_rows(py, bridge, src, fw, "field")
    # Sections of ConfigContainer and section.field paths (what `checkpoint.fully_parallel_save=true`
    # overrides spell).
    yield from section_rows(py, bridge, src, fw, lambda n: n.endswith("ConfigContainer"))
    # Private attributes with "parallel" in the name, assigned anywhere (x._name = v, setattr(x, "_name", v)).
    for path in src:
        info = py.module(bridge, path)
        if info is None:
            continue
        for node in ast.walk(info.tree):
            targets: list[tuple[str, int]] = []
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Attribute):
                            targets.append((sub.attr, sub.lineno))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                    and isinstance(node.args[1].value, str):
                targets.append((node.args[1].value, node.lineno))
            for name, line in targets:
                # Upper-case names are parallel_state's module globals patched by a builder, not settings.
                if name.startswith("_") and not name.startswith("__") and "parallel" in name.lower() \
                        and not name.isupper():
                    yield Row(fw, "private-field", name, bridge.src(path, line))
    # Script flags: the training launchers' (-tp, -pp, ...) are flags, the rest tool flags.
    launchers = ("scripts/performance/", "scripts/training/")
    scripts = [p for p in py_files(bridge) if p.split("/")[0] in ("scripts", "examples", "tutorials", "src", "tools")]
    for path in prioritised(scripts, list(launchers) + ["scripts/"]):
        if "add_argument" not in (bridge.read(path) or ""):
            continue
        syntax = "flag" if path.startswith(launchers) else "tool-flag"
        yield from argparse_rows(bridge, path, parse_python(bridge, path), fw, syntax, with_dest=False)


def collect_nemo2(nemo: Repo, py: PythonSources) -> Iterator[Row]:
    """nemo2: constructor arguments of the strategies (MegatronStrategy, ...) and comm-overlap callback,
    fields of the strategy dataclasses (ParallelismConfig), own fields of the NeMo 2 config dataclasses."""
    fw = "nemo2"
    lightning = prioritised(py_files(nemo, "nemo/lightning/"),
                            ["nemo/lightning/pytorch/strategies/megatron_strategy.py",
                             "nemo/lightning/pytorch/strategies/"])
    for path in lightning:
        strategies_dir = "/strategies" in path or path.endswith("strategies.py")
        for info, cls in py.classes_in(nemo, path):
            wanted = cls.name.endswith("Strategy") or cls.name == "MegatronCommOverlapCallback"
            if wanted:
                for st in cls.body:
                    if isinstance(st, ast.FunctionDef) and st.name == "__init__":
                        a = st.args
                        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                            if arg.arg not in ("self", "cls"):
                                yield Row(fw, "arg", arg.arg, nemo.src(path, arg.lineno), cls.name)
            if is_dataclass(cls) and (strategies_dir or "Parallel" in cls.name):
                for f in py.fields(info, cls).values():
                    yield Row(fw, "arg", f.name, cited(f, nemo), cls.name)
    configs = prioritised(py_files(nemo, "nemo/collections/llm/") + py_files(nemo, "nemo/collections/vlm/")
                          + lightning, ["nemo/collections/llm/gpt/model/base.py"])
    yield from dataclass_rows(py, nemo, configs, fw, "field", lambda n: n.endswith("Config"), inherited=False)


def collect_nemo1(nemo: Repo, launcher: Repo) -> Iterator[Row]:
    """nemo1: YAML keys (leaf name and dotted path) of the NeMo 1 configs, and keys read with cfg.get()."""
    fw = "nemo1"
    yaml_ext = (".yaml", ".yml")
    nemo_yaml = [p for p in nemo.files if p.startswith("examples/") and p.endswith(yaml_ext)
                 and "/conf/" in p]
    nemo_first = ["examples/nlp/language_modeling/conf/megatron_gpt_config.yaml",
                  "examples/nlp/language_modeling/conf/"]
    yield from yaml_rows(nemo, prioritised(nemo_yaml, nemo_first), fw)
    launcher_yaml = [p for p in launcher.files if p.startswith("launcher_scripts/conf/") and p.endswith(yaml_ext)]
    launcher_first = ["launcher_scripts/conf/training/gpt3/", "launcher_scripts/conf/training/"]
    yield from yaml_rows(launcher, prioritised(launcher_yaml, launcher_first), fw)
    # Optional keys read in Python (nemo/utils/callbacks/dist_ckpt_io.py reads dist_ckpt_parallel_save).
    for path in prioritised(py_files(nemo, "nemo/"), ["nemo/collections/nlp/", "nemo/utils/", "nemo/core/"]):
        tree = parse_python(nemo, path)
        if tree is None:
            continue
        for key, line in config_get_keys(tree):
            if clean(key) and re.fullmatch(r"[A-Za-z_][\w.-]*", key):
                yield Row(fw, "key", key, nemo.src(path, line))


def collect_megatron_deepspeed(mds: Repo) -> Iterator[Row]:
    """megatron-deepspeed: training flags of megatron/ (arguments.py), their dests, DeepSpeed's own
    flags, and tool flags."""
    fw = "megatron-deepspeed"
    for path in prioritised(py_files(mds, "megatron/"), ["megatron/arguments.py"]):
        if "add_argument" not in (mds.read(path) or ""):
            continue
        tree = parse_python(mds, path)
        standalone = tree is not None and has_main_guard(tree)
        yield from argparse_rows(mds, path, tree, fw, "tool-flag" if standalone else "flag",
                                 with_dest=not standalone)
    for flag in DEEPSPEED_CORE_FLAGS:
        yield Row(fw, "flag", flag, DEEPSPEED_CORE_SOURCE)
        yield Row(fw, "dest", flag.lstrip("-").replace("-", "_"), DEEPSPEED_CORE_SOURCE)
    others = [p for p in py_files(mds) if not p.startswith("megatron/") and p != "setup.py"]
    for path in prioritised(others, ["tools/convert_checkpoint/", "tools/checkpoint", "tools/", "pretrain_"]):
        if "add_argument" not in (mds.read(path) or ""):
            continue
        yield from argparse_rows(mds, path, parse_python(mds, path), fw, "tool-flag", with_dest=False)


def collect_gpt_neox(neox: Repo, py: PythonSources) -> Iterator[Row]:
    """gpt-neox: fields of the NeoXArgs* dataclasses (megatron/neox_arguments/), the YAML keys of a
    GPT-NeoX configuration (NeoX also accepts them with '-' for '_')."""
    paths = prioritised([p for p in py_files(neox, "megatron/neox_arguments/")],
                        ["megatron/neox_arguments/neox_args.py"])
    yield from dataclass_rows(py, neox, paths, "gpt-neox", "field")


def collect_verl(verl: Repo, py: PythonSources) -> Iterator[Row]:
    """verl: fields of its config dataclasses (verl/workers/config/, verl/trainer/config/) and the keys of
    its YAML configs (verl/trainer/config/), which its Hydra command lines override."""
    paths = prioritised([p for p in py_files(verl, "verl/workers/config/") + py_files(verl, "verl/trainer/config/")],
                        ["verl/workers/config/engine.py"])
    yield from dataclass_rows(py, verl, paths, "verl", "field")
    yaml = [p for p in verl.files if p.startswith("verl/trainer/config/") and p.endswith((".yaml", ".yml"))]
    yield from yaml_rows(verl, prioritised(yaml, ["verl/trainer/config/ppo_megatron_trainer.yaml"]), "verl")


def collect_nemo_rl(nemo_rl: Repo) -> Iterator[Row]:
    """nemo-rl: the keys of its example configs (examples/configs/), the layout its TypedDicts define."""
    yaml = [p for p in nemo_rl.files if p.startswith("examples/configs/") and p.endswith((".yaml", ".yml"))]
    yield from yaml_rows(nemo_rl, prioritised(yaml, ["examples/configs/grpo_math_1B.yaml",
                                                     "examples/configs/grpo_math_1B_megatron.yaml"]), "nemo-rl")


def collect_flagscale(flagscale: Repo) -> Iterator[Row]:
    """flagscale: the keys of its example configs (examples/<model>/conf/)."""
    yaml = [p for p in flagscale.files if p.startswith("examples/") and "/conf/" in p
            and p.endswith((".yaml", ".yml"))]
    yield from yaml_rows(flagscale, sorted(yaml), "flagscale")


# ----------------------------------------------------------------------------------------------------------
# Output
# ----------------------------------------------------------------------------------------------------------

def dedupe_sorted(rows: Iterable[Row]) -> list[Row]:
    """First source per (framework, syntax, name), sorted by (framework, syntax, name)."""
    seen: dict[tuple[str, str, str], Row] = {}
    for r in rows:
        for field_value in (r.framework, r.syntax, r.name, r.source, r.owner):
            if "\t" in field_value or "\n" in field_value:
                raise ValueError(f"tab or newline in a field of {r}")
        seen.setdefault((r.framework, r.syntax, r.name), r)
    return [seen[k] for k in sorted(seen)]


def write_tsv(out: str, rows: list[Row], header_lines: list[str]) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write("# generated by scripts/gen_settings_catalogue.py -- do not edit; regenerate with "
                "`make update-settings`\n")
        for line in header_lines:
            f.write(f"# {line}\n")
        f.write("framework\tsyntax\tname\tsource\towner\n")
        for r in rows:
            fields = [r.framework, r.syntax, r.name, r.source] + ([r.owner] if r.owner else [])
            f.write("\t".join(fields) + "\n")
    os.replace(tmp, out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--megatron-lm", required=True, help="Megatron-LM: bare git mirror or checkout")
    ap.add_argument("--megatron-bridge", required=True, help="Megatron-Bridge: bare git mirror or checkout")
    ap.add_argument("--nemo", required=True, help="NeMo: bare git mirror or checkout")
    ap.add_argument("--nemo-launcher", required=True, help="NeMo-Framework-Launcher: bare git mirror or checkout")
    ap.add_argument("--megatron-deepspeed", required=True, help="Megatron-DeepSpeed: bare git mirror or checkout")
    ap.add_argument("--gpt-neox", required=True, help="GPT-NeoX: bare git mirror or checkout")
    ap.add_argument("--verl", required=True, help="verl: bare git mirror or checkout")
    ap.add_argument("--nemo-rl", required=True, help="NeMo-RL: bare git mirror or checkout")
    ap.add_argument("--flagscale", required=True, help="FlagScale: bare git mirror or checkout")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                  "rules", "data", "settings_catalogue.tsv"))
    args = ap.parse_args(argv)

    mlm = Repo(args.megatron_lm, "megatron-lm")
    bridge = Repo(args.megatron_bridge, "megatron-bridge")
    nemo = Repo(args.nemo, "nemo")
    launcher = Repo(args.nemo_launcher, "nemo-launcher")
    mds = Repo(args.megatron_deepspeed, "megatron-deepspeed")
    neox = Repo(args.gpt_neox, "gpt-neox")
    verl = Repo(args.verl, "verl")
    nemo_rl = Repo(args.nemo_rl, "nemo-rl")
    flagscale = Repo(args.flagscale, "flagscale")

    # Bridge's fields inherited from Megatron-LM are read at the commit Bridge pins (its submodule);
    # without that commit in the Megatron-LM repository, at the Megatron-LM commit given.
    submodule = "3rdparty/Megatron-LM"
    pinned = bridge.tree_entry(submodule)
    if pinned and mlm.has_commit(pinned):
        mlm_for_bridge = mlm if pinned == mlm.sha else Repo(args.megatron_lm, "megatron-lm", commit=pinned)
        how = f"the {submodule} submodule commit"
    else:
        warn("submodule", f"{bridge.name} pins Megatron-LM {pinned}, not in {mlm.path}; using {mlm.sha}")
        mlm_for_bridge, how = mlm, "the Megatron-LM commit given (the submodule commit was not available)"
    bridge.submodule_paths = {id(mlm_for_bridge): submodule + "/"}

    py_mlm = PythonSources([(mlm, "", "megatron")])
    py_bridge = PythonSources([(bridge, "src/", "megatron.bridge"), (mlm_for_bridge, "", "megatron")])
    py_nemo = PythonSources([(nemo, "", "nemo")])
    py_neox = PythonSources([(neox, "", "megatron")])
    py_verl = PythonSources([(verl, "", "verl")])

    rows: list[Row] = []
    rows += collect_megatron_lm(mlm, py_mlm)
    rows += collect_megatron_core(mlm, py_mlm)
    rows += collect_megatron_bridge(bridge, py_bridge)
    rows += collect_nemo2(nemo, py_nemo)
    rows += collect_nemo1(nemo, launcher)
    rows += collect_megatron_deepspeed(mds)
    rows += collect_gpt_neox(neox, py_neox)
    rows += collect_verl(verl, py_verl)
    rows += collect_nemo_rl(nemo_rl)
    rows += collect_flagscale(flagscale)
    rows = dedupe_sorted(rows)

    header = [
        f"megatron-lm={mlm.name} commit={mlm.sha}",
        f"megatron-core={mlm.name} commit={mlm.sha}",
        f"megatron-bridge={bridge.name} commit={bridge.sha}",
        f"megatron-bridge={mlm_for_bridge.name} commit={mlm_for_bridge.sha} path={submodule} "
        f"(inherited fields, read at {how})",
        f"nemo2={nemo.name} commit={nemo.sha}",
        f"nemo1={nemo.name} commit={nemo.sha}",
        f"nemo1={launcher.name} commit={launcher.sha}",
        f"megatron-deepspeed={mds.name} commit={mds.sha} (plus DeepSpeed's add_config_arguments flags, "
        f"source {DEEPSPEED_CORE_SOURCE})",
        f"gpt-neox={neox.name} commit={neox.sha}",
        f"verl={verl.name} commit={verl.sha}",
        f"nemo-rl={nemo_rl.name} commit={nemo_rl.sha}",
        f"flagscale={flagscale.name} commit={flagscale.sha}",
    ]
    write_tsv(args.out, rows, header)

    for label, py in (("megatron-lm", py_mlm), ("megatron-bridge", py_bridge), ("nemo", py_nemo),
                      ("gpt-neox", py_neox)):
        for name, n in sorted(py.unresolved.items()):
            print(f"note: {label}: base class outside the sources read (its fields are not listed): {name} x{n}",
                  file=sys.stderr)
    counts = Counter((r.framework, r.syntax) for r in rows)
    for (fw, syn), n in sorted(counts.items()):
        print(f"{fw}\t{syn}\t{n}", file=sys.stderr)
    print(f"{len(rows)} rows -> {args.out}; warnings: {dict(WARNINGS) or 'none'}", file=sys.stderr)
    for r in (mlm, mlm_for_bridge, bridge, nemo, launcher, mds, neox, verl, nemo_rl, flagscale):
        r.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

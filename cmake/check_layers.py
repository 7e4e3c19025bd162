#!/usr/bin/env python3
"""Refuses an include across the line between parlint's parts (DESIGN.md §2).

Data flows one way: files -> parsers -> facts -> jobs -> rules -> diagnostics. The fact model is its own
part that parsers and rules both include; neither includes the other. Every project file a source reaches
through its includes, directly or through headers, must belong to a part its own part may use:

  model    lint/{fact,value,keys,source_range,source_text,framework,mesh,parsed_file,word,setting_list,
           size_expression,whitespace,work_budget,cluster_share}.*
  parsers  parsers/*            may use: model, parsers
  rules    rules/*              may use: model, rule API (the headers of the job, its derived views
                                and the tables)
  core     the rest of lint/    may use: everything

Run by the build before anything compiles (a failure stops the build):
    check_layers.py SOURCE_ROOT STAMP_FILE
"""
import pathlib
import re
import sys

MODEL = {
    "fact", "value", "keys", "source_range", "source_text", "framework", "mesh", "parsed_file", "word",
    "setting_list", "size_expression", "whitespace", "work_budget", "cluster_share",
}
# What rules see of the core: the resolved job, what is derived from it, and the built-in tables.
RULE_API = {
    "rule", "job", "describe", "diagnostic", "fix", "cluster_profile", "memory_model", "pipeline_layout", "hybrid_pattern",
    "settings_catalogue", "model_table", "rank_layout", "core_version",
}
ALLOWED = {
    "model": {"model"},
    "parsers": {"model", "parsers"},
    "rules": {"model", "rule_api", "rules"},
    "rule_api": {"model", "rule_api"},
    "core": {"model", "parsers", "rule_api", "core", "rules"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def part_of(rel: pathlib.PurePosixPath) -> str:
    top, stem = rel.parts[0], rel.stem
    if top == "parsers":
        return "parsers"
    if top == "rules":
        return "rules"
    if top == "lint" and len(rel.parts) == 2:
        if stem in MODEL:
            return "model"
        if stem in RULE_API and rel.suffix == ".h":  # their implementations are the core's
            return "rule_api"
    return "core"


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    stamp = pathlib.Path(sys.argv[2])
    files = [p for d in ("lint", "parsers", "rules") for p in (root / d).rglob("*") if p.suffix in (".h", ".cpp")]
    includes = {}
    for p in files:
        rel = pathlib.PurePosixPath(p.relative_to(root).as_posix())
        found = []
        for inc in INCLUDE.findall(p.read_text(encoding="utf-8", errors="replace")):
            target = pathlib.PurePosixPath(inc)
            if target.parts and target.parts[0] in ("lint", "parsers", "rules") and (root / inc).exists():
                found.append(target)
        includes[rel] = found
    errors = []
    for rel in includes:
        part = part_of(rel)
        seen, todo = set(), [(rel, [rel])]
        while todo:
            cur, chain = todo.pop()
            for inc in includes.get(cur, []):
                if inc in seen:
                    continue
                seen.add(inc)
                if part_of(inc) not in ALLOWED[part]:
                    errors.append(f"{rel} ({part}) reaches {inc} ({part_of(inc)}): " + " -> ".join(map(str, chain + [inc])))
                todo.append((inc, chain + [inc]))
    if errors:
        for e in sorted(set(errors)):
            print("layering: " + e, file=sys.stderr)
        print(f"layering: {len(errors)} include(s) across the line between parts (docs/contributing.md, \"Layout\")", file=sys.stderr)
        return 1
    stamp.write_text("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

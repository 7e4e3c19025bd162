#!/usr/bin/env python3
"""Refuses an include across the line between parlint's layers (DESIGN.md §2).

A file's layer is its folder; nothing else says where a file belongs. Data flows one way, and each layer
may include only itself and the layers below it in LAYERS (the table docs/contributing.md prints):

  model       lint/model/          facts, values, keys, locations, source text, the file reader
  parsers     parsers/<syntax>/    shell/, python/, yaml/, args/, tree_sitter/: text -> facts; adapter/:
                                   the interfaces through which they hand launches and documents on
  frameworks  parsers/frameworks/  one adapter per framework: launches and documents -> role jobs
  knowledge   lint/knowledge/      tables, mesh math, rank and pipeline layouts, catalogues
  resolve     lint/resolve/        jobs: precedence, cross-file, framework defaults, derived views
  rules       rules/, rules/api/   the rule interface and one file per rule
  engine      lint/engine/         pipeline, engine, discovery, configuration, suppressions, fix/
  faces       lint/cli/, lint/lsp/, lint/reporters/

Every project file a source reaches through its includes, directly or through headers, must belong to a
layer its own layer may use. A file in lint/, parsers/ or rules/ outside every layer folder is refused
too, so that a new file cannot fall between the layers.

KNOWN_BREAKS lists the direct includes that still run the wrong way while a move is under way, each with
the reason; the check fails when one of them is no longer needed, so the list can only shrink.

Run by the build before anything compiles (a failure stops the build):
    check_layers.py SOURCE_ROOT STAMP_FILE
    check_layers.py --table          prints the table of layers as Markdown (docs/contributing.md)
"""
import pathlib
import re
import sys

# (layer, folders, what it holds, the layers it may include besides itself). The order is the data flow.
LAYERS = [
    ("model", ["lint/model"], "facts, values, keys and aliases, locations, source text, the file reader",
     []),
    ("parsers", ["parsers/shell", "parsers/python", "parsers/yaml", "parsers/args", "parsers/tree_sitter",
                 "parsers/adapter"],
     "one parser per syntax: source text -> facts; adapter/: the interfaces the parsers hand launches and "
     "documents through to the framework adapters", ["model"]),
    ("frameworks", ["parsers/frameworks"],
     "one adapter per framework: a launch or a document -> role jobs of typed facts", ["model", "parsers"]),
    ("knowledge", ["lint/knowledge"],
     "model table, cluster profiles, recipes, mesh math, rank and pipeline layouts, settings catalogue",
     ["model"]),
    ("resolve", ["lint/resolve"],
     "jobs: precedence, cross-file resolution, framework defaults, derived views (memory)",
     ["model", "parsers", "frameworks", "knowledge"]),
    ("rules", ["rules"], "the rule interface (rules/api/) and one file per rule",
     ["model", "knowledge", "resolve"]),
    ("engine", ["lint/engine"],
     "the pipeline, engine, discovery, configuration, suppressions, layout search; fix/ below it",
     ["model", "parsers", "frameworks", "knowledge", "resolve", "rules"]),
    ("faces", ["lint/cli", "lint/lsp", "lint/reporters"],
     "the command line, the language server, the reporters",
     ["model", "parsers", "frameworks", "knowledge", "resolve", "rules", "engine"]),
]
ALLOWED = {name: set(may) | {name} for name, _, _, may in LAYERS}

# Direct includes that still cross a line while a move is under way (each with its reason).
KNOWN_BREAKS = {
}

SOURCE_TOPS = ("lint", "parsers", "rules")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel: pathlib.PurePosixPath):
    """The layer of a file, from the longest layer folder that holds it; None outside every one."""
    text = rel.as_posix()
    best, best_len = None, -1
    for name, folders, _, _ in LAYERS:
        for folder in folders:
            if text.startswith(folder + "/") and len(folder) > best_len:
                best, best_len = name, len(folder)
    return best


def table_markdown() -> str:
    rows = ["| layer | folders | what is in it | may include |", "|---|---|---|---|"]
    for name, folders, what, may in LAYERS:
        rows.append(f"| {name} | {', '.join('`' + f + '/`' for f in folders)} | {what} | "
                    f"{', '.join(may + [name])} |")
    return "\n".join(rows) + "\n"


def check(root: pathlib.Path):
    files = [p for d in SOURCE_TOPS if (root / d).is_dir() for p in (root / d).rglob("*")
             if p.suffix in (".h", ".cpp", ".inc")]
    includes, errors = {}, []
    for p in files:
        rel = pathlib.PurePosixPath(p.relative_to(root).as_posix())
        if layer_of(rel) is None:
            errors.append(f"{rel} is outside every layer folder (cmake/check_layers.py, LAYERS)")
            continue
        found = []
        for inc in INCLUDE.findall(p.read_text(encoding="utf-8", errors="replace")):
            target = pathlib.PurePosixPath(inc)
            if target.parts and target.parts[0] in SOURCE_TOPS and (root / inc).exists():
                found.append(target)
        includes[rel] = found
    used = set()
    for rel in includes:
        layer = layer_of(rel)
        seen, todo = set(), [(rel, [rel])]
        while todo:
            cur, chain = todo.pop()
            for inc in includes.get(cur, []):
                if inc in seen:
                    continue
                seen.add(inc)
                target_layer = layer_of(inc)
                edge = (cur.as_posix(), inc.as_posix())
                if edge in KNOWN_BREAKS:
                    used.add(edge)
                elif target_layer not in ALLOWED[layer]:
                    errors.append(f"{rel} ({layer}) reaches {inc} ({target_layer}): " +
                                  " -> ".join(map(str, chain + [inc])))
                    continue
                todo.append((inc, chain + [inc]))
    for edge in sorted(set(KNOWN_BREAKS) - used):
        errors.append(f"KNOWN_BREAKS lists {edge[0]} -> {edge[1]}, which no longer exists: remove it")
    return errors


def main() -> int:
    if sys.argv[1:] == ["--table"]:
        sys.stdout.write(table_markdown())
        return 0
    root = pathlib.Path(sys.argv[1]).resolve()
    stamp = pathlib.Path(sys.argv[2])
    errors = check(root)
    if errors:
        for e in sorted(set(errors)):
            print("layering: " + e, file=sys.stderr)
        print(f"layering: {len(set(errors))} include(s) across the line between layers "
              "(docs/contributing.md, \"Layers\")", file=sys.stderr)
        return 1
    stamp.write_text("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

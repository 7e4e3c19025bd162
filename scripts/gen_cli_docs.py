#!/usr/bin/env python3
"""The man page and the bash and zsh completions, generated from a parlint binary so that they cannot
drift from its command line: the subcommands, every option with its value and help text (`parlint
--help`, `parlint SUBCOMMAND --help`), the `--cluster` profiles (the binary's own list of built-in
profiles) and the rule codes and names (`parlint rules --format json`).

    scripts/gen_cli_docs.py --parlint build/parlint --out-dir build/cli-docs

writes parlint.1, parlint.1.gz (gzip -9n, for Debian), parlint.bash and _parlint (zsh). Only the prose
that --help does not hold (exit codes, configuration, environment) is written here. The completions
complete what the CLI takes and nothing else; tests/test_cli_docs.py checks both against the binary.
"""
import argparse
import gzip
import io
import json
import os
import re
import subprocess
import sys
import time

# What the value of an option is, for the completions, when --help does not say it (an option with a
# {choice,...} list or a numeric type says it by itself). Any other option that takes text completes
# file names, as bash does by default.
VALUE_KINDS = {
    "--cluster": "cluster",
    "--select": "rules",
    "--ignore": "rules",
    "--model": "none",          # a built-in model, a Megatron-Bridge recipe or a Hugging Face id
    "--params": "none",
    "--active-params": "none",
    "--max-file-size": "none",
    "--exclude": "none",        # a glob, not a file
    "--stdin-filename": "none",  # a name to report, not a file to read
    "--output": "file",
    "--config": "file",
    "--svg": "file",
}
# Positional arguments per subcommand: files for check and plan, a rule for rule.
POSITIONAL_KINDS = {"check": "file", "plan": "file", "rule": "rule"}
HOMEPAGE = "https://github.com/parlint/parlint"


def run(parlint, *args, ok=(0,)):
    p = subprocess.run([parlint, *args], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, NO_COLOR="1", GITHUB_ACTIONS=""))
    if p.returncode not in ok:
        sys.exit(f"gen_cli_docs: `parlint {' '.join(args)}` exited {p.returncode}: {p.stderr}")
    return p


def parse_help(text):
    """CLI11's help: a description, a Usage line, then sections (Positionals, Options, Subcommands) of
    entries `  NAMES [TYPE]   description`, the description on the next line when the names are long."""
    lines = text.splitlines()
    out = {"description": "", "usage": "", "positionals": [], "options": [], "subcommands": []}
    section = None
    entry = None
    for line in lines:
        if line.startswith("Usage: "):
            out["usage"] = line[len("Usage: "):].strip()
            continue
        m = re.match(r"^(Positionals|Options|Subcommands):\s*$", line)
        if m:
            section = m.group(1).lower()
            entry = None
            continue
        if section is None:
            if line.strip() and not out["usage"]:
                out["description"] += (" " if out["description"] else "") + line.strip()
            continue
        if not line.strip():
            entry = None
            continue
        m = re.match(r"^  (\S.*?)(?: {2,}(\S.*))?$", line)
        if m and not line.startswith("    "):
            head, desc = m.group(1), m.group(2) or ""
            entry = {"head": head, "help": desc}
            out[section].append(entry)
        elif entry is not None:
            entry["help"] = (entry["help"] + " " + line.strip()).strip()
        else:
            raise ValueError(f"unexpected help line: {line!r}")
    for key in ("positionals", "options", "subcommands"):
        out[key] = [parse_entry(e, key) for e in out[key]]
    return out


def parse_entry(entry, section):
    head = entry["head"]
    name, _, rest = head.partition(" ")
    rest = rest.strip()
    item = {"help": entry["help"]}
    if section == "subcommands":
        item["name"] = head.strip()
        return item
    if section == "positionals":
        item["name"] = name
        item["repeatable"] = rest.endswith("...")
        return item
    names = name.split(",")
    if not all(n.startswith("-") for n in names):
        raise ValueError(f"not an option: {head!r}")
    item["names"] = names
    item["long"] = next((n for n in names if n.startswith("--")), names[0])
    item["takes_value"] = bool(rest)
    item["repeatable"] = rest.endswith("...")
    choices = re.search(r":\{([^}]*)\}", rest)
    item["choices"] = choices.group(1).split(",") if choices else []
    item["numeric"] = bool(re.match(r"(INT|UINT|FLOAT|NUMBER)\b", rest))
    item["type"] = rest
    if not item["takes_value"]:
        item["kind"] = "flag"
    elif item["choices"]:
        item["kind"] = "choice"
    elif item["numeric"]:
        item["kind"] = "none"
    else:
        item["kind"] = VALUE_KINDS.get(item["long"], "file")
    return item


def read_cli(parlint):
    version_text = run(parlint, "--version").stdout
    version = re.match(r"parlint (\d+\.\d+\.\d+\S*)\n", version_text)
    if not version:
        sys.exit(f"gen_cli_docs: cannot read the version from {version_text!r}")
    top = parse_help(run(parlint, "--help").stdout)
    subs = []
    for s in top["subcommands"]:
        h = parse_help(run(parlint, s["name"], "--help").stdout)
        h["name"] = s["name"]
        h["summary"] = s["help"]
        subs.append(h)
    # The built-in profiles: the binary names them when it refuses an unknown one.
    clusters = [c["name"] for c in json.loads(run(parlint, "clusters", "--format", "json").stdout)]
    if not clusters:
        sys.exit("gen_cli_docs: `parlint clusters --format json` listed no profile")
    rules = json.loads(run(parlint, "rules", "--format", "json").stdout)
    return {"version": version.group(1), "top": top, "subcommands": subs,
            "clusters": clusters, "rules": [{k: r[k] for k in ("code", "name", "severity", "summary")}
                                            for r in rules]}


# --- man page -----------------------------------------------------------------------------------

MAN_VALUE_NAMES = {"file": "FILE", "cluster": "NAME", "rules": "RULES"}

def roff(text):
    """Text for a roff line: backslashes escaped, dashes as minus signs, a leading dot or quote guarded."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def man_option(o):
    names = ", ".join(f"\\fB{roff(n)}\\fR" for n in o["names"])
    if o["takes_value"]:
        if o["choices"]:
            value = "|".join(roff(c) for c in o["choices"])
        else:
            value = MAN_VALUE_NAMES.get(o["kind"]) or roff(o["type"].split(":")[0].replace(" ...", ""))
        names += f" \\fI{value}\\fR"
    lines = [".TP", names, roff(o["help"][:1].upper() + o["help"][1:]) + ("." if not o["help"].endswith(".") else "")]
    if o["repeatable"] and "repeatable" not in o["help"]:
        lines.append("May be given more than once.")
    return lines


def man_page(cli):
    v = cli["version"]
    date = ""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        date = time.strftime("%Y-%m-%d", time.gmtime(int(os.environ["SOURCE_DATE_EPOCH"])))
    out = [
        f'.\\" Generated by scripts/gen_cli_docs.py from parlint {v} (--help, rules); do not edit.',
        f'.TH PARLINT 1 "{date}" "parlint {v}" "User Commands"',
        ".SH NAME",
        "parlint \\- static linter for distributed\\-training launch configurations",
        ".SH SYNOPSIS",
    ]
    for s in cli["subcommands"]:
        out += [".B parlint", roff(s["usage"].split(" ", 1)[1]), ".br"]
    out += [".B parlint", "\\fB\\-\\-version\\fR", ".SH DESCRIPTION",
            "parlint checks the YAML configs, Python recipes, Hydra overrides and SLURM or shell launch scripts "
            "that set tensor, pipeline, context, expert and data parallelism for Megatron\\-LM, Megatron\\-Bridge "
            "and NeMo, and reports the mistakes that would otherwise surface only after a job has waited in the "
            "queue and started on hundreds of GPUs. It never executes, imports or sources what it reads, and "
            "opens no network connection.",
            ".SH GLOBAL OPTIONS"]
    for o in cli["top"]["options"]:
        out += man_option(o)
    out += [".SH COMMANDS"]
    for s in cli["subcommands"]:
        out += [".SS " + roff(s["usage"]), roff(s["description"] or s["summary"])]
        for p in s["positionals"]:
            out += [".TP", f"\\fI{roff(p['name'])}\\fR", roff(p["help"])]
        for o in s["options"]:
            out += man_option(o)
    out += [".SH RULES",
            "Each rule has a code, a name and a default severity; \\fBparlint rule\\fR \\fICODE\\fR prints its "
            "documentation. \\fB\\-\\-select\\fR and \\fB\\-\\-ignore\\fR take codes, names or code prefixes "
            "(\\fBPL1\\fR)."]
    for r in cli["rules"]:
        out += [".TP", f"\\fB{r['code']}\\fR {roff(r['name'])} ({r['severity']})", roff(r["summary"])]
    clusters = ", ".join(f"\\fB{roff(c)}\\fR" for c in cli["clusters"])
    out += [".SH CLUSTER PROFILES",
            f"Built in, for \\fB\\-\\-cluster\\fR and the \\fBcluster\\fR key of the configuration: {clusters}.",
            ".SH EXIT STATUS",
            ".TP", "0", "No finding at or above \\fB\\-\\-fail\\-on\\fR (default \\fBwarning\\fR).",
            ".TP", "1", "Findings at or above \\fB\\-\\-fail\\-on\\fR; with \\fB\\-\\-diff\\fR, a fix to show.",
            ".TP", "2", "Usage or configuration error, or an input that could not be read (after linting "
            "everything else).",
            ".TP", "3", "Internal error.",
            ".SH FILES",
            ".TP", ".I .parlint.yaml",
            "The closest one above each linted file (or the one named by \\fB\\-\\-config\\fR): rules to select "
            "and ignore, severities, \\fBfail\\-on\\fR, the cluster profile, the framework, excludes and "
            "per\\-file ignores. Command\\-line options win.",
            ".SH ENVIRONMENT",
            ".TP", ".B NO_COLOR", "When set, the text report is not coloured (unless \\fB\\-\\-color always\\fR).",
            ".TP", ".B GITHUB_ACTIONS",
            "When \\fBtrue\\fR and no \\fB\\-\\-format\\fR is given, \\fBcheck\\fR prints GitHub workflow "
            "annotations.",
            ".TP", ".B GITHUB_STEP_SUMMARY", "In GitHub Actions, a table of every finding is appended to this file.",
            ".SH EXAMPLES",
            ".nf",
            "parlint check",
            "parlint check \\-\\-cluster gb200\\-nvl72 conf/ slurm/train.sbatch",
            "parlint check \\-\\-format sarif \\-o parlint.sarif .",
            "parlint check \\-\\-fix \\-\\-show\\-fixes recipes/",
            "parlint plan \\-\\-tp 2 \\-\\-pp 16 \\-\\-ep 64 \\-\\-etp 1 \\-\\-gpus 1024 \\-\\-model deepseek\\-v3",
            "parlint rule PL101",
            ".fi",
            ".SH SEE ALSO",
            f"The manual: {roff(HOMEPAGE)}/tree/main/docs",
            ""]
    return "\n".join(out)


# --- bash ---------------------------------------------------------------------------------------

def sh_words(words):
    return " ".join(words)


def bash_completion(cli):
    subs = [s["name"] for s in cli["subcommands"]]
    codes = [r["code"] for r in cli["rules"]]
    names = [r["name"] for r in cli["rules"]]
    top_opts = [n for o in cli["top"]["options"] for n in o["names"]]
    lines = [
        f"# bash completion for parlint {cli['version']}",
        "# Generated by scripts/gen_cli_docs.py from the parlint binary (--help, rules); do not edit.",
        "",
        f"_parlint_rule_codes='{sh_words(codes)}'",
        f"_parlint_rule_names='{sh_words(names)}'",
        f"_parlint_clusters='{sh_words(cli['clusters'])}'",
        "",
        "# Rules for --select/--ignore and `parlint rule`: codes, or names when the word starts with a",
        "# lowercase letter; after a comma, only the part after the last comma is completed.",
        "_parlint_complete_rules() {",
        "    local cur=$1 list=$2 head=",
        "    if [[ $list == list && $cur == *,* ]]; then",
        "        head=${cur%,*},",
        "        cur=${cur##*,}",
        "    fi",
        "    local words=$_parlint_rule_codes",
        "    [[ $cur == [a-z]* ]] && words=$_parlint_rule_names",
        "    local w",
        "    COMPREPLY=()",
        "    for w in $(compgen -W \"$words\" -- \"$cur\"); do",
        "        COMPREPLY+=(\"$head$w\")",
        "    done",
        "}",
        "",
        "_parlint_complete_files() {",
        "    compopt -o filenames 2>/dev/null",
        "    local IFS=$'\\n'",
        "    COMPREPLY=($(compgen -f -- \"$1\"))",
        "}",
        "",
        "# The value of OPTION in subcommand SUB: prints its kind (choice lists inline).",
        "_parlint_value_kind() {",
        "    case \"$1 $2\" in",
    ]
    for s in cli["subcommands"]:
        for o in s["options"]:
            if not o["takes_value"]:
                continue
            pattern = "|".join(f"{s['name']}\\ {n}" for n in o["names"])
            kind = "choice " + " ".join(o["choices"]) if o["kind"] == "choice" else o["kind"]
            lines.append(f"        {pattern}) echo '{kind}' ;;")
    lines += [
        "        *) return 1 ;;",
        "    esac",
        "}",
        "",
        "_parlint() {",
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev= opt=",
        "    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}",
        "    COMPREPLY=()",
        "    # `--format=js`: bash splits at '=' (COMP_WORDBREAKS), or keeps one word when '=' is not a break.",
        "    if [[ $cur == = ]]; then",
        "        opt=$prev",
        "        cur=",
        "    elif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then",
        "        opt=${COMP_WORDS[COMP_CWORD - 2]}",
        "    elif [[ $cur == --*=* ]]; then",
        "        opt=${cur%%=*}",
        "        cur=${cur#*=}",
        "    else",
        "        opt=$prev",
        "    fi",
        "    local sub= i",
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        "        case ${COMP_WORDS[i]} in",
        f"            {'|'.join(subs)}) sub=${{COMP_WORDS[i]}}; break ;;",
        "        esac",
        "    done",
        "    if [[ -z $sub ]]; then",
        "        if [[ $cur == -* ]]; then",
        f"            COMPREPLY=($(compgen -W '{sh_words(top_opts)}' -- \"$cur\"))",
        "        else",
        f"            COMPREPLY=($(compgen -W '{sh_words(subs)}' -- \"$cur\"))",
        "        fi",
        "        return 0",
        "    fi",
        "    local kind",
        "    if kind=$(_parlint_value_kind \"$sub\" \"$opt\"); then",
        "        case $kind in",
        "            choice\\ *) COMPREPLY=($(compgen -W \"${kind#choice }\" -- \"$cur\")) ;;",
        "            cluster) COMPREPLY=($(compgen -W \"$_parlint_clusters\" -- \"$cur\")) ;;",
        "            rules) _parlint_complete_rules \"$cur\" list ;;",
        "            file) _parlint_complete_files \"$cur\" ;;",
        "        esac",
        "        return 0",
        "    fi",
        "    if [[ $cur == -* ]]; then",
        "        case $sub in",
    ]
    for s in cli["subcommands"]:
        opts = [n for o in s["options"] for n in o["names"]]
        lines.append(f"            {s['name']}) COMPREPLY=($(compgen -W '{sh_words(opts)}' -- \"$cur\")) ;;")
    lines += [
        "        esac",
        "        return 0",
        "    fi",
        "    case $sub in",
    ]
    for s in cli["subcommands"]:
        kind = POSITIONAL_KINDS.get(s["name"]) if s["positionals"] else None
        if kind == "file":
            lines.append(f"        {s['name']}) _parlint_complete_files \"$cur\" ;;")
        elif kind == "rule":
            lines.append(f"        {s['name']}) _parlint_complete_rules \"$cur\" one ;;")
    lines += [
        "    esac",
        "    return 0",
        "}",
        "complete -F _parlint parlint",
        "",
    ]
    return "\n".join(lines)


# --- zsh ----------------------------------------------------------------------------------------

def zsh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def zsh_desc(text):
    """Text inside an _arguments [description] or a _describe entry."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh_option(o):
    desc = zsh_desc(o["help"])
    names = o["names"]
    exclusive = f"({' '.join(names)})" if len(names) > 1 and not o["repeatable"] else ""
    star = "*" if o["repeatable"] else ""
    if o["takes_value"]:
        forms = [n + ("=" if n.startswith("--") else "+") for n in names]
        action = {
            "choice": "(" + " ".join(o["choices"]) + ")",
            "cluster": "_parlint_clusters",
            "rules": "_parlint_rule_list",
            "file": "_files",
            "none": " ",
        }[o["kind"]]
        what = o["long"].lstrip("-")
        tail = f"[{desc}]:{what}:{action}"
    else:
        forms = names
        tail = f"[{desc}]"
    if o["names"] == ["-h", "--help"] or o["long"] == "--version":
        exclusive = "(- *)"
        star = ""
    if len(forms) == 1:
        return zsh_quote(f"{exclusive}{star}{forms[0]}{tail}")
    return zsh_quote(f"{exclusive}{star}") + "{" + ",".join(forms) + "}" + zsh_quote(tail)


def zsh_completion(cli):
    rules = [f"{r['code']}:{zsh_desc(r['name'] + ' (' + r['severity'] + ')')}" for r in cli["rules"]]
    names = [f"{r['name']}:{zsh_desc(r['code'])}" for r in cli["rules"]]
    lines = [
        "#compdef parlint",
        f"# zsh completion for parlint {cli['version']}",
        "# Generated by scripts/gen_cli_docs.py from the parlint binary (--help, rules); do not edit.",
        "",
        "_parlint_clusters() {",
        f"  local -a profiles=({' '.join(cli['clusters'])})",
        "  _describe -t clusters 'cluster profile' profiles",
        "}",
        "",
        "_parlint_rules() {",
        "  local -a codes=(",
    ]
    lines += [f"    {zsh_quote(r)}" for r in rules]
    lines += ["  )", "  local -a names=("]
    lines += [f"    {zsh_quote(n)}" for n in names]
    lines += [
        "  )",
        "  if [[ $PREFIX == [a-z]* ]]; then",
        "    _describe -t rule-names 'rule name' names",
        "  else",
        "    _describe -t rule-codes 'rule code' codes",
        "  fi",
        "}",
        "",
        "# A comma-separated list of rules (--select PL1,PL201).",
        "_parlint_rule_list() {",
        "  compset -P '*,'",
        "  _parlint_rules",
        "}",
        "",
        "_parlint_subcommands() {",
        "  local -a subcommands=(",
    ]
    lines += [f"    {zsh_quote(s['name'] + ':' + zsh_desc(s['summary']))}" for s in cli["subcommands"]]
    lines += [
        "  )",
        "  _describe -t commands 'parlint command' subcommands",
        "}",
        "",
        "_parlint() {",
        "  local curcontext=$curcontext state line ret=1",
        "  typeset -A opt_args",
        "  _arguments -C \\",
    ]
    for o in cli["top"]["options"]:
        lines.append(f"    {zsh_option(o)} \\")
    lines += [
        "    '1: :_parlint_subcommands' \\",
        "    '*:: :->args' && ret=0",
        "  case $state in",
        "    args)",
        "      curcontext=${curcontext%:*:*}:parlint-$words[1]:",
        "      case $words[1] in",
    ]
    for s in cli["subcommands"]:
        lines.append(f"        {s['name']})")
        lines.append("          _arguments \\")
        for o in s["options"]:
            lines.append(f"            {zsh_option(o)} \\")
        kind = POSITIONAL_KINDS.get(s["name"]) if s["positionals"] else None
        if kind == "file":
            lines.append("            '*:file:_files' \\")
        elif kind == "rule":
            lines.append("            '1:rule:_parlint_rules' \\")
        lines.append("            && ret=0")
        lines.append("          ;;")
    lines += [
        "      esac",
        "      ;;",
        "  esac",
        "  return ret",
        "}",
        "",
        '_parlint "$@"',
        "",
    ]
    return "\n".join(lines)


def write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    tmp = path + ".tmp"
    with open(tmp, mode) as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parlint", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--json", action="store_true", help="print what was read from the binary and stop")
    args = ap.parse_args()
    cli = read_cli(os.path.abspath(args.parlint))
    if args.json:
        print(json.dumps(cli, indent=1))
        return
    os.makedirs(args.out_dir, exist_ok=True)
    page = man_page(cli)
    write(os.path.join(args.out_dir, "parlint.1"), page)
    # gzip -9n: no name and no time in the header, so the same page gives the same bytes.
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(page.encode())
    write(os.path.join(args.out_dir, "parlint.1.gz"), buf.getvalue())
    write(os.path.join(args.out_dir, "parlint.bash"), bash_completion(cli))
    write(os.path.join(args.out_dir, "_parlint"), zsh_completion(cli))


if __name__ == "__main__":
    main()

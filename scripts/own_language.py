"""Whether a text parses in its own language: bash -n for shell, Python's ast, a YAML loader.

Shared by the fixture runner (fixed snapshots must parse) and scripts/corpus_fix.py (fixed corpus files).
"""
import ast
import subprocess


def parse_error(path, text):
    """Why `text` (the contents of `path`) does not parse in the language its name says, or None."""
    if path.endswith(".py"):
        try:
            ast.parse(text)
        except SyntaxError as e:
            return f"python: {e}"
        return None
    if path.endswith((".yaml", ".yml")):
        try:
            import yaml
        except ImportError:
            return None
        try:
            list(yaml.safe_load_all(text))
        except yaml.YAMLError as e:
            return f"yaml: {e}"
        return None
    if path.endswith((".sh", ".sbatch", ".slurm", ".slrm", ".sub", ".bash")) or text.startswith("#!"):
        proc = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, timeout=30)
        return None if proc.returncode == 0 else f"bash -n: {proc.stderr.strip()}"
    return None

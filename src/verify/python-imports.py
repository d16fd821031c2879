# The module names a set of Python files import by name (ADR 0076, part 2), read by
# src/verify/python-outside-loads.ts. Input on stdin: {"root": checkout, "files": [absolute paths]}.
# Output: one JSON line, {path: [dotted names]}. Parsing only (ast): nothing of the files runs.
#
# `import a.b` imports `a` and `a.b`; `from a.b import c` imports `a`, `a.b` and maybe `a.b.c` (a
# submodule or a name: both are listed, a name matches no file). A relative import is resolved
# from the file's folder, relative to the checkout's root. `importlib.import_module("x.y")` and
# `__import__("x.y")` with a literal name count too; a computed name cannot be read and does not.
import ast
import json
import os
import sys
import warnings


def prefixes(dotted):
    parts = [p for p in dotted.split(".") if p]
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def package_of(root, path):
    rel = os.path.relpath(os.path.dirname(path), root)
    return [] if rel == "." else rel.split(os.sep)


def imported_by(root, path, tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.update(prefixes(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                folder = package_of(root, path)
                up = node.level - 1
                if up > len(folder):
                    continue
                base = ".".join(folder[: len(folder) - up] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names.update(prefixes(base))
            for alias in node.names:
                if alias.name != "*":
                    names.add(f"{base}.{alias.name}" if base else alias.name)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            first = node.args[0]
            if called in ("import_module", "__import__") and isinstance(first, ast.Constant) and isinstance(first.value, str):
                if not first.value.startswith("."):
                    names.update(prefixes(first.value))
    return names


def main():
    # ast.parse warns about some string escapes on stderr, which shares the answer's stream.
    warnings.simplefilter("ignore")
    request = json.load(sys.stdin)
    root = request["root"]
    answer = {}
    for path in request["files"]:
        answer[path] = []
        try:
            with open(path, "rb") as f:
                tree = ast.parse(f.read(), filename=path)
        except (OSError, SyntaxError, ValueError):
            # Unreadable or not this interpreter's syntax: it imports nothing that can be read.
            continue
        answer[path] = sorted(imported_by(root, path, tree))
    # One line, last: the answer.
    sys.stdout.write("\n" + json.dumps(answer) + "\n")


main()

"""IPython's own syntax in a notebook's cell, turned into Python the way IPython turns it
(its input transformers), or left out, with what to say of it (:mod:`.notebooks` reads the
notebook; this module reads a cell's magics, shell commands and help). Nothing here runs
what it reads: a shell command is only ever named.
"""

from __future__ import annotations

import ast
import getopt
import re
import shlex
from collections.abc import Callable
from typing import Any

from tttlab.usercode.boxside.schema import cut

__all__ = [
    "cell_magic_why",
    "handled",
    "lines_of",
    "magic",
    "nested_magic",
    "parsed",
    "shown",
    "syntax_error",
    "transformed",
]

#: A cell longer than this is turned into Python a line at a time (IPython's transformers
#: read the whole cell again for each magic they turn: quadratic in a long cell).
_WHOLE_CELL_LINES = 300

#: Cell magics whose body is the cell's code, run in the notebook's names.
BODY_MAGICS = {"time": "timed", "capture": "captured", "prun": "profiled"}
#: Cell magics that run a shell or another language: never run.
_SHELL_MAGICS = {"bash", "sh", "script", "system", "perl", "ruby", "python2", "pypy", "sx"}
#: Line magics that read or change nothing of the code's names.
_QUIET = {"matplotlib", "load_ext", "reload_ext", "autoreload", "aimport", "config", "ttt_check"}
#: ``%run``'s options, as IPython reads them (those with a value end in ``:``).
_RUN_OPTIONS = "nidtN:b:pD:l:rs:T:em:G"
#: What a line of IPython's own syntax looks like (a magic, a shell command, help).
_IPYTHON_LINE = re.compile(r"^\s*(?:[%!?]|[\w.\[\], ]+=\s*[%!]|.*\?\s*$)")

#: How Python's tokenizer ends a line (``str.splitlines`` ends them at more characters).
_NEWLINE = re.compile(r"\r\n|\r|\n")


def lines_of(text: str) -> list[str]:
    """``text``'s lines as Python's tokenizer ends them."""
    lines = _NEWLINE.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def cell_magic_why(kind: str) -> str:
    if kind in _SHELL_MAGICS:
        return "a shell command: never run; the cell left out"
    if kind == "timeit":
        return "IPython times it in a function of its own: its names are not kept; left out"
    if kind in ("writefile", "file"):
        return "writes a file when run: not run; the folder's own file is graded where it is"
    return "not Python: the cell left out"


def transformed(raw: list[str]) -> tuple[list[str], list[int], ast.Module | None]:
    """The cell as IPython's input transformers make it Python: its lines, the cell's
    line each comes from, and its syntax tree (None when it is not Python even so). A
    short cell is turned whole, as IPython turns it; a long one, and one whose lines the
    whole turn joins, a logical line at a time. A cell of Python whose only IPython lines
    are top-level magics that change no name (``%matplotlib inline``) is turned here, as
    IPython turns them, and IPython is not imported (0.3 s)."""
    quick = _quiet_magics(raw)
    if quick is not None:
        code = [quick.get(k, line) for k, line in enumerate(raw)]
        tree = parsed("\n".join(code))
        starts = {node.lineno for node in tree.body} if tree is not None else set()
        if tree is not None and all(k + 1 in starts for k in quick):  # none in a string
            return code, list(range(1, len(raw) + 1)), tree
    if len(raw) <= _WHOLE_CELL_LINES:
        text = transform("\n".join(raw))
        code = lines_of(text) if text is not None else []
        if text is not None and len(code) == len(raw):
            tree = parsed(text)
            if tree is not None:
                return code, list(range(1, len(raw) + 1)), tree
    code = list(raw)
    k = 0
    while k < len(raw):
        end = k
        while raw[end].rstrip().endswith("\\") and end + 1 < len(raw):
            end += 1  # a line continued: one logical line, as IPython reads it
        if _IPYTHON_LINE.match(raw[k]):
            text = transform("\n".join(raw[k : end + 1]))
            turned = lines_of(text) if text is not None else []
            if len(turned) == 1:
                code[k : end + 1] = [turned[0], *("" for _ in range(end - k))]
        k = end + 1
    return code, list(range(1, len(raw) + 1)), parsed("\n".join(code))


#: A top-level line magic, as IPython reads it: its name, then its arguments.
_LINE_MAGIC = re.compile(r"%(\w+)(?: (.*))?")


def _quiet_magics(raw: list[str]) -> dict[int, str] | None:
    """Each line of IPython's syntax in ``raw`` as IPython turns it, where every one is a
    top-level magic of :data:`_QUIET` (None where one is anything else)."""
    found = {}
    for k, line in enumerate(raw):
        if not _IPYTHON_LINE.match(line):
            continue
        whole = _LINE_MAGIC.fullmatch(line.rstrip())
        if whole is None or whole[1] not in _QUIET or (k and raw[k - 1].rstrip().endswith("\\")):
            return None
        found[k] = f"get_ipython().run_line_magic({whole[1]!r}, {whole[2] or ''!r})"
    return found


def transform(text: str) -> str | None:
    from IPython.core import inputtransformer2

    manager: Callable[[], Any] = inputtransformer2.TransformerManager  # untyped in IPython
    try:
        return str(manager().transform_cell(text))
    except Exception:
        return None


def parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def syntax_error(body: str) -> tuple[int, str]:
    """``(3, "invalid syntax")``: the line (0: none) and the error of a cell that is not
    Python."""
    try:
        compile(body, "<cell>", "exec")
    except SyntaxError as error:
        return error.lineno or 0, (error.msg or "invalid syntax")[:80]
    except (ValueError, MemoryError, RecursionError) as error:
        return 0, type(error).__name__
    return 0, "IPython syntax that tttlab does not read"


def is_get_ipython(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "get_ipython"
        and not node.args
    )


def magic(node: ast.stmt) -> tuple[str, str, str] | None:
    """``(method, name, argument)`` of a top-level ``get_ipython().method(...)`` statement
    (an expression or an assignment of one), else None."""
    value = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and is_get_ipython(value.func.value)
    ):
        return None
    texts = [a.value for a in value.args if isinstance(a, ast.Constant)]
    words = [t for t in texts if isinstance(t, str)]
    method = value.func.attr
    if method == "run_line_magic" and len(words) >= 2:
        return method, words[0], words[1]
    return method, "", words[0] if words else ""


def nested_magic(tree: ast.Module) -> int | None:
    """The first line of a ``get_ipython()`` call below the top level, or None."""
    for top in tree.body:
        if magic(top) is not None:
            continue
        for node in ast.walk(top):
            if is_get_ipython(node):
                return getattr(node, "lineno", top.lineno)
    return None


def shown(found: tuple[str, str, str]) -> str:
    method, name, argument = found
    if method in ("system", "getoutput"):
        return cut(f"!{argument}", 60)
    return cut(f"%{name} {argument}".strip(), 60)


def handled(
    found: tuple[str, str, str], node: ast.stmt, module_of_run: Callable[[str], str | None]
) -> tuple[str, str]:
    """The Python that stands for a magic (empty: none; ``_ttt_run(...)`` for a ``%run``,
    which the module must define) and the note that says so."""
    method, name, argument = found
    if method in ("system", "getoutput"):
        return "", "a shell command: never run"
    if name == "run" and isinstance(node, ast.Expr):
        return run(argument, module_of_run)
    if name == "time" and argument.strip():
        return timed(argument, node)
    if name == "pylab" and isinstance(node, ast.Expr):
        return (
            "from pylab import *; import numpy as np; import matplotlib.pyplot as plt",
            "pylab's names, np and plt brought in, as IPython does",
        )
    if name in ("pinfo", "pinfo2", "psearch"):
        return "", "help: left out"
    if name in _QUIET:
        return "", "left out (an IPython magic)"
    return "", "an IPython magic tttlab does not run: left out"


def timed(argument: str, node: ast.stmt) -> tuple[str, str]:
    """``%time STATEMENT`` as the statement, ``x = %time EXPRESSION`` as ``x = ...``."""
    if isinstance(node, ast.Assign):
        if parsed(f"({argument})") is None:
            return "", "left out: not a Python expression"
        targets = " = ".join(ast.unparse(t) for t in node.targets)
        return f"{targets} = {argument}", ""
    if parsed(argument) is None:
        return "", "left out: not a Python statement"
    return argument, ""  # the statement IPython times, run as it is


def run(argument: str, module_of_run: Callable[[str], str | None]) -> tuple[str, str]:
    """``%run [options] FILE``: every name of a file of the submission, by ``_ttt_run``."""
    try:
        options, words = getopt.getopt(shlex.split(argument), _RUN_OPTIONS)
    except (ValueError, getopt.GetoptError):
        return "", "left out: its file cannot be read from the line"
    module = dict(options).get("-m")
    if module is not None:
        target = module.replace(".", "/") + ".py"
    elif words:
        target = words[0]
    else:
        return "", "left out: it names no file"
    found = module_of_run(target)
    if found is None:
        return "", f"{target[:60]} is not a file of the submission: left out"
    return f"_ttt_run({found!r}, globals())", f"brings in every name of {target[:60]}, as %run does"

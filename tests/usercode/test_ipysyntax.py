"""IPython's syntax in a cell turned into Python as IPython turns it
(:mod:`tttlab.usercode.ipysyntax`): the same text as IPython's own input transformers, the
magics that change no name turned without IPython, and what each magic stands for."""

from __future__ import annotations

import ast

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from tttlab.usercode.ipysyntax import handled, lines_of, magic, run, transformed

CELLS = [
    "%matplotlib inline",
    "%load_ext  autoreload \n%autoreload 2\nimport math",
    "%config InlineBackend.figure_format = 'retina'\nx = 1",
    "%matplotlib\ndef f():\n    return 1",
    "x = 1\n%time y = x + 1",
    "files = !ls\n!pip install numpy",
    "math.sqrt?\nz = 2",
    "if True:\n    %matplotlib inline",
    "%timeit f()",
]


@pytest.mark.parametrize("cell", CELLS)
def test_a_cell_is_turned_as_ipythons_own_transformers_turn_it(cell: str) -> None:
    ours = "\n".join(transformed(lines_of(cell))[0])
    theirs = TransformerManager().transform_cell(cell)
    assert ours == theirs.rstrip("\n")


def test_a_magic_in_a_string_is_part_of_the_string() -> None:
    cell = ['s = """', "%matplotlib inline", '"""']
    code, _, tree = transformed(cell)
    assert code == cell
    assert tree is not None
    namespace: dict[str, str] = {}
    exec(compile(tree, "<cell>", "exec"), namespace)
    assert namespace["s"] == "\n%matplotlib inline\n"


def test_each_line_keeps_its_place_in_a_long_cell() -> None:
    raw = ["%matplotlib inline", *(f"x{k} = {k}" for k in range(400)), "%time y = 1"]
    code, places, tree = transformed(raw)
    assert tree is not None
    assert len(code) == len(raw)
    assert places == list(range(1, len(raw) + 1))
    assert code[-1] == "get_ipython().run_line_magic('time', 'y = 1')"


def _magic(line: str) -> tuple[str, str, str]:
    found = magic(ast.parse(TransformerManager().transform_cell(line)).body[0])
    assert found is not None
    return found


def test_what_each_magic_stands_for() -> None:
    node = ast.parse("x").body[0]
    assert handled(_magic("!ls"), node, lambda target: None) == ("", "a shell command: never run")
    assert handled(_magic("%matplotlib inline"), node, lambda t: None)[0] == ""
    assert handled(_magic("%time y = 2"), node, lambda t: None) == ("y = 2", "")
    assigned = ast.parse("t = 1").body[0]
    assert handled(_magic("t = %time f(2)"), assigned, lambda t: None) == ("t = f(2)", "")
    assert "pylab" in handled(_magic("%pylab inline"), node, lambda t: None)[0]


def test_run_reads_its_options_and_names_a_file_of_the_submission() -> None:
    modules = {"helpers.py": "helpers", "pkg/util.py": "pkg.util"}
    assert run("-i helpers.py", modules.get)[0] == "_ttt_run('helpers', globals())"
    assert run("-m pkg.util", modules.get)[0] == "_ttt_run('pkg.util', globals())"
    assert run("'unclosed", modules.get) == ("", "left out: its file cannot be read from the line")
    assert "is not a file of the submission" in run("other.py", modules.get)[1]

"""A notebook read as the module it is (:mod:`tttlab.usercode.notebooks`): code cells in order,
IPython's syntax handled as IPython handles it or left out with a note naming the cell and
the line, no shell command ever run, every line's place kept; notebooks as JupyterLab, VS
Code and Colab save them read alike, and one that is no notebook refused in one line."""

from __future__ import annotations

import ast
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from tttlab.usercode.notebooks import (
    NotebookError,
    Places,
    code_cells,
    convert,
    parse_notebook,
    read_notebook,
)


def _cell(source: str | list[str], kind: str = "code", **extra: Any) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "source": source, "metadata": {}}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    cell.update(extra)
    return cell


def notebook_text(cells: list[dict[str, Any]], **metadata: Any) -> str:
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5})


def _module(*sources: str, runs: dict[str, str] | None = None) -> Any:
    cells = [(k, s) for k, s in enumerate(sources, 1)]
    return convert(cells, "work.ipynb", lambda target: (runs or {}).get(target))


def test_plain_cells_make_one_module_in_order_with_each_line_placed() -> None:
    found = _module("import math\nX = 1", "def f():\n    return X + 1")
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert namespace["f"]() == 2
    lines = found.source.splitlines()
    assert lines.index("def f():") + 1 == 3
    assert found.places.of(3) == (2, 1)
    assert found.places.span(1, 2) == "cell 1, lines 1-2"
    assert found.places.span(2, 4) == "cells 1-2"
    assert found.notes == []


def test_magics_are_left_out_each_named_by_its_cell_and_line() -> None:
    found = _module(
        "%matplotlib inline\nimport math",
        "x = 1\n!pip install numpy\nfiles = !ls\nmath.sqrt?\n%timeit math.sqrt(2)",
    )
    ast.parse(found.source)
    assert "get_ipython" not in found.source
    notes = "\n".join(found.notes)
    assert "cell 1, line 1 (%matplotlib inline): left out" in notes
    assert "cell 2, line 2 (!pip install numpy): a shell command: never run" in notes
    assert "cell 2, line 3 (!ls): a shell command: never run" in notes
    assert "cell 2, line 4 (%pinfo math.sqrt): help: left out" in notes
    assert "cell 2, line 5 (%timeit" in notes
    # the lines kept keep their places
    assert found.places.of(found.source.splitlines().index("x = 1") + 1) == (2, 1)


def test_no_shell_command_is_ever_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    found = _module(f"!touch {marker}", f"%%bash\ntouch {marker}", f"%system touch {marker}")
    exec(found.source, {})
    assert not marker.exists()
    assert len(found.notes) == 3
    assert "cell 2 (%%bash): a shell command: never run" in found.notes[1]


def test_time_and_capture_cells_run_their_code_and_timeit_cells_do_not() -> None:
    found = _module(
        "%%time\ndef f():\n    return 1",
        "%time y = f() + 1",
        "%%timeit\ndef g():\n    return 2",
        "%%capture out\nz = 3",
    )
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert namespace["y"] == 2
    assert namespace["z"] == 3
    assert "g" not in namespace
    line = found.source.splitlines().index("def f():") + 1
    assert found.places.of(line) == (1, 2)  # the body's first line is the cell's second


def test_run_brings_in_every_name_of_a_file_of_the_submission_as_run_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = _module("%run helpers.py\n%run missing.py", runs={"helpers.py": "ttt_helpers_run"})
    assert "_ttt_run('ttt_helpers_run', globals())" in found.source
    assert found.runs
    assert any("missing.py is not a file of the submission: left out" in n for n in found.notes)
    # unlike `from m import *`, %run keeps the names that start with "_" too
    (tmp_path / "ttt_helpers_run.py").write_text("import math\n_SIZE = 3\nLENGTH = _SIZE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert (namespace["_SIZE"], namespace["LENGTH"], namespace["math"].pi) == (3, 3, math.pi)
    assert "__file__" not in namespace


def test_pylab_brings_in_numpy_as_ipython_does() -> None:
    found = _module("%pylab inline", "def f():\n    return np.zeros(2).sum()")
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert namespace["f"]() == 0.0


def test_a_cell_that_is_not_python_is_left_out_alone_with_its_error() -> None:
    found = _module("def f(:\n    pass", "X = 2")
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert namespace["X"] == 2
    assert len(found.notes) == 1
    assert found.notes[0].startswith("cell 1, line 1: not Python (")
    assert found.unparsed == ["cell 1, line 1 (invalid syntax)"]  # for a problem's line
    assert _module("return 1").unparsed == ["cell 1, line 1 ('return' outside function)"]


def test_a_magic_inside_a_definition_is_named() -> None:
    found = _module("def f():\n    !ls\n    return 1")
    assert any("cell 1, line 2: an IPython command below the top level" in n for n in found.notes)


def test_display_is_a_name_as_in_every_notebook() -> None:
    found = _module("def show(x):\n    display(x)\n    return x")
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert namespace["show"](3) == 3
    own = _module("from IPython.display import display\ndef show(x):\n    display(x)")
    assert "def display" not in own.source


def test_a_history_is_placed_by_its_input_numbers() -> None:
    found = convert([(5, "x = 1"), (9, "y = 2")], "history", lambda _: None, label="In")
    assert found.places.span(2) == "In [9], line 1"
    assert Places(((5, 1), (9, 1)), "In").span(1, 2) == "In 5-9"


def test_cells_are_numbered_from_the_top_markdown_included() -> None:
    text = notebook_text([_cell("# title", "markdown"), _cell(["x = 1\n", "y = 2"]), _cell("")])
    notebook = parse_notebook(text, "work.ipynb")
    assert code_cells(notebook) == [(2, "x = 1\ny = 2"), (3, "")]


#: Notebooks as the editors save them: outputs of every kind, widget state, each editor's
#: metadata, an old minor version without cell ids, sources as lists of lines.
SAVED = {
    "jupyterlab": notebook_text(
        [
            _cell(
                "print(1)\n1 + 1",
                outputs=[
                    {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                    {
                        "output_type": "execute_result",
                        "execution_count": 1,
                        "data": {"text/plain": ["2"]},
                        "metadata": {},
                    },
                ],
                execution_count=1,
                id="a1",
            ),
            _cell("def f():\n    return 7", id="a2"),
        ],
        kernelspec={"name": "python3", "display_name": "Python 3", "language": "python"},
        language_info={"name": "python", "version": "3.11.7"},
    ),
    "vscode": json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": 3,
                    "metadata": {},
                    "outputs": [
                        {
                            "data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]},
                            "metadata": {},
                            "output_type": "display_data",
                        }
                    ],
                    "source": ["def f():\n", "    return 7"],
                }
            ],
            "metadata": {
                "language_info": {"name": "python"},
                "vscode": {"interpreter": {"hash": "ab" * 32}},
            },
            "nbformat": 4,
            "nbformat_minor": 2,
        }
    ),
    "colab": notebook_text(
        [
            _cell(
                "def f():\n    return 7",
                outputs=[
                    {
                        "output_type": "display_data",
                        "data": {
                            "application/vnd.jupyter.widget-view+json": {
                                "model_id": "m1",
                                "version_major": 2,
                                "version_minor": 0,
                            },
                            "text/plain": ["IntSlider(value=0)"],
                        },
                        "metadata": {},
                    }
                ],
                id="c1",
                metadata={"id": "c1", "colab": {"base_uri": "https://localhost/"}},
            ),
            _cell("!pip install tqdm", id="c2"),
        ],
        colab={"provenance": [], "name": "work.ipynb"},
        kernelspec={"name": "python3", "display_name": "Python 3"},
        accelerator="GPU",
        widgets={
            "application/vnd.jupyter.widget-state+json": {
                "m1": {"model_name": "IntSliderModel", "state": {"value": 0}}
            }
        },
    ),
}


@pytest.mark.parametrize("editor", sorted(SAVED))
def test_notebooks_as_each_editor_saves_them_are_read(editor: str, tmp_path: Path) -> None:
    path = tmp_path / "work.ipynb"
    path.write_text(SAVED[editor])
    found = convert(code_cells(read_notebook(path)), path.name, lambda _: None)
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert namespace["f"]() == 7


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("not json at all", "is not a notebook nbformat can read"),
        ('{"cells": 3}', "is not a notebook nbformat can read"),
        ("[1, 2]", "is not a notebook nbformat can read"),
        (
            notebook_text([_cell("x <- 1")], kernelspec={"name": "ir", "language": "R"}),
            "is a notebook in R, not Python",
        ),
    ],
)
def test_what_is_no_python_notebook_is_refused_in_one_line(text: str, words: str) -> None:
    with pytest.raises(NotebookError) as refused:
        parse_notebook(text, "work.ipynb")
    message = str(refused.value)
    assert words in message
    assert "\n" not in message
    assert message.startswith("work.ipynb ")


def test_a_notebook_that_is_not_utf8_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "work.ipynb"
    path.write_bytes(b'{"cells": [\xff]}')
    with pytest.raises(NotebookError, match="not UTF-8"):
        read_notebook(path)


def test_a_notebook_with_lone_surrogates_and_line_separators_is_read() -> None:
    # JSON may escape a lone surrogate; U+2028 ends a line for str.splitlines, not for Python
    text = notebook_text([_cell("X = '\\ud800'\nS = 'a\u2028b'\nZ = 2")])
    book = parse_notebook(text, "work.ipynb")
    found = convert(code_cells(book), "work.ipynb", lambda target: None)
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert (namespace["S"], namespace["Z"]) == ("a\u2028b", 2)
    assert found.places.of(found.source.split("\n").index("Z = 2") + 1) == (1, 3)


def test_nbformat_is_imported_without_blocking_anything_after_it() -> None:
    parse_notebook(notebook_text([_cell("X = 1")]), "work.ipynb")
    assert "nbformat" in sys.modules
    assert sys.modules.get("rfc3987_syntax", 0) is not None  # importable again, if installed


def test_a_long_cell_is_turned_into_python_a_line_at_a_time() -> None:
    lines = [f"x{k} = {k}" for k in range(2000)]
    found = _module("\n".join(["%matplotlib inline", *lines, "%time y = 1"]))
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert (namespace["x1999"], namespace["y"]) == (1999, 1)
    assert found.places.of(found.source.splitlines().index("x1999 = 1999") + 1) == (1, 2001)


@pytest.mark.parametrize(
    ("cell", "why"),
    [
        ("x = 1\nreturn x", "'return' outside function"),
        ("y = await f()", "'await' outside function"),
        ("break", "'break' outside loop"),
    ],
)
def test_a_cell_that_parses_but_cannot_run_in_a_module_is_left_out(cell: str, why: str) -> None:
    found = _module("X = 1", cell, "Z = 2")
    namespace: dict[str, Any] = {}
    exec(found.source, namespace)
    assert (namespace["X"], namespace["Z"]) == (1, 2)
    assert len(found.notes) == 1
    assert found.notes[0].startswith("cell 2, line ")
    assert f"cannot run in a module ({why}): the cell left out" in found.notes[0]

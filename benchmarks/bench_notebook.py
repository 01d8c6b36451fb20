"""What reading a notebook costs `ttt check`: each learning shape of the corpus written as a
student's notebook (a title, each top-level definition in a cell of its own, the rest in
cells between them, a magic for the course's shapes) and as the script Jupyter exports from
it (`jupyter nbconvert --to script`), each graded whole a few times, the two alternately, as
a teacher runs it (the whole command, in the box).

Run:  .venv/bin/python benchmarks/bench_notebook.py [--runs 5]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import tempfile
from pathlib import Path

import nbformat
import reference_course  # this folder's: the reference speed
from bench_check import timed  # this folder's: the whole command, timed
from nbconvert import PythonExporter

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "usercode" / "corpus"
#: Each shape's module, and whether its notebook starts with a magic (a module that is run
#: whole, as the MDP's, would fail on the exported script's ``get_ipython()``).
SHAPES = {
    "td-agent": (CORPUS / "td_agent" / "agent.py", True),
    "q-agent": (CORPUS / "q_agent" / "qagent.py", True),
    "mdp": (CORPUS / "mdp" / "ttt_mdp.py", False),
}


def notebook_of(source: str, magic: bool) -> nbformat.NotebookNode:
    """``source`` as a student's notebook: each top-level definition a cell of its own."""
    lines = source.splitlines()
    cells, start = [], 0
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            first = node.lineno - 1 - len(node.decorator_list)
            if first > start:
                cells.append("\n".join(lines[start:first]).strip())
            cells.append("\n".join(lines[first : node.end_lineno]))
            start = node.end_lineno or first
    cells.append("\n".join(lines[start:]).strip())
    code = [nbformat.v4.new_code_cell(c) for c in cells if c]
    if magic:
        code.insert(0, nbformat.v4.new_code_cell("%matplotlib inline"))
    title = nbformat.v4.new_markdown_cell("# The exercise")
    book = nbformat.v4.new_notebook(cells=[title, *code])
    book.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return book


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'shape':<9} {'notebook s':>10} {'script s':>9} {'ratio':>6}  (medians of {args.runs})")
    with tempfile.TemporaryDirectory() as folder:
        for shape, (module, magic) in SHAPES.items():
            book = notebook_of(module.read_text(), magic)
            notebook = Path(folder) / f"{module.stem}_nb.ipynb"
            nbformat.write(book, notebook)
            script = Path(folder) / f"{module.stem}_script.py"
            script.write_text(PythonExporter().from_notebook_node(book)[0])
            times: dict[Path, list[float]] = {notebook: [], script: []}
            for _ in range(args.runs):
                for path in times:
                    times[path].append(timed(path, "required"))  # each in its box
            ours, theirs = (statistics.median(times[p]) for p in (notebook, script))
            print(f"{shape:<9} {ours:>10.2f} {theirs:>9.2f} {ours / theirs:>6.3f}")


if __name__ == "__main__":
    main()

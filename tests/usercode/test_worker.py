"""The box's worker (:mod:`tttlab.usercode.boxside.worker`), run as the box runs it (a copy of
the box's package, ``python -I -B __main__.py worker JOB``), asked questions by hand: it says
it is ready before any of the student's code runs, answers each question with the question's
own number, runs top-level code of definitions-only files never, and loads without tttlab."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tttlab.usercode import sandbox
from tttlab.usercode.grading import _planned

CORPUS = Path(__file__).parent / "corpus"


class Worker:
    def __init__(self, folder: Path, job: dict[str, Any]) -> None:
        grader = folder / "grader"
        shutil.copytree(Path(sandbox.__file__).parent / "boxside", grader)
        (folder / "job.json").write_text(json.dumps(job))
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-B", str(grader / "__main__.py"), "worker", "../job.json"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=folder / "work",
        )

    def line(self) -> Any:
        assert self.process.stdout is not None
        return json.loads(self.process.stdout.readline())

    def ask(self, question: dict[str, Any]) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(question).encode() + b"\n")
        self.process.stdin.flush()
        return self.line()

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)


def _job(exercise: str, load: str, path: str, only: tuple[str, ...]) -> dict[str, Any]:
    _, phases = _planned(exercise, only)
    job = sandbox.Job(Path(path), exercise, load, (path,), (), phases, (), (), 60, 1024)
    data = job.as_json(None, 64)
    data["names"] = ["X", "O", "EMPTY", "winner", "nonexistent"]
    data["modules"] = [Path(path).stem]
    return data


def test_the_worker_is_ready_first_and_answers_each_question_with_its_number(
    tmp_path: Path,
) -> None:
    (tmp_path / "work").mkdir()
    shutil.copyfile(CORPUS / "memo_minimax.py", tmp_path / "work" / "tictactoe.py")
    worker = Worker(tmp_path, _job("cs50", "import", "tictactoe.py", ("winner",)))
    assert worker.line() == {"ready": True}
    loaded = worker.ask({"n": "a1", "import": True})
    assert loaded["n"] == "a1"
    assert loaded["o"] == ["v"]
    assert loaded["missing"] == ["nonexistent"]
    answers = [
        worker.ask({"n": f"q{k}", "f": "winner", "c": b})
        for k, b in enumerate(["XXX" + "OO." + "...", "." * 9, "OOO" + "XX." + "X.."])
    ]
    assert [a["n"] for a in answers] == ["q0", "q1", "q2"]
    assert [a["o"] for a in answers] == [["v", "X"], ["v", "."], ["v", "O"]]
    assert worker.close() == 0


def test_a_definitions_only_file_never_runs_its_main_code_nor_finds_tttlab(
    tmp_path: Path,
) -> None:
    (tmp_path / "work").mkdir()
    source = (CORPUS / "memo_minimax.py").read_text()
    (tmp_path / "work" / "tictactoe.py").write_text(
        "import tttlab\n" + source + "\nwhile True:\n    input('move? ')\n"
    )
    worker = Worker(tmp_path, _job("cs50", "definitions", "tictactoe.py", ("winner",)))
    worker.line()
    loaded = worker.ask({"n": "b", "import": True})
    assert loaded["o"] == ["v"]
    assert loaded["stubbed"] == ["tttlab"], loaded  # not in the box: a stub stands in
    loop = len(source.splitlines()) + 3  # the game at the end, never run
    assert loaded["skipped"][-1] == f"tictactoe.py lines {loop}-{loop + 1}", loaded
    assert worker.ask({"n": "c", "f": "winner", "c": "X" * 3 + "." * 6})["o"] == ["v", "X"]
    assert worker.close() == 0

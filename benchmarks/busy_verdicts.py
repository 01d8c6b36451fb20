"""The same verdicts on a quiet machine and a busy one: every entry of the test corpus
(`tests/usercode/corpus`: the CS50 modules, the course and board folders, the TD, Q-learning
and MDP agents; `course_agent.py`, an agent and no exercise, fails) and of the learning
corpus (each honest TD, Q-learning and MDP variant of `tests/usercode/test_td_variants.py`,
`test_q_variants.py` and `test_mdp_variants.py`, written out, and the three learning shapes
as notebooks), graded by one `ttt check ENTRIES --json -j 2`, first
alone and then beside two CPU-bound processes (`python3 -c 'while True: pass'`); the
verdicts compared entry by entry, with the load average each run saw.

Run:  .venv/bin/python benchmarks/busy_verdicts.py [--load 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the variants are the tests' own

import nbformat  # noqa: E402
import reference_course  # noqa: E402  # this folder's: the reference speed
from bench_notebook import SHAPES, notebook_of  # noqa: E402  # this folder's
from tests.usercode import test_mdp_variants, test_q_variants, test_td_variants  # noqa: E402

CORPUS = ROOT / "tests" / "usercode" / "corpus"
TTT = Path(sys.executable).with_name("ttt")


def entries(folder: Path) -> list[Path]:
    """Every entry to grade: the corpus's own, then the learning variants written out."""
    found = sorted(p for p in CORPUS.glob("*.py") if p.name not in ("__init__.py",))
    found += [CORPUS / "course", CORPUS / "board" / "qlearning.py"]
    found += [CORPUS / s / f for s, f in (("td_agent", "agent.py"), ("q_agent", "qagent.py"))]
    found.append(CORPUS / "mdp" / "ttt_mdp.py")
    for iteration in sorted(test_mdp_variants.ITERATIONS):  # the tables with each iteration
        found.append(test_mdp_variants.student(_fresh(folder, "mdp"), iteration))
    for name in sorted(test_td_variants.VARIANTS):
        found.append(test_td_variants.student(_fresh(folder, "td"), name))
    found.append(test_td_variants.own_environment(_fresh(folder, "td")))
    for name in sorted(test_q_variants.VARIANTS):
        found.append(test_q_variants.student(_fresh(folder, "q"), name))
    for module, magic in SHAPES.values():
        notebook = _fresh(folder, "nb") / f"{module.stem}.ipynb"
        nbformat.write(notebook_of(module.read_text(), magic), notebook)
        found.append(notebook)
    return found


def _fresh(folder: Path, kind: str) -> Path:
    made = folder / f"{kind}{len(list(folder.iterdir())):03d}"
    made.mkdir()
    return made


def graded(paths: list[Path]) -> tuple[float, float, dict[str, str]]:
    """The seconds, the highest load average seen, and each entry's verdict."""
    start, highest = time.perf_counter(), 0.0
    with subprocess.Popen(
        [str(TTT), "check", *map(str, paths), "--json", "-j", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        while process.poll() is None:
            highest = max(highest, os.getloadavg()[0])
            time.sleep(1)
        out, err = process.communicate()
    if process.returncode not in (0, 1):
        raise SystemExit(f"ttt check failed ({process.returncode}): {err[-500:]}")
    verdicts = {}
    for line in out.splitlines():
        report = json.loads(line)
        verdicts[report["file"]] = report["status"]
    return time.perf_counter() - start, highest, verdicts


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes beside it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        paths = entries(Path(temporary))
        quiet = graded(paths)
        loads = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)
        ]
        try:
            busy = graded(paths)
        finally:
            for load in loads:
                load.kill()
                load.wait()
    print(f"{len(paths)} entries")
    for label, (seconds, load, _) in (("quiet", quiet), (f"busy ({args.load})", busy)):
        print(f"{label:<9} {seconds:7.1f} s, load average up to {load:.1f}")
    same = 0
    for path in paths:
        pair = (quiet[2].get(str(path), "missing"), busy[2].get(str(path), "missing"))
        if pair[0] == pair[1]:
            same += 1
        else:
            print(f"  {_shown(path)}: {pair[0]} quiet, {pair[1]} busy")
    print(f"{same} of {len(paths)} verdicts the same")
    verdicts = list(quiet[2].values())
    print("quiet verdicts:", {s: verdicts.count(s) for s in sorted(set(verdicts))})
    for path in paths:
        if quiet[2].get(str(path)) != "pass":
            print(f"  {_shown(path)}: {quiet[2].get(str(path), 'missing')} quiet")


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else "/".join(path.parts[-2:])


if __name__ == "__main__":
    main()

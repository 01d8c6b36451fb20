"""The verifier says what it verified and refuses everything else in one line: starting
positions no game reaches or that are decided, a loose header, malformed files of every kind,
and a few hundred mutations of real certificates (none makes a false claim pass)."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import modules_after, ttt
from tttlab.game import Geometry, Position
from tttlab.limits import CERTIFICATE_BYTES
from tttlab.solvers.bitboard import prove
from tttlab.solvers.certificate import build_certificate, write_certificate
from tttlab.verifier import CertificateError, Verdict, loads, verify, verify_file

CLAIM = {1: "X wins", 0: "draw", -1: "O wins"}


def _certificate(board: str, position: str | None = None, zones: bool = False) -> dict[str, Any]:
    g = Geometry.parse(board)
    start = Position.initial(g) if position is None else Position.from_string(position, g)
    return build_certificate(start, table_bits=16, zones=zones).to_dict()


@pytest.fixture(scope="module")
def real() -> list[dict[str, Any]]:
    """Small certificates of each kind: a draw with walks, a win, a later position,
    pairings at the root, and draws with zones (version 3)."""
    return [
        _certificate("3x3k3"),
        _certificate("4x4k3"),
        _certificate("3x3k3", "X../.O./..."),
        _certificate("2x4k4"),
        _certificate("3x3k3", zones=True),
        _certificate("5x4k4", zones=True),
    ]


def _header(**fields: Any) -> str:
    data = {
        "format": "tttlab-certificate",
        "version": 1,
        "rows": 3,
        "cols": 3,
        "k": 3,
        "claim": "X wins",
        "strategies": {"X": {}},
    }
    data.update(fields)
    return json.dumps(data)


def _rejected(text: str | bytes) -> str:
    """The one-line reason ``loads`` and ``verify`` give for the file's bytes."""
    raw = text.encode() if isinstance(text, str) else text
    with pytest.raises(CertificateError) as caught:
        verify(loads(raw))
    reason = str(caught.value)
    assert reason, reason
    assert "\n" not in reason, reason
    assert len(reason) < 200, reason
    return reason


@pytest.mark.parametrize(
    ("board", "position"),
    [
        ("1x9k3", None),
        ("2x10k3", None),
        ("1x12k4", None),
        ("9x7k4", None),
        ("3x3k3", "XX./OO./..."),
    ],
)
def test_every_board_the_solver_writes_is_accepted_and_named(
    board: str, position: str | None, tmp_path: Path
) -> None:
    """Boards up to 64 cells, however long and thin (the old 8-row, 8-column bound refused
    1x9, 2x10 and 1x12); a starting position other than the empty board is named."""
    g = Geometry.parse(board)
    if g.cells > 40:  # a full proof would take long: a position one move from X's win
        position = "XXX" + "." * (g.cols - 3) + "/" + "OOO" + "." * (g.cols - 3)
        position += "".join("/" + "." * g.cols for _ in range(g.rows - 2))
    certificate = build_certificate(
        Position.initial(g) if position is None else Position.from_string(position, g),
        table_bits=16,
    )
    path = tmp_path / "c.json"
    write_certificate(certificate, path)
    verdict = verify_file(path)
    assert verdict.claim == certificate.claim
    if position is None:
        assert verdict.from_start
        assert verdict.describe() == f"{g.name} is {certificate.claim}"
    else:
        assert verdict.position == position
        assert verdict.describe() == f"{g.name} from {position} (X to move) is X wins"
        shown = ttt("verify", str(path))
        assert shown.returncode == 0, shown.stderr
        assert f"verified: {g.name} from {position} (X to move) is X wins" in shown.stdout
        as_json = json.loads(ttt("verify", str(path), "--json").stdout)
        assert (as_json["position"], as_json["claim"]) == (position, "X wins")


@pytest.mark.parametrize(
    ("position", "reason"),
    [
        ("XXX/OO./...", "already decided at XXX/OO./...: X has a line"),
        ("XXX/OOO/...", "no game reaches XXX/OOO/...: both X and O have a line"),
        ("XXX/OO./O..", "no game reaches XXX/OO./O..: X has a line, and the other side"),
        ("OOO/XX./XX.", "no game reaches OOO/XX./XX.: O has a line, and the other side"),
        ("XXX/O../XXX", "not a position of a game"),
        ("X.X/OOO/X.X", "no game reaches X.X/OOO/X.X: O has a line"),
        ("XOX/XOO/OXX", "already decided at XOX/XOO/OXX: the board is full"),
        ("XX./.../...", "not a position of a game (X 2, O 0)"),
        ("XO.O/...", "not a position of this board"),
        ("XO/.O./...", "not a position of this board"),
    ],
)
def test_a_start_that_no_game_reaches_or_that_is_decided_is_refused(
    position: str, reason: str
) -> None:
    assert reason in _rejected(_header(position=position))


def test_a_full_board_with_no_line_proves_nothing() -> None:
    full = "XOXO/XOXO/OXOX/OXOX"
    text = _header(rows=4, cols=4, claim="draw", position=full, strategies={"X": {}, "O": {}})
    assert "the board is full" in _rejected(text)


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("rows", "3", "rows must be an integer, not '3'"),
        ("rows", True, "rows must be an integer, not True"),
        ("k", None, "k must be an integer"),
        ("version", True, "version must be an integer, not True"),
        ("version", 4, "of version 1, 2 or 3"),
        ("board", "4x4k4", "board '4x4k4' is not 3x3k3"),
        ("board", 3, "board 3 is not 3x3k3"),
        ("position", 7, "the position must be a string"),
        ("rows", 0, "not a board of at most 64 cells"),
        ("cols", 22, "not a board of at most 64 cells: 3x22"),
        ("k", 4, "not a board"),
        ("extra", 1, "unknown field 'extra'"),
        ("strategies", {"X": {}, "Z": {}}, "only X's and O's"),
    ],
)
def test_the_header_is_read_strictly(field: str, value: Any, reason: str) -> None:
    assert reason in _rejected(_header(**{field: value}))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (_header().replace('"rows": 3', '"rows": Infinity'), "Infinity is not an integer"),
        (_header().replace('"rows": 3', '"rows": NaN'), "NaN is not an integer"),
        (_header().replace('"rows": 3', '"rows": 1e999'), "1e999 is not an integer"),
        (_header().replace('"rows": 3', '"rows": 3.9'), "3.9 is not an integer"),
        (_header().replace('"rows": 3', '"rows": 3.0'), "3.0 is not an integer"),
        (_header().replace('"rows": 3', '"rows": ' + "9" * 5001), "5,001 digits"),
        (_header().replace('"k": 3', '"k": 3, "k": 4'), "'k' appears twice"),
        (_header().replace('"claim"', '"rows": 3, "claim"'), "'rows' appears twice"),
        ("[" * 200_000 + "]" * 200_000, "nested deeper than 8"),
        ("[" * 200_000, "nested deeper than 8"),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested deeper than 8"),
        ("", "not JSON"),
        ('"abc\\', "not JSON"),
        ("[1, 2]", "not a tttlab-certificate file"),
        (b"\xef\xbb\xbf" + _header().encode(), "not JSON"),
        (_header().encode("utf-16"), "not UTF-8"),
        (b'{"format": "\xff"}', "not UTF-8 text (byte 12)"),
    ],
)
def test_every_malformed_file_is_one_line(text: str | bytes, reason: str) -> None:
    assert reason in _rejected(text)


def _main(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tttlab.verifier", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)


def test_python_m_tttlab_verifier_and_ttt_verify_exit_codes(tmp_path: Path) -> None:
    """No argument: the usage line, exit 2; a path that cannot be read: exit 2; a malformed
    file (empty, not UTF-8, deep, too large): one line, exit 1; never an internal error."""
    usage = _main()
    assert (usage.returncode, usage.stderr) == (2, "usage: python -m tttlab.verifier FILE\n")
    big = tmp_path / "big.json"
    with big.open("wb") as file:  # sparse: no disk, and refused before it is read
        file.truncate(CERTIFICATE_BYTES + 1)
    files = {
        "empty": b"",
        "latin1": _header(claim="draw\xe9").encode("latin-1"),
        "deep": b"[" * 200_000 + b"]" * 200_000,
        "inf": _header().replace('"rows": 3', '"rows": Infinity').encode(),
    }
    for name, raw in files.items():
        (tmp_path / name).write_bytes(raw)
    for path in [*(tmp_path / name for name in files), big]:
        for result, prefix in ((_main(str(path)), "rejected: "), (ttt("verify", str(path)), "")):
            assert result.returncode == 1, (path, result.stderr)
            (line,) = result.stderr.strip().splitlines()
            assert prefix in line
            assert "internal error" not in line
    assert "over 268,435,456 bytes" in _main(str(big)).stderr
    for missing in (tmp_path / "missing.json", tmp_path):
        assert _main(str(missing)).returncode == 2
        assert ttt("verify", str(missing)).returncode == 2


def test_ttt_verify_loads_nothing_of_the_solver(tmp_path: Path) -> None:
    """A verify in a process of its own, by the console script's entry: afterwards neither the
    solver nor numba has been imported."""
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_certificate("3x4k3")))
    result, loaded = modules_after(
        "verify", str(path), prefixes=("tttlab.solvers", "numba", "tttlab.cli")
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("verified: 3x4k3 is X wins")
    assert loaded == []


# -- fuzzing: mutations of real certificates -----------------------------------------------


def _truth(verdict: Verdict) -> str:
    """The solver's value of what the verdict says was verified."""
    g = Geometry.parse(verdict.board)
    return CLAIM[prove(Position.from_string(verdict.position, g), table_bits=12).value]


def _mutate(data: dict[str, Any], rng: random.Random) -> dict[str, Any] | str:
    """One change to a certificate: a field, a move, an entry, the claim, or its text."""
    data = copy.deepcopy(data)
    sides = [s for s in data["strategies"] if data["strategies"][s]]
    cells = data["rows"] * data["cols"]
    kind = rng.randrange(11)
    if not sides:  # a proof by the rules alone (Erdős–Selfridge at the root): add a move
        data["strategies"].setdefault("X", {})[data.get("position", "." * cells)] = 0
        sides = ["X"]
    side = rng.choice(sides)
    moves = data["strategies"][side]
    key = rng.choice(list(moves))
    zoned = [k for k, entry in moves.items() if isinstance(entry, dict)]
    if kind == 10 and zoned:  # a zone: a cell more or less, another zone, one zone less
        zones = moves[rng.choice(zoned)]["zones"]
        zone = rng.choice(zones)
        change = rng.randrange(4)
        if change == 0 and zone:
            zone.remove(rng.choice(zone))
        elif change == 1:
            zone.append(rng.randrange(cells))
        elif change == 2:
            zones.append(rng.sample(range(cells), rng.randrange(cells)))
        else:
            zones.remove(zone)
    elif kind == 0:
        moves[key] = rng.choice([rng.randrange(-2, cells + 2), True, "3", None, [], [[0, 1]]])
    elif kind == 1:
        del moves[key]
    elif kind == 2:
        data["claim"] = rng.choice(["X wins", "O wins", "draw", "x wins", 1])
    elif kind == 3:
        marks = rng.choices("XO..", k=cells)
        data["position"] = "".join(marks)
    elif kind == 4:
        data[rng.choice(["rows", "cols", "k"])] += rng.choice([-1, 1])
    elif kind == 5:
        data["strategies"] = {"X": data["strategies"].get("O", {}), "O": moves}
    elif kind == 6:
        other = rng.choice([c for c in range(cells)])
        moves[key] = [[other, (other + 1) % cells]]
    elif kind == 7:  # a reply from a position the strategy never reaches
        moves.clear()
        moves[key] = rng.randrange(cells)
    else:
        text = json.dumps(data)
        at = rng.randrange(len(text))
        if kind == 8:
            return text[:at]
        return (
            text[:at] + rng.choice(['"', "[", "{", "}", "0", "-", "1e9", "\\", "\x00"]) + text[at:]
        )
    return data


def test_no_mutation_of_a_real_certificate_makes_a_false_claim_pass(
    real: list[dict[str, Any]], tmp_path: Path
) -> None:
    rng = random.Random(61)
    accepted = 0
    reasons: list[str] = []
    path = tmp_path / "m.json"
    for i in range(400):
        mutated = _mutate(real[i % len(real)], rng)
        path.write_text(mutated if isinstance(mutated, str) else json.dumps(mutated))
        try:
            verdict = verify_file(path)
        except CertificateError as error:
            reasons.append(str(error))
            continue
        assert verdict.claim == _truth(verdict), (mutated, verdict)
        accepted += 1
    assert not [r for r in reasons if "\n" in r or not r]
    assert len(reasons) > 200
    assert accepted > 0

"""The pairing search (:mod:`tttlab.solvers.pairing`): the proof search's fast path, with
the lines to cover as the bits of one word, against the path over a list of lines (which
the certificates use, and boards of over 64 lines), and its tables by their definitions."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.game import Geometry, Position
from tttlab.solvers.bitboard import _tables
from tttlab.solvers.pairing import PAIRING_STEPS, bit_index, holds_by_pairing, pair_lines_of


def test_bit_index_names_every_bit_of_a_word_the_sign_bit_too() -> None:
    words = np.array([1 << i for i in range(63)] + [-(1 << 63)], dtype=np.int64)
    assert [bit_index(int(w)) for w in words] == list(range(64))


@pytest.mark.parametrize("board", ["3x3k3", "6x4k4", "7x7k5"])
def test_a_pairs_lines_are_the_lines_through_both_its_cells(board: str) -> None:
    g = Geometry.parse(board)
    table = pair_lines_of(np.asarray(g.line_masks, dtype=np.int64), g.cells)
    for a in range(g.cells):
        for b in range(g.cells):
            through = [i for i, line in enumerate(g.lines) if a in line and b in line]
            assert table[a, b] == sum(1 << i for i in through), (a, b)


def test_a_board_of_over_64_lines_takes_the_list_path() -> None:
    g = Geometry.parse("8x8k5")  # 96 lines
    assert pair_lines_of(np.asarray(g.line_masks, dtype=np.int64), g.cells).shape == (0, 0)


@pytest.mark.parametrize(("board", "steps"), [("7x7k5", PAIRING_STEPS), ("6x4k4", 5)])
def test_both_paths_find_the_same_pairs_within_the_same_steps(board: str, steps: int) -> None:
    """Positions of random games, both sides as the defender: the same answer and, where
    there is a pairing, the same pairs in the same order (a small step limit too)."""
    g = Geometry.parse(board)
    t = _tables(g)
    none = np.zeros((0, 0), dtype=np.int64)
    rng = np.random.default_rng(2)
    found = tried = 0
    for _ in range(40):
        p = Position.initial(g)
        while not p.is_terminal:
            x, o = (int(np.int64(np.uint64(b))) for b in p.bitboards)
            for attacker, defender in ((x, o), (o, x)):
                answers = []
                for pair_lines in (t.pair_lines, none):
                    scratch = np.zeros((4, max(len(t.lines), 2)), dtype=np.int64)
                    holds = holds_by_pairing(
                        attacker, defender, t.lines, t.full, scratch, pair_lines, steps
                    )
                    answers.append((holds, list(scratch[3, : scratch[2, 1]]) if holds else None))
                assert answers[0] == answers[1], p.to_string("/")
                found += answers[0][0]
                tried += 1
            p = p.apply(int(rng.choice(p.legal_moves)))
    assert 0 < found < tried  # both answers occur

"""The compiled proof search through its entry point, ``prove``: known values of bigger
boards, agreement with the table, a shared table, and how a search stops (the compiled
kernel's pairing bound: tests/solvers/test_kernel.py)."""

from __future__ import annotations

import _thread
import signal
import threading

import numpy as np
import pytest

from tttlab.game import Geometry, Position, state_space
from tttlab.solvers import solve_table
from tttlab.solvers.bitboard import (
    UNLIMITED_NODES,
    ProofTable,
    SearchProgress,
    SearchStopped,
    SearchTooLarge,
    prove,
)

# Published values (Uiterwijk and van den Herik 2000; FACTS.md): 4,4,4, m,4,4 for m <= 8
# and 5,5,4 are draws, 6,5,4 is a first-player win. The rest are small enough to have
# tables (below), pinned here too.
KNOWN = [
    ("3x3k3", 0),
    ("3x4k3", 1),
    ("4x3k3", 1),
    ("4x4k3", 1),
    ("4x4k4", 0),
    ("4x5k4", 0),
    ("5x4k4", 0),
    ("6x4k4", 0),
    ("5x5k4", 0),
    ("6x5k4", 1),
    ("5x6k4", 1),
]


@pytest.mark.parametrize(("board", "value"), KNOWN)
def test_known_values_with_and_without_pairings(board: str, value: int) -> None:
    g = Geometry.parse(board)
    assert prove(Position.initial(g), table_bits=22).value == value
    assert prove(Position.initial(g), table_bits=22, pairings=False).value == value


def test_a_win_comes_with_a_winning_first_move() -> None:
    """6,5,4 (30 cells, past the bitboards of old) is a first-player win: the move given
    for the root is one that keeps the win, proved again from the position it makes."""
    root = Position.initial(Geometry(6, 5, 4))
    proof = prove(root, table_bits=22)
    assert proof.value == 1
    assert proof.best_move is not None
    assert prove(root.apply(proof.best_move), table_bits=22).value == 1
    assert proof.nodes > 1_000  # searched, not looked up


@pytest.mark.parametrize(
    "geometry",
    [
        Geometry(r, c, k)
        for r in range(1, 5)
        for c in range(1, 5)
        for k in range(1, max(r, c) + 1)
        if r * c < 16 or k < 3  # 4x4 k=3 and k=4: in KNOWN (their tables take 4-5 s)
    ],
    ids=str,
)
def test_every_board_up_to_4x4_agrees_with_its_table(geometry: Geometry) -> None:
    assert prove(Position.initial(geometry), table_bits=16).value == solve_table(geometry).value_at(
        0
    )


def test_agrees_with_the_table_on_every_3x3_position() -> None:
    solution = solve_table(Geometry())
    space = solution.space
    for i in range(space.size):
        assert prove(space.position(i), table_bits=12).value == int(solution.value[i])


def test_agrees_with_the_table_on_3x4_positions() -> None:
    g = Geometry(3, 4, 3)
    solution = solve_table(g)
    rng = np.random.default_rng(0)
    for i in rng.choice(state_space(g).size, size=400, replace=False):
        position = solution.space.position(int(i))
        assert prove(position, table_bits=16).value == int(solution.value[i])


def test_a_search_stopped_half_way_leaves_no_entries_behind() -> None:
    shared = ProofTable(16)
    with pytest.raises(SearchTooLarge):
        prove(Position.initial(Geometry(4, 4, 4)), node_budget=1000, table=shared, pairings=False)
    assert shared.entries == 0
    assert not shared.rows[:, 2].any()  # every slot empty
    assert prove(Position.initial(Geometry(3, 4, 3)), table=shared).value == 1


def test_a_node_budget_or_a_time_limit_stops_the_search_and_says_which() -> None:
    with pytest.raises(SearchTooLarge, match="not proved within 100 nodes"):
        prove(Position.initial(Geometry(7, 5, 4)), table_bits=16, node_budget=100)
    shared = ProofTable(16)
    # 8,4,4 takes some 7 million nodes: 0.2 s is far too little
    with pytest.raises(SearchStopped, match=r"^8x4k4 was not proved within the time limit"):
        prove(Position.initial(Geometry(8, 4, 4)), time_limit=0.2, table=shared)
    assert shared.entries == 0
    assert not shared.rows[:, 2].any()  # every slot empty


def test_terminal_positions() -> None:
    assert prove(Position.from_string("XXX/OO./...")).value == 1
    assert prove(Position.from_string("XOX/XOO/OXX")).value == 0


def test_a_ctrl_c_stops_the_search_at_once_and_forgets_its_half_work() -> None:
    """The search runs without the GIL in a thread of its own, so a Ctrl-C reaches the
    caller while it runs: raised as KeyboardInterrupt, the table left empty."""
    shared = ProofTable(16)
    # Python's own handler for the test: an earlier test in this process may have left
    # SIGINT ignored (a sweep's worker does), and interrupt_main does nothing then. The time
    # limit only keeps a lost interrupt from hanging the suite: it would fail the test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            prove(
                Position.initial(Geometry(8, 4, 4)),
                table=shared,
                node_budget=UNLIMITED_NODES,
                time_limit=120,
            )
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert shared.entries == 0
    assert not shared.rows[:, 2].any()  # every slot empty


def test_a_window_gives_the_value_or_the_bound_it_asks_for() -> None:
    """On 3x4 positions, each window: an exact value inside it, else a bound on the side the
    value lies (from X's side, both movers); a winning move only where one is claimed."""
    g = Geometry(3, 4, 3)
    solution = solve_table(g)
    rng = np.random.default_rng(6)
    bounds = set()
    for i in rng.choice(solution.space.size, size=150, replace=False):
        position = solution.space.position(int(i))
        truth = int(solution.value[i])
        for low, high in ((-1, 0), (0, 1), (-1, 1)):
            proof = prove(position, table_bits=14, window=(low, high))
            bounds.add(proof.bound)
            if proof.bound == 0:
                assert proof.value == truth
            elif proof.bound < 0:
                assert truth <= proof.value <= low
            else:
                assert truth >= proof.value >= high
    assert bounds == {-1, 0, 1}
    with pytest.raises(ValueError, match="a window is"):
        prove(Position.initial(g), window=(1, 0))


def test_a_long_proof_reports_its_nodes_and_the_moves_it_settled() -> None:
    heard: list[SearchProgress] = []
    proof = prove(
        Position.initial(Geometry(7, 4, 4)),
        table_bits=20,
        progress=heard.append,
        progress_every=0.02,
    )
    assert len(heard) >= 3
    assert [p.nodes for p in heard] == sorted(p.nodes for p in heard)
    assert heard[-1].nodes <= proof.nodes
    for p in heard:
        assert all(0 <= s < m for s, m in zip(p.settled, p.moves, strict=True) if m)
        assert p.moves[0] == 28  # every cell of the empty board is live
        assert p.describe().startswith(f"{p.nodes:,} nodes (")
        assert "; moves settled: " in p.describe()


def test_a_holding_zone_comes_only_where_the_mover_holds() -> None:
    """The proof's holding zone is given only where the side to move holds (None where it
    loses), and lies on the board, on random positions of the table's boards."""
    zones = 0
    for board in ("3x3k3", "3x4k3", "4x4k3"):
        g = Geometry.parse(board)
        solution = solve_table(g)
        rng = np.random.default_rng(8)
        for i in rng.choice(solution.space.size, size=120, replace=False):
            position = solution.space.position(int(i))
            if position.is_terminal:
                continue
            proof = prove(position, table_bits=12)
            assert proof.value == int(solution.value[i])
            holds = proof.value * position.to_move.sign >= 0
            assert (proof.holds_zone is not None) <= holds
            zones += proof.holds_zone is not None
            if proof.holds_zone is not None:
                assert proof.holds_zone & ~((1 << g.cells) - 1) == 0
    assert zones > 0


def test_an_inline_search_is_the_same_search() -> None:
    """``inline`` only leaves out the thread: the same value, move, nodes and entries."""
    for board in ("3x4k3", "5x4k4", "6x4k4"):
        root = Position.initial(Geometry.parse(board))
        threaded, inline = ProofTable(14), ProofTable(14)
        a, b = prove(root, table=threaded), prove(root, table=inline, inline=True)
        assert (a.value, a.best_move, a.nodes) == (b.value, b.best_move, b.nodes)
        assert np.array_equal(threaded.rows, inline.rows)

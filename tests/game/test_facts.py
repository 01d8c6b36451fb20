"""The counts in shared/FACTS.md, pinned."""

from __future__ import annotations

import numpy as np

from tttlab.game import StateSpace


def test_reachable_positions(space3: StateSpace) -> None:
    assert space3.size == 5478
    assert int(space3.terminal.sum()) == 958
    assert int((~space3.terminal).sum()) == 4520


def test_terminal_split(space3: StateSpace) -> None:
    t = space3.terminal
    assert int((space3.winner == 1).sum()) == 626
    assert int((space3.winner == 2).sum()) == 316
    assert int((t & (space3.winner == 0)).sum()) == 16
    # A full board is terminal whoever won.
    assert bool(t[space3.ply == 9].all())


def test_positions_up_to_symmetry(space3: StateSpace) -> None:
    assert np.unique(space3.canonical).size == 765
    assert np.unique(space3.canonical[~space3.terminal]).size == 627
    o_to_move = ~space3.terminal & (space3.to_move == 2)
    assert np.unique(space3.canonical[o_to_move]).size == 289


def test_game_tree(space3: StateSpace) -> None:
    paths = space3.path_counts()
    assert int(paths.sum()) == 549_946
    assert int(paths[space3.terminal].sum()) == 255_168
    assert int(paths[space3.winner == 1].sum()) == 131_184
    assert int(paths[space3.winner == 2].sum()) == 77_904
    assert int(paths[space3.terminal & (space3.winner == 0)].sum()) == 46_080


def test_game_tree_by_brute_force_recursion(space3: StateSpace) -> None:
    """An independent count: walk the tree through the rules, not the tables."""
    from tttlab.game import Position

    def walk(p: Position) -> tuple[int, int]:
        if p.is_terminal:
            return 1, 1
        nodes, games = 1, 0
        for m in p.legal_moves:
            n, g = walk(p.apply(m))
            nodes += n
            games += g
        return nodes, games

    # The whole tree takes ~10 s in pure Python, so walk one opening and
    # compare it with the table's count for that subtree.
    start = Position.initial().apply(4).apply(0)
    nodes, games = walk(start)
    paths_from = np.zeros(space3.size, dtype=np.int64)
    paths_from[space3.index(start)] = 1
    for i in range(space3.index(start), space3.size):
        if paths_from[i]:
            for child in space3.next[i][space3.next[i] >= 0]:
                paths_from[child] += paths_from[i]
    assert nodes == int(paths_from.sum())
    assert games == int(paths_from[space3.terminal].sum())

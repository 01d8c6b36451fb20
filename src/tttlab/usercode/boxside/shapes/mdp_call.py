"""A student's value or policy iteration called in the box (the MDP text, seed 004), and the
vectors read from what it returned. Standard library only.

The text stops at ``P`` and ``R``; students write the iterations in many ways: ``f(P, R,
gamma)``, the text's authors' ``value_iteration(P, R, gamma, v_init, tol=1e-6)`` and
``policy_iteration(P, R, gamma, v_init, pi_init, tol=1e-6)``, a number of sweeps, or no
discount at all (the game is episodic). :func:`arguments` fills each parameter by what its
name says, else by its place (``P``, ``R``, the discount, the initial values, the initial
policy): the discount the check asks for, zeros for initial values, a feasible policy (the
first empty cell of each state's board), the number of states or actions; a parameter with
a default keeps it (the discount excepted); a tolerance or a number of sweeps that has none
gets :data:`TOLERANCE` or :data:`SWEEPS` (the game ends within five of X's moves: a few
sweeps are exact). :func:`parts` reads what came back: each vector of numbers in it, in its
order, with whether it holds integers (the grader tells values from a policy by what they
hold).
"""

from __future__ import annotations

import copy
import inspect
import re
import sys
from typing import Any

from .base import number

__all__ = ["PARTS", "SWEEPS", "TOLERANCE", "Call", "arguments", "fresh", "parts", "plain"]

#: The most vectors of numbers read from what an iteration returned.
PARTS = 4
#: The most entries of one vector read (a bigger one is no vector over the states).
MOST = 100_000
#: A required tolerance, and a required number of sweeps.
TOLERANCE = 1e-9
SWEEPS = 100
#: What each kind of parameter is given, in words (for the report's note).
GIVEN = {
    "gamma": "the discount",
    "values": "zeros",
    "policy": "a feasible policy",
    "tol": f"{TOLERANCE:g}",
    "sweeps": str(SWEEPS),
    "states": "the number of states",
    "actions": "9",
}
#: Each kind of parameter by its name (lower case; searched in this order).
_NAMED = (
    ("gamma", re.compile(r"gamma|discount|^(g|df|disc|y)$")),
    ("states", re.compile(r"state|^(s|ns|n_s|nstates)$")),
    ("actions", re.compile(r"action|^(a|na|n_a|nactions)$")),
    ("policy", re.compile(r"^pi|polic|^pol$")),
    ("values", re.compile(r"^v($|_|\d|init|start|pi)|value|^init(ial)?_?v|^u$")),
    ("sweeps", re.compile(r"iter|sweep|step|epoch|loop|round|horizon|times|^(n|k|num)$")),
    ("tol", re.compile(r"tol|theta|eps|thresh|precision|conv|delta|^err|stop")),
    ("P", re.compile(r"^p$|trans|^prob")),
    ("R", re.compile(r"^r$|rew")),
)
#: The kinds a parameter named otherwise takes, by its place.
_ORDER = ("P", "R", "gamma", "values", "policy")
_SKIPPED = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def kind_of(name: str) -> str | None:
    """What a parameter is, by its name: ``"gamma"``, ``"values"``... or None."""
    low = name.lower()
    return next((kind for kind, pattern in _NAMED if pattern.search(low)), None)


def plain(block: Any) -> Any:
    """A numpy array as lists (one call, fast); anything else as it is."""
    tolist = getattr(block, "tolist", None)
    return tolist() if callable(tolist) else block


def fresh(table: Any) -> Any:
    """A copy of ``P`` or ``R`` for the student's function to keep or change: an array's
    own ``copy()``, nested lists copied list by list (fast), anything else deep-copied."""
    if type(table).__module__ == "numpy" and callable(getattr(table, "copy", None)):
        return table.copy()
    if type(table) is list:
        return [item if type(item) in (float, int) else fresh(item) for item in table]
    return copy.deepcopy(table)


class Call:
    """How the box calls one iteration: positional and keyword arguments, the signature in
    words, whether the discount was given, and what each other parameter got."""

    def __init__(self) -> None:
        self.args: list[Any] = []
        self.kwargs: dict[str, Any] = {}
        self.signature = ""
        self.discounted = False
        self.filled: list[list[str]] = []
        #: The parameter the box could not fill ("" when it filled every one).
        self.unfilled = ""


def arguments(function: Any, name: str, given: dict[str, Any]) -> Call:
    """The call of ``function`` (named ``name``): ``given`` makes each kind's argument
    (``given["P"]()``, ``given["gamma"]()``...); see the module's docstring. A function
    whose signature cannot be read, or names no parameter (``f(*args)``), is called as
    ``f(P, R, gamma)``."""
    call = Call()
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    if all(p.kind in _SKIPPED for p in parameters):  # none to read: f(*args), a builtin
        call.args = [given[k]() for k in ("P", "R", "gamma")]
        call.signature, call.discounted = f"{name}(P, R, gamma)", True
        return call
    call.signature = f"{name}({', '.join(_shown(parameters))})"
    kinds = _kinds([p for p in parameters if p.kind not in _SKIPPED])
    positional = True
    for p in parameters:
        kind = kinds.get(p.name)
        if p.kind in _SKIPPED:
            continue
        if p.default is not p.empty and kind != "gamma":  # kept at its default
            positional = False
            continue
        if kind is None or (not positional and p.kind == p.POSITIONAL_ONLY):
            call.unfilled = p.name
            return call
        value = given[kind]()
        call.discounted |= kind == "gamma"
        if kind not in ("P", "R", "gamma"):
            call.filled.append([p.name, GIVEN[kind]])
        if positional and p.kind != p.KEYWORD_ONLY:
            call.args.append(value)
        else:
            call.kwargs[p.name] = value
    return call


def _kinds(parameters: list[inspect.Parameter]) -> dict[str, str]:
    """Each parameter's kind: by its name, else (a required one, or the discount's place)
    the next of ``P``, ``R``, the discount, the values, the policy not yet taken."""
    found = {p.name: kind for p in parameters if (kind := kind_of(p.name)) is not None}
    taken = set(found.values())
    for place, p in enumerate(parameters):
        if p.name in found:
            continue
        free = [k for k in _ORDER if k not in taken]
        required = p.default is p.empty
        if free and (required or (free[0] == "gamma" and place == 2)):
            found[p.name] = free[0]
            taken.add(free[0])
    return found


def _shown(parameters: list[inspect.Parameter]) -> list[str]:
    """The parameters as a signature writes them (``/`` and ``*`` too), defaults cut short."""
    shown: list[str] = []
    for i, p in enumerate(parameters):
        before = parameters[i - 1].kind if i else None
        if before == p.POSITIONAL_ONLY and p.kind != p.POSITIONAL_ONLY:
            shown.append("/")
        if p.kind == p.KEYWORD_ONLY and before not in (p.KEYWORD_ONLY, p.VAR_POSITIONAL):
            shown.append("*")
        if p.default is p.empty:
            shown.append(str(p))
            continue
        try:
            default = repr(p.default)
        except BaseException:
            default = "..."
        shown.append(f"{p.name}={default if len(default) <= 12 else default[:9] + '...'}")
    if parameters and parameters[-1].kind == inspect.Parameter.POSITIONAL_ONLY:
        shown.append("/")
    return shown


def zeros(like: Any, count: int) -> Any:
    """``count`` zeros: a numpy array when ``like`` (the student's P) is one, else a list."""
    numpy = sys.modules.get("numpy")
    if numpy is not None and type(like).__module__ == "numpy":
        return numpy.zeros(count)
    return [0.0] * count


def cells(like: Any, policy: list[int]) -> Any:
    """A policy as the student's P suggests: a numpy array of integers, else a list."""
    numpy = sys.modules.get("numpy")
    if numpy is not None and type(like).__module__ == "numpy":
        return numpy.array(policy, dtype=int)
    return list(policy)


def parts(result: Any) -> tuple[list[list[Any]], str]:
    """Each vector of numbers in ``result`` ([all integers?, the numbers]), in its order,
    and what held them in words. A vector is a sequence or array of numbers, or a ``{state:
    number}`` dict over the states 0 to n - 1; they may come alone, in a tuple, list or
    array, in a dict of any keys, or in an object's attributes ``V``, ``values``,
    ``policy``, ``pi``."""
    result = plain(result)
    names = ("V", "v", "values", "value", "policy", "pi")
    if isinstance(result, dict) and not all(_integer(k) for k in result):
        keys = ", ".join(str(k)[:12] for k in list(result)[:PARTS])
        candidates, form = list(result.values())[:PARTS], f"a dict ({keys})"
    elif isinstance(result, dict):  # one vector as {state: number}
        candidates, form = [result], "one vector"
    elif isinstance(result, (tuple, list)) and result and number(result[0]) is None:
        candidates, form = list(result)[:PARTS], f"a {type(result).__name__} of {len(result)}"
    elif not isinstance(result, (tuple, list)) and any(hasattr(result, k) for k in names):
        candidates = [getattr(result, k) for k in names if hasattr(result, k)][:PARTS]
        form = "an object's attributes"
    else:
        candidates, form = [result], "one vector"
    found = []
    for candidate in candidates:
        read = vector(candidate)
        if read is not None:
            found.append(read)
    return found, form


def _integer(value: Any) -> bool:
    return type(value) is not bool and hasattr(type(value), "__index__")


def vector(candidate: Any) -> list[Any] | None:
    """[all integers?, the numbers] of a vector, or None when it is none."""
    try:
        if isinstance(candidate, dict):  # {state: number}, the states 0 to n - 1
            keys = sorted(candidate)
            if keys != list(range(len(keys))):
                return None
            items = [candidate[k] for k in keys]
        else:
            items = list(plain(candidate))
    except Exception:
        return None
    if len(items) > MOST or any(type(v).__name__ in ("bool", "bool_") for v in items):
        return None  # flags are no values, nor cells
    numbers = [number(v) for v in items]
    if not numbers or any(v is None for v in numbers):
        return None
    integers = all(_integer(v) for v in items)
    return [integers, numbers]

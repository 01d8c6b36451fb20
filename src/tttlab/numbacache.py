"""numba's disk cache, kept from serving stale machine code.

numba keys a function compiled with ``cache=True`` on its own file's text and its own
bytecode only. The functions it calls or inlines from other modules, and the constants it
reads from them, are compiled into it, so when only one of those modules changes, the cache
goes on serving the old code (the proof kernel ran with an old seal of ``solvers/slots.py``).

A module whose cached functions take code or constants from other modules therefore writes
those modules down, each with a digest of its text, and compiles with
``cache=cacheable(COMPILED_FROM)``:

- the digests are part of the module's own text, so writing them anew changes numba's key
  and the functions are compiled again;
- while a module named there does not have its digest, :func:`cacheable` is false and the
  functions are compiled without the cache (as slowly as the first time, but from the code as
  it is): a cache entry is only ever written or read with the modules as the digests say;
- ``tests/test_numbacache.py`` finds every module that each cached function of the package
  takes code from (through the functions it calls, all the way down) and fails until each is
  written down with its digest, printing the mapping to write.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Mapping
from pathlib import Path

__all__ = ["cacheable", "digest", "stale"]


def digest(module: str) -> str:
    """The first 16 hex digits of the SHA-256 of the text of ``module`` (a dotted name, such
    as ``"tttlab.solvers.slots"``); raises :class:`OSError` where it has no file to read."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise FileNotFoundError(f"{module} has no source file")
    return hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()[:16]


def stale(compiled_from: Mapping[str, str]) -> list[str]:
    """The modules of ``compiled_from`` (name to digest) whose text no longer has the digest
    written down, or that cannot be read, in order."""
    changed = []
    for module, written in sorted(compiled_from.items()):
        try:
            now = digest(module)
        except (ImportError, OSError, ValueError):
            now = ""
        if now != written:
            changed.append(module)
    return changed


def cacheable(compiled_from: Mapping[str, str]) -> bool:
    """Whether numba may cache functions compiled from the modules of ``compiled_from``:
    true while each still has the digest written down.

    >>> cacheable({"tttlab.numbacache": "0" * 16})
    False
    """
    return not stale(compiled_from)

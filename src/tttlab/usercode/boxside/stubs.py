"""Stubs for the modules a student's code imports that are not installed (``tqdm`` in a
training script, a plotting library): the import succeeds, and using the module in any way
fails as that call's own error, so the checks of the code that does not need it still run.
Standard library only: it runs in the box's worker (:mod:`.worker`).
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from typing import Any

from .schema import STUBS

__all__ = ["STUBBED", "stub", "with_stubs"]


class _Missing:
    """A name from a module that is not installed: using it in any way fails, as that
    call's error."""

    def __init__(self, where: str) -> None:
        self._where = where

    def _fail(self, *_args: Any, **_kwargs: Any) -> Any:
        top = self._where.split(".")[0]  # no ``name``: never taken for a missing import
        raise ModuleNotFoundError(f"{self._where}: {top} is not installed (a stub stood in)")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Missing(f"{self._where}.{name}")

    __call__ = __iter__ = __len__ = __getitem__ = __enter__ = __bool__ = _fail
    __mro_entries__ = __index__ = __int__ = __float__ = __contains__ = __setitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = _fail
    __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __pow__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = _fail


# what the student's code raises names it so (``'stub' object is not ...``), never ``_Missing``
_Missing.__name__ = _Missing.__qualname__ = "stub"


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Missing(f"{self.__name__}.{name}")


#: The modules stood in for, top-level names, in the order they were needed.
STUBBED: list[str] = []


def stub(name: str | None, folder: str) -> bool:
    """Stand a stub in for the module ``name`` (and the packages above it) when it is not
    the student's own: its import then succeeds, and using it fails."""
    if not name:
        return False
    top = name.split(".")[0]
    if top not in STUBBED and (
        os.path.exists(os.path.join(folder, top + ".py"))
        or os.path.isdir(os.path.join(folder, top))
    ):
        return False
    if top not in STUBBED and (top in sys.modules or len(STUBBED) >= STUBS):
        return False
    parts = name.split(".")
    for end in range(1, len(parts) + 1):
        dotted = ".".join(parts[:end])
        if dotted not in sys.modules:
            module = _StubModule(dotted)
            module.__path__ = []
            sys.modules[dotted] = module
            if end > 1:
                setattr(sys.modules[".".join(parts[: end - 1])], parts[end - 1], module)
    if top not in STUBBED:
        STUBBED.append(top)
    return True


def with_stubs(run: Callable[[], Any], folder: str) -> Any:
    """``run()``, again after each module it imports that is not installed has a stub."""
    while True:
        try:
            return run()
        except ModuleNotFoundError as error:
            if not stub(error.name, folder):
                raise

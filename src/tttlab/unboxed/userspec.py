"""A user's AGENT argument, ``path/to/file.py:NAME`` or ``package.module:NAME``: told apart
from the other AGENT arguments, and imported, every failure one line.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import inspect
import os
import re
import sys
from pathlib import Path
from typing import Any

from tttlab.errors import AgentError

__all__ = [
    "is_user_spec",
    "load_object",
    "loaded_module",
    "positional_arguments",
    "raised",
    "user_line",
]

_SPEC = re.compile(r"(?P<head>.+\.py|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):(?P<name>[A-Za-z_][\w.]*)")


def is_user_spec(spec: str) -> bool:
    """``file.py:NAME`` or ``package.module:NAME`` (and not a file of that whole name)."""
    match = _SPEC.fullmatch(spec.strip())
    if match is None or Path(spec).exists():
        return False
    head = match["head"]
    return head.endswith(".py") or not Path(head).exists()


class _NoInput(BaseException):
    pass


def _refuse_input(*_args: Any, **_kwargs: Any) -> str:
    raise _NoInput


#: The module each spec was loaded from (the course convention looks beside the agent).
_loaded: dict[str, Any] = {}


def loaded_module(spec: str) -> Any:
    """The module ``spec`` was loaded from (None if it was not)."""
    return _loaded.get(spec)


def load_object(spec: str) -> Any:
    """The object ``NAME`` from ``file.py:NAME`` or ``package.module:NAME``. The file's
    folder goes on the import path (its own imports work); ``input()`` at import is
    refused; every failure is one line."""
    match = _SPEC.fullmatch(spec.strip())
    if match is None:
        raise AgentError(f"bad agent {spec!r}: expected file.py:NAME or package.module:NAME")
    head, name = match["head"], match["name"]
    saved_input = builtins.input
    builtins.input = _refuse_input
    try:
        module = _import(head)
    except AgentError:
        raise
    except _NoInput:
        raise AgentError(f"{head} calls input() when imported") from None
    except SystemExit:
        raise AgentError(f"{head} calls sys.exit() when imported") from None
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        raise AgentError(f"cannot import {head}: {raised(error)}") from None
    finally:
        builtins.input = saved_input
    target: Any = module
    _loaded[spec] = module
    for part in name.split("."):
        if not hasattr(target, part):
            raise AgentError(f"{head} has no {name!r}")
        target = getattr(target, part)
    return target


def _import(head: str) -> Any:
    if not head.endswith(".py"):
        # From the current folder first, as ``python -m tttlab`` finds it: the ``ttt``
        # console script's own path starts at its bin folder instead.
        here = os.getcwd()
        if here not in sys.path and "" not in sys.path:
            sys.path.insert(0, here)
        return importlib.import_module(head)
    path = Path(head).resolve()
    if not path.is_file():
        raise AgentError(f"no such file: {head}")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = f"tttlab_user_{abs(hash(str(path)))}_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise AgentError(f"cannot import {head}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


_LIBRARIES = tuple(
    {str(Path(__file__).resolve().parents[1]), sys.prefix, sys.base_prefix, sys.exec_prefix}
)


def user_line(error: BaseException) -> str:
    """Where the user's own code raised ``error`` (``file.py line 12``: its last frame
    outside tttlab, the standard library and installed packages), or "" when no frame of
    theirs was running (the call itself did not fit)."""
    found = ""
    trace = error.__traceback__
    while trace is not None:
        filename = trace.tb_frame.f_code.co_filename
        path = str(Path(filename).resolve()) if not filename.startswith("<") else filename
        if not path.startswith(_LIBRARIES) and not filename.startswith("<frozen"):
            found = f"{Path(filename).name} line {trace.tb_lineno}"
        trace = trace.tb_next
    return found


def raised(error: BaseException) -> str:
    """``NameError: name 'x' is not defined (policy.py line 12)``: the user's exception and
    the line of theirs where it happened."""
    message = " ".join(str(error).split())
    text = f"{type(error).__name__}: {message}" if message else type(error).__name__
    where = user_line(error)
    return f"{text} ({where})" if where else text


def positional_arguments(function: Any) -> int | None:
    """How many positional arguments ``function`` needs (None when it cannot be told)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in kinds and p.default is inspect.Parameter.empty for p in parameters)

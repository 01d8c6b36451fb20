"""A user's AGENT argument, ``path/to/file.py:NAME`` or ``package.module:NAME``: told apart
from the other AGENT arguments, and imported, every failure one line.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from tttlab.errors import AgentError

__all__ = ["is_user_spec", "load_object", "loaded_module"]

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
        raise AgentError(f"cannot import {head}: {type(error).__name__}: {error}") from None
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

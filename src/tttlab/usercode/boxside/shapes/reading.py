"""What a student's class reads, from its bytecode, without calling any of it (standard
library only): the attribute names its methods load (``self.V``, ``env.size``), and whether
it uses an attribute as a mapping (``self.V.get(s, 0.5)``, ``s in self.V``).

Nothing here runs the student's code: the class's own ``__dict__`` entries are looked at,
and only plain functions, static and class methods and properties are read.
"""

from __future__ import annotations

import dis
import itertools
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["MAPPING_USES", "attributes_read", "used_as_mapping"]

#: What is done to an attribute right after loading it that says it is a mapping.
MAPPING_USES = ("get", "setdefault", "keys", "items", "values", "pop")


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it (lambdas, comprehensions, inner defs)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _functions(value: Any) -> Iterator[types.CodeType]:
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        for part in (value.fget, value.fset, value.fdel):
            if isinstance(part, types.FunctionType):
                yield from _codes(part.__code__)
    elif isinstance(value, types.FunctionType):
        yield from _codes(value.__code__)


def _class_codes(cls: Any) -> list[types.CodeType]:
    """The code of every method of ``cls`` and of its bases (``object`` left out)."""
    found: list[types.CodeType] = []
    try:
        mro = [k for k in type.__getattribute__(cls, "__mro__") if k is not object]
    except BaseException:
        return found
    for klass in mro:
        try:
            entries = list(type.__getattribute__(klass, "__dict__").values())
        except BaseException:
            continue
        for value in entries:
            try:
                found += _functions(value)
            except Exception:
                continue
    return found


def _instructions(cls: Any) -> list[list[dis.Instruction]]:
    found = []
    for code in _class_codes(cls):
        try:
            found.append(list(dis.get_instructions(code)))
        except Exception:
            continue
    return found


def attributes_read(cls: Any) -> set[str]:
    """The attribute names the methods of ``cls`` load (of any object: ``self.V`` and
    ``env.size`` alike)."""
    found: set[str] = set()
    for instructions in _instructions(cls):
        for ins in instructions:
            if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and isinstance(ins.argval, str):
                found.add(ins.argval)
    return found


def used_as_mapping(cls: Any, names: set[str]) -> bool:
    """Whether a method of ``cls`` uses an attribute named in ``names`` as a mapping: calls
    its ``get``, ``keys``... (:data:`MAPPING_USES`) or tests membership in it."""
    for instructions in _instructions(cls):
        for ins, after in itertools.pairwise(instructions):
            if ins.opname != "LOAD_ATTR" or ins.argval not in names:
                continue
            if after.opname == "CONTAINS_OP" or (
                after.opname in ("LOAD_ATTR", "LOAD_METHOD") and after.argval in MAPPING_USES
            ):
                return True
    return False

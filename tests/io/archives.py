"""Taking agent files apart and putting them together again, to damage them on purpose."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write(path: Path, contents: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
    return path


def rewrite(source: Path, target: Path, change: dict[str, bytes | None]) -> Path:
    """A copy of ``source`` with members replaced (or removed, for ``None``)."""
    contents = members(source)
    for name, data in change.items():
        if data is None:
            contents.pop(name, None)
        else:
            contents[name] = data
    return write(target, contents)


def npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def header(path: Path) -> dict[str, object]:
    with np.load(path) as data:
        return dict(json.loads(str(data["header"])))

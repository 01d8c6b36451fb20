"""The built state-space tables, cached on disk per board and table format.

Location: ``$TTTLAB_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/tttlab``, else
``~/.cache/tttlab``; inside it ``tables/v<format>/<board>.npz``, where the format is the
enumerator's own version (:data:`tttlab.game.compiled.TABLE_FORMAT`), so a changed
enumerator never reads an old table, and a new package release reuses the old tables.
``TTTLAB_CACHE_DIR=off`` turns the disk cache off (tables are then built in every process).

A cache file is an uncompressed ``.npz`` with a JSON header that names the board, the table
format, each array's dtype and shape and its CRC-32. It is written atomically
(:mod:`tttlab.atomic`: a reader never sees half a file, and the temporary of a killed writer
is removed by the next write). On load everything is checked (``allow_pickle=False``, names,
dtypes, shapes, checksums, the board); a file that fails is never trusted: it is rebuilt, with
one warning line (:class:`TableCacheWarning`).

Processes that need the same missing table at once (the workers of a cold sweep) take turns:
one builds it while the others wait on ``.<board>.npz.lock``, then read what it wrote.
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings
import zipfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from tttlab.atomic import exclusive, write_atomically
from tttlab.game.geometry import Geometry

__all__ = ["TableCacheWarning", "cache_dir", "cache_path", "load_or_build"]

_FORMAT = "tttlab-tables"
#: Arrays stored, with their dtype and number of dimensions (2 = N × cells).
_LAYOUT: dict[str, tuple[str, int]] = {
    "ids": ("int64", 1),
    "next": ("int32", 2),
    "terminal": ("bool", 1),
    "winner": ("int8", 1),
    "ply": ("int8", 1),
    "canonical": ("int32", 1),
}


class TableCacheWarning(UserWarning):
    """A cached table file was damaged or unreadable, or could not be written."""


def _version() -> int:
    from tttlab.game.compiled import TABLE_FORMAT

    return TABLE_FORMAT


def cache_dir() -> Path | None:
    """The folder of the table cache, or ``None`` when it is turned off."""
    chosen = os.environ.get("TTTLAB_CACHE_DIR")
    if chosen is not None:
        if chosen.strip().lower() in ("", "off", "0", "none"):
            return None
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "tttlab"


def cache_path(geometry: Geometry) -> Path | None:
    """Where the tables of ``geometry`` are cached for this table format."""
    folder = cache_dir()
    if folder is None:
        return None
    return folder / "tables" / f"v{_version()}" / f"{geometry.name}.npz"


def _checksum(array: npt.NDArray[Any]) -> int:
    view: Any = np.ascontiguousarray(array).reshape(-1).view(np.uint8)  # no copy
    return zlib.crc32(view) & 0xFFFFFFFF


def _header(geometry: Geometry, arrays: dict[str, npt.NDArray[Any]]) -> dict[str, Any]:
    return {
        "format": _FORMAT,
        "table_format": _version(),
        "board": geometry.name,
        "arrays": {
            name: {
                "dtype": str(arrays[name].dtype),
                "shape": list(arrays[name].shape),
                "crc32": _checksum(arrays[name]),
            }
            for name in _LAYOUT
        },
    }


def _read(path: Path, geometry: Geometry) -> dict[str, npt.NDArray[Any]]:
    """The checked arrays of a cache file; raises ``ValueError`` on anything wrong."""
    try:
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as archive:
            if set(archive.files) != {"header", *_LAYOUT}:
                raise ValueError("unexpected members")
            header = json.loads(str(archive["header"][()]))
            if not isinstance(header, dict) or (
                header.get("format"),
                header.get("table_format"),
                header.get("board"),
            ) != (_FORMAT, _version(), geometry.name):
                raise ValueError("header does not match this board and table format")
            arrays = {name: archive[name] for name in _LAYOUT}
    except Exception as error:  # OSError, BadZipFile, JSON, numpy format errors, ...
        raise ValueError(str(error) or type(error).__name__) from None
    n = arrays["ids"].shape[0] if arrays["ids"].ndim == 1 else -1
    for name, (dtype, ndim) in _LAYOUT.items():
        a = arrays[name]
        want = (n, geometry.cells) if ndim == 2 else (n,)
        entry = header["arrays"].get(name) if isinstance(header.get("arrays"), dict) else None
        if str(a.dtype) != dtype or a.shape != want or not isinstance(entry, dict):
            raise ValueError(f"array {name} has the wrong type or shape")
        if entry.get("crc32") != _checksum(a):
            raise ValueError(f"checksum mismatch in {name}")
    return arrays


def _write_member(archive: zipfile.ZipFile, name: str, array: npt.NDArray[Any]) -> None:
    """One ``.npy`` member, streamed from the array's own memory: ``numpy.savez`` copies
    16 MiB chunks, which on 4×4 would lift the peak above the tables themselves."""
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
        np.lib.format.write_array_header_2_0(
            member, np.lib.format.header_data_from_array_1_0(array)
        )
        if array.dtype.hasobject:  # pragma: no cover - never: tables are plain numbers
            raise ValueError("object arrays are not cached")
        raw: Any = array.reshape(-1).view(np.uint8)  # the same memory, no copy
        member.write(memoryview(raw))


def _write(path: Path, geometry: Geometry, arrays: dict[str, npt.NDArray[Any]]) -> None:
    """Write atomically (see :func:`tttlab.atomic.write_atomically`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = np.array(json.dumps(_header(geometry, arrays)))

    def write(handle: BinaryIO) -> None:
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
            for name, array in {"header": header, **arrays}.items():
                _write_member(archive, name, array)

    write_atomically(path, write)


def _cached(path: Path, geometry: Geometry, warn: bool) -> dict[str, npt.NDArray[Any]] | None:
    """The tables in a valid cache file, or None (with a warning when it is damaged)."""
    if not path.exists():
        return None
    try:
        return _read(path, geometry)
    except ValueError as error:
        if warn:
            warnings.warn(
                f"table cache {path} is damaged ({error}); rebuilding it",
                TableCacheWarning,
                stacklevel=3,
            )
        return None


def load_or_build(geometry: Geometry) -> dict[str, npt.NDArray[Any]]:
    """The tables of ``geometry``: from the disk cache when a valid file is there, else built
    by the compiled enumerator (and cached) by one process while the others wait."""
    from tttlab.game.compiled import build_tables

    path = cache_path(geometry)
    if path is None:
        return build_tables(geometry)
    found = _cached(path, geometry, warn=True)
    if found is not None:
        return found
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(path.with_name(f".{path.name}.lock")):
        found = _cached(path, geometry, warn=False)  # built by another process meanwhile
        if found is not None:
            return found
        arrays = build_tables(geometry)
        try:
            _write(path, geometry, arrays)
        except OSError as error:
            warnings.warn(
                f"could not write the table cache {path} ({error.strerror or error})",
                TableCacheWarning,
                stacklevel=2,
            )
    return arrays

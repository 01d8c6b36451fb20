"""Agent files: one ``.npz`` per trained agent, no pickle anywhere.

Layout (a zip archive that ``numpy.load(path)`` also reads, with ``allow_pickle=False``):

- ``header.npy``: a 0-d unicode array holding a JSON object:
  ``format`` ("tttlab-agent"), ``format_version`` (1), ``algorithm``, ``board`` ("3x3k3"),
  ``seats`` (["X", "O"] or one of them), ``episodes``, ``seed``, ``hyperparameters``,
  ``package_version``, ``tables`` ({name: shape}) and ``checksum`` (sha256 of the arrays);
- ``ids.npy``: int64, the state id of each table row, ascending: every reachable position,
  or with ``symmetric`` (header) only the representatives (smallest id of each symmetry
  class), whose rows symmetric positions share;
- ``V.npy`` (TD: 2 × R, one row per seat) or ``Q.npy`` (k × R × cells, values from X's side,
  columns in the representative's frame when symmetric).

Network agents (``alphazero``, ``dqn``) hold no table: their header has ``network`` (the
architecture: ``{"kind": "mlp", "cells", "hidden", "head"}``) and their arrays are the
network's parameters as float32 (``torso.0.weight.npy``, ..., ``policy.weight.npy``), the
names and shapes the architecture fixes. A checkpoint adds the trainer's state as
``state.NNN.npy`` arrays (see ``tttlab.neural``).

Files are written atomically (a temporary file in the same folder, then a rename) with fixed
zip timestamps, so the same training run gives a byte-identical file. Loading checks the
archive, every array's header (dtype, shape against the geometry) before reading its data,
then the header fields, the ids, the checksum and the values.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from tttlab import __version__
from tttlab.agents import AgentError
from tttlab.agents.learned import TABLE_KINDS, LearnedAgent
from tttlab.agents.network import NETWORK_KINDS, Architecture, NetworkAgent
from tttlab.atomic import write_atomically
from tttlab.game import (
    Geometry,
    GeometryError,
    Player,
    StateSpaceTooLarge,
    state_space,
    table_layout,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "AgentFileError",
    "FileAgent",
    "check_board",
    "load_agent_file",
    "save_agent",
]

#: What an agent file holds: a table agent or a network agent.
FileAgent = LearnedAgent | NetworkAgent

FORMAT = "tttlab-agent"
FORMAT_VERSION = 2
#: Larger files are refused before reading (a 4x4 Q table is about 1.3 GB).
MAX_FILE_BYTES = 4 * 2**30
_MAX_HEADER_BYTES = 1 << 20
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class AgentFileError(AgentError):
    """An agent file that cannot be loaded; the message says why in one line."""


def _checksum(arrays: dict[str, npt.NDArray[Any]]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        digest.update(name.encode())
        digest.update(np.array(arrays[name], order="C").tobytes())
    return digest.hexdigest()


def _npy_bytes(array: npt.NDArray[Any]) -> bytes:
    buffer = io.BytesIO()
    # ascontiguousarray would turn the 0-d header into shape (1,); copy keeps the shape.
    np.lib.format.write_array(buffer, np.array(array, order="C", copy=True), allow_pickle=False)
    return buffer.getvalue()


def save_agent(
    path: str | os.PathLike[str],
    agent: FileAgent,
    *,
    episodes: int,
    seed: int,
    hyperparameters: dict[str, Any],
    checkpoint: dict[str, Any] | None = None,
    state: dict[str, npt.NDArray[Any]] | None = None,
) -> Path:
    """Write a table or network agent to ``path`` atomically; returns the path written.

    ``checkpoint`` (what the trainer needs to resume) goes into the header, and ``state``
    (a network trainer's arrays, ``state.NNN``) beside the parameters; a checkpoint is still
    an ordinary agent file.
    """
    fields: dict[str, Any] = {
        "algorithm": agent.algorithm,
        "board": agent.geometry.name,
        "episodes": int(episodes),
        "seed": int(seed),
        "hyperparameters": hyperparameters,
    }
    arrays: dict[str, npt.NDArray[Any]]
    if isinstance(agent, NetworkAgent):
        arrays = {k: np.asarray(v, dtype=np.float32) for k, v in agent.params.items()}
        arrays.update({k: np.asarray(v) for k, v in (state or {}).items()})
        fields |= {"seats": ["X", "O"], "symmetric": False}
        fields["network"] = agent.architecture.to_json()
    else:
        if state:
            raise AgentFileError("a table agent's checkpoint holds no arrays of training state")
        arrays = {"ids": agent.space.ids[agent.layout.rows].astype(np.int64)}
        arrays.update({k: np.asarray(v, dtype=np.float64) for k, v in agent.tables.items()})
        fields |= {"seats": [s.name for s in agent.seats], "symmetric": agent.symmetric}
    return _write_archive(Path(path), fields, arrays, checkpoint)


def _write_archive(
    target: Path,
    fields: dict[str, Any],
    arrays: dict[str, npt.NDArray[Any]],
    checkpoint: dict[str, Any] | None,
) -> Path:
    """Write the header (``fields`` plus what every file has) and the arrays atomically."""
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise AgentFileError(f"cannot write {target}: folder {folder} does not exist")
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        **fields,
        "package_version": __version__,
        "tables": {k: list(v.shape) for k, v in arrays.items()},
        "checksum": _checksum(arrays),
    }
    if checkpoint is not None:
        header["checkpoint"] = checkpoint
    members = {"header.npy": np.array(json.dumps(header, sort_keys=True))}
    members.update({f"{k}.npy": v for k, v in arrays.items()})

    def write(handle: BinaryIO) -> None:
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, array in members.items():
                info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, _npy_bytes(array))

    try:
        return write_atomically(target, write)
    except OSError as error:
        raise AgentFileError(f"cannot write {target}: {error.strerror or error}") from None


def check_board(board: Geometry, source: object, geometry: Geometry | None) -> None:
    """Refuse an agent for ``board`` where ``geometry`` is wanted (None: any board)."""
    if geometry is not None and board != geometry:
        raise AgentFileError(
            f"{source} is an agent for {board.name}, not {geometry.name} "
            f"(pass --board {board.rows}x{board.cols} --k {board.k})"
        )


def _read_npy_header(stream: Any, name: str) -> tuple[tuple[int, ...], np.dtype[Any]]:
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise AgentFileError(f"{name} has an unsupported array format {version}")
    except AgentFileError:
        raise
    except Exception as error:  # numpy parses the header text: any failure means damage
        raise AgentFileError(f"{name} is not a valid numpy array ({error})") from None
    if fortran:
        raise AgentFileError(f"{name} is stored in Fortran order, which tttlab never writes")
    if dtype.hasobject:
        raise AgentFileError(f"{name} holds Python objects; agent files never do (no pickle)")
    return tuple(int(d) for d in shape), dtype


def _read_member(
    archive: zipfile.ZipFile, name: str, shape: tuple[int, ...] | None, kinds: str
) -> npt.NDArray[Any]:
    """Read one array after checking its dtype kind and shape from its header alone."""
    info = archive.getinfo(name)
    with archive.open(info) as stream:
        found_shape, dtype = _read_npy_header(stream, name)
        if dtype.kind not in kinds:
            raise AgentFileError(f"{name} has dtype {dtype}, expected kind {kinds!r}")
        if shape is not None and found_shape != shape:
            raise AgentFileError(f"{name} has shape {found_shape}, expected {shape}")
        count = int(np.prod(found_shape, dtype=np.int64))
        if count * dtype.itemsize > MAX_FILE_BYTES:
            raise AgentFileError(f"{name} is larger than agent files may be")
        data = stream.read(count * dtype.itemsize + 1)
    if len(data) != count * dtype.itemsize:
        raise AgentFileError(f"{name} is truncated")
    return np.frombuffer(data, dtype=dtype).reshape(found_shape).copy()


def _field(header: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in header:
        raise AgentFileError(f"header has no {key!r}")
    value = header[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise AgentFileError(f"header field {key!r} has the wrong type")
    return value


def load_agent_file(path: str | os.PathLike[str], geometry: Geometry | None = None) -> FileAgent:
    """Load and validate an agent file. With ``geometry``, the file must be for that board."""
    source = Path(path)
    if not source.exists():
        raise AgentFileError(f"no agent file at {source}")
    if not source.is_file():
        raise AgentFileError(f"{source} is not a file")
    size = source.stat().st_size
    if size == 0:
        raise AgentFileError(f"{source} is empty")
    if size > MAX_FILE_BYTES:
        raise AgentFileError(
            f"{source} is {size:,} bytes; agent files are at most {MAX_FILE_BYTES:,}"
        )
    try:
        with zipfile.ZipFile(source) as archive:
            return _load(archive, source, geometry)
    except zipfile.BadZipFile:
        raise AgentFileError(
            f"{source} is not a tttlab agent file (not an .npz archive, or truncated)"
        ) from None
    except AgentFileError:
        raise
    except Exception as error:
        # raise many kinds of errors on damage (NotImplementedError, EOFError, zlib.error...)
        raise AgentFileError(f"{source} is damaged ({type(error).__name__}: {error})") from None


def _load(archive: zipfile.ZipFile, source: Path, geometry: Geometry | None) -> FileAgent:
    names = set(archive.namelist())
    if "header.npy" not in names:
        raise AgentFileError(f"{source} is not a tttlab agent file (no header)")
    if archive.getinfo("header.npy").file_size > _MAX_HEADER_BYTES:
        raise AgentFileError(f"{source} has an oversized header")
    raw = _read_member(archive, "header.npy", (), "U")
    try:
        header = json.loads(str(raw[()]))
    except json.JSONDecodeError:
        raise AgentFileError(f"{source} has a header that is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise AgentFileError(f"{source} is not a tttlab agent file (format field)")
    version = _field(header, "format_version", int)
    if version != FORMAT_VERSION:
        raise AgentFileError(
            f"{source} has format version {version}; this tttlab reads version {FORMAT_VERSION}"
        )
    algorithm = _field(header, "algorithm", str)
    if algorithm not in TABLE_KINDS and algorithm not in NETWORK_KINDS:
        raise AgentFileError(f"{source} names an unknown algorithm {algorithm!r}")
    try:
        board = Geometry.parse(_field(header, "board", str))
    except GeometryError as error:
        raise AgentFileError(f"{source} has a bad board: {error}") from None
    check_board(board, source, geometry)
    seats_raw = _field(header, "seats", list)
    if not seats_raw or not set(seats_raw) <= {"X", "O"} or len(set(seats_raw)) != len(seats_raw):
        raise AgentFileError(f"{source} has bad seats {seats_raw!r}")
    seats = tuple(Player[s] for s in ("X", "O") if s in seats_raw)
    for key in ("episodes", "seed"):
        if _field(header, key, int) < 0:
            raise AgentFileError(f"{source} has a negative {key}")
    hyper = _field(header, "hyperparameters", dict)
    symmetric = _field(header, "symmetric", bool)
    _field(header, "checksum", str)
    if algorithm in NETWORK_KINDS:
        return _load_network(archive, source, header, algorithm, board, names)

    try:
        space = state_space(board)
    except StateSpaceTooLarge as error:
        raise AgentFileError(f"{source}: {error}") from None
    layout = table_layout(space, symmetric)
    n, cells = layout.size, board.cells
    kind = TABLE_KINDS[algorithm]
    expected: dict[str, tuple[int, ...]] = {"ids": (n,)}
    if kind == "V":
        expected["V"] = (2, n)
    else:
        expected["Q"] = (2 if algorithm == "double-q" else 1, n, cells)
    wanted = {f"{k}.npy" for k in expected} | {"header.npy"}
    if names != wanted:
        missing, extra = wanted - names, names - wanted
        detail = f"missing {sorted(missing)}" if missing else f"unexpected {sorted(extra)}"
        raise AgentFileError(f"{source} does not hold the arrays of a {algorithm} agent: {detail}")
    arrays = {
        k: _read_member(archive, f"{k}.npy", shape, "i" if k == "ids" else "f")
        for k, shape in expected.items()
    }
    if not np.array_equal(arrays["ids"], space.ids[layout.rows]):
        raise AgentFileError(f"{source} was built for other positions than {board.name}'s")
    if _checksum(arrays) != header["checksum"]:
        raise AgentFileError(f"{source} is corrupted (checksum mismatch)")
    tables = {k: v.astype(np.float64) for k, v in arrays.items() if k != "ids"}
    for name, table in tables.items():
        if not np.isfinite(table).all():
            raise AgentFileError(f"{source} has non-finite values in {name}")
    label = source.name
    return LearnedAgent(
        algorithm=algorithm,
        geometry=board,
        seats=seats,
        tables=tables,
        meta={**header, "hyperparameters": hyper},
        label=label,
        symmetric=symmetric,
    )


def _load_network(
    archive: zipfile.ZipFile,
    source: Path,
    header: dict[str, Any],
    algorithm: str,
    board: Geometry,
    names: set[str],
) -> NetworkAgent:
    try:
        architecture = Architecture.from_json(header.get("network"))
    except ValueError as error:
        raise AgentFileError(f"{source} has a bad network description: {error}") from None
    if architecture.cells != board.cells:
        raise AgentFileError(f"{source} holds a network for another board size")
    if architecture.head != NETWORK_KINDS[algorithm]:
        raise AgentFileError(f"{source} holds the wrong kind of network for {algorithm}")
    shapes = architecture.shapes()
    state = {n[: -len(".npy")] for n in names if n.startswith("state.")}
    if state and not isinstance(header.get("checkpoint"), dict):
        raise AgentFileError(f"{source} holds training state but is not a checkpoint")
    wanted = {f"{k}.npy" for k in shapes} | {"header.npy"} | {f"{k}.npy" for k in state}
    if names != wanted:
        missing, extra = wanted - names, names - wanted
        detail = f"missing {sorted(missing)}" if missing else f"unexpected {sorted(extra)}"
        raise AgentFileError(f"{source} does not hold the arrays of its network: {detail}")
    arrays = {k: _read_member(archive, f"{k}.npy", shape, "f") for k, shape in shapes.items()}
    arrays.update({k: _read_member(archive, f"{k}.npy", None, "fiub") for k in sorted(state)})
    if _checksum(arrays) != header["checksum"]:
        raise AgentFileError(f"{source} is corrupted (checksum mismatch)")
    params = {k: arrays[k].astype(np.float32) for k in shapes}
    for name, array in params.items():
        if not np.isfinite(array).all():
            raise AgentFileError(f"{source} has non-finite values in {name}")
    meta = dict(header)
    if state:
        meta["state"] = {k: arrays[k] for k in state}
    return NetworkAgent(
        algorithm=algorithm,
        geometry=board,
        architecture=architecture,
        params=params,
        meta=meta,
        label=source.name,
    )

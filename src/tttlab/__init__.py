"""tttlab: learn, solve and play tic-tac-toe and its m,n,k cousins."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tttlab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]

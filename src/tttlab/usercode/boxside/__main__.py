"""The box's entry point: ``python -I -B __main__.py caller|worker JOB.json``.

Loads this folder as the package ``_ttt_check`` (a name no student's module can shadow),
then runs the caller or the worker."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys


def _package() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "_ttt_check", os.path.join(here, "__init__.py"), submodule_search_locations=[here]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the box's package from {here}")
    package = importlib.util.module_from_spec(spec)
    sys.modules["_ttt_check"] = package
    spec.loader.exec_module(package)


if __name__ == "__main__":
    role, *rest = sys.argv[1:] or ["?"]
    if role not in ("caller", "worker"):
        sys.exit(f"usage: {sys.argv[0]} caller|worker JOB.json")
    if __package__:  # run in the tree (python -m): the package is already there
        entry = importlib.import_module(f"{__package__}.{role}")
    else:
        _package()
        entry = importlib.import_module(f"_ttt_check.{role}")
    sys.exit(entry.main(rest))

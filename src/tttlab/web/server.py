"""The application uvicorn imports in each worker; ``ttt serve`` passes the agents folder
through the ``TTTLAB_AGENTS_DIR`` environment variable."""

from __future__ import annotations

import os
from pathlib import Path

from tttlab.web.app import create_app

_folder = os.environ.get("TTTLAB_AGENTS_DIR")
app = create_app(Path(_folder) if _folder else None)

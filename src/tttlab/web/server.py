"""The application uvicorn imports in each worker; ``ttt serve`` passes its options through
the environment (``TTTLAB_AGENTS_DIR``, ``TTTLAB_JOBS``, ``TTTLAB_MAX_EPISODES``)."""

from __future__ import annotations

import os
from pathlib import Path

from tttlab.web.app import MAX_EPISODES, create_app

_folder = os.environ.get("TTTLAB_AGENTS_DIR")
app = create_app(
    Path(_folder) if _folder else None,
    jobs=int(os.environ.get("TTTLAB_JOBS", "1")),
    max_episodes=int(os.environ.get("TTTLAB_MAX_EPISODES", str(MAX_EPISODES))),
)

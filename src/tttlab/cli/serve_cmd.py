"""``ttt serve``: the web page and its JSON API under uvicorn."""

from __future__ import annotations

from pathlib import Path

import click

from tttlab.cli.common import err


@click.command("serve")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. The default serves this machine only; "
    "0.0.0.0 exposes the page and its API to every network this machine is on, "
    "with no login: anyone who can reach the port can use it.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--agents",
    "agents_dir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Folder of agent files (*.npz) to offer on the page.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Worker processes (the server keeps no game state, so any number works).",
)
def serve_command(host: str, port: int, agents_dir: Path | None, workers: int) -> None:
    """Serve the page to play and inspect agents (FastAPI + uvicorn)."""
    import os

    import uvicorn

    if agents_dir is not None:
        os.environ["TTTLAB_AGENTS_DIR"] = str(agents_dir.resolve())
    else:
        os.environ.pop("TTTLAB_AGENTS_DIR", None)
    err.print(f"tttlab: serving on http://{host}:{port}/ (Ctrl-C stops)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        err.print("[yellow]Warning: this address may expose the page to other machines.[/]")
    uvicorn.run(
        "tttlab.web.server:app",
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        limit_concurrency=200,
        timeout_keep_alive=5,
    )

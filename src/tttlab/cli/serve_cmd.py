"""``ttt serve``: the web page and its JSON API under uvicorn."""

from __future__ import annotations

import os
from pathlib import Path

import click

from tttlab.cli.common import CommandError, err, shown_option
from tttlab.limits import SERVER_TRAINING_EPISODES


def default_agents_dir() -> Path:
    """Where ``ttt serve`` keeps agents without ``--agents``: ``$XDG_DATA_HOME/tttlab/agents``,
    that is ``~/.local/share/tttlab/agents`` by default (never the package's folder)."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "tttlab" / "agents"


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
    help="Folder of agent files (*.npz) to offer on the page; trained agents are saved "
    "here. Default: $XDG_DATA_HOME/tttlab/agents (~/.local/share/tttlab/agents).",
)
@click.option(
    "--jobs",
    type=click.IntRange(0, 16),
    default=None,
    help="Training jobs that may run at once (default 1; 0 turns training off; "
    "--workers above 1 turns it off, as jobs live in the process that started them).",
)
@shown_option(
    "--max-episodes",
    click.IntRange(min=1),
    SERVER_TRAINING_EPISODES,
    "Episodes one training job may ask for.",
)
@shown_option(
    "--workers",
    click.IntRange(1, 64),
    1,
    "Worker processes (the server keeps no game state, so any number works).",
)
def serve_command(
    host: str,
    port: int,
    agents_dir: Path | None,
    jobs: int | None,
    max_episodes: int,
    workers: int,
) -> None:
    """Serve the lab: train, play, inspect and compare agents (FastAPI + uvicorn)."""
    import uvicorn

    if jobs is not None and jobs > 0 and workers > 1:
        raise CommandError("--jobs needs --workers 1: a job lives in the process that started it")
    if agents_dir is None:
        agents_dir = default_agents_dir()
        try:
            agents_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CommandError(
                f"cannot create {agents_dir} ({error.strerror or error}); pass --agents DIR"
            ) from None
    os.environ["TTTLAB_AGENTS_DIR"] = str(agents_dir.resolve())
    os.environ["TTTLAB_JOBS"] = str(0 if workers > 1 else (1 if jobs is None else jobs))
    os.environ["TTTLAB_MAX_EPISODES"] = str(max_episodes)
    err.print(f"tttlab: serving on http://{host}:{port}/ (Ctrl-C stops); agents in {agents_dir}")
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

"""An IPython shell in this process whose history the tests fill: each cell is run as a
kernel runs it (its input stored), so ``%ttt_check`` sees what a notebook's kernel sees."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


class Kernel:
    """Cells run in a fresh history of the process's IPython shell."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell

    def run(self, source: str) -> Any:
        """Run one cell; its result (what the cell's last expression gave)."""
        done = self.shell.run_cell(source, store_history=True)
        return done.result


@pytest.fixture
def kernel() -> Iterator[Kernel]:
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    shell.history_manager.reset()
    shell.execution_count = 1
    yield Kernel(shell)
    shell.history_manager.reset()
    shell.reset(new_session=True)

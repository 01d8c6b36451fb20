"""The ``ttt`` console script. Kept tiny so that Ctrl-C while the heavy modules import
still ends with one line and exit code 130, not a traceback."""

from __future__ import annotations

import sys


def run() -> None:
    try:
        from tttlab.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("ttt: interrupted\n")
        sys.exit(130)
    sys.exit(main())

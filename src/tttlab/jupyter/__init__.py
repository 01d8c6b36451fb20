"""``ttt check`` from inside a notebook: ``%load_ext tttlab``, then ``%ttt_check`` grades the
cells run so far, in its box, and shows the report in the notebook (:mod:`.magics`; the
extension's entry point is ``tttlab.load_ipython_extension``); a teacher's hidden test cell
grades them with :func:`~.cells.assert_passes` (the nbgrader recipe in the grading guide).

Layer: beside the command line and the web page (the magic takes ``ttt check``'s options
from the command). IPython is imported only by what runs in a kernel.
"""

from __future__ import annotations

from tttlab.jupyter.cells import assert_passes, check_cells

__all__ = ["assert_passes", "check_cells"]

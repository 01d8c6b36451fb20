"""The box side of ``ttt check``: the only code copied into a submission's box, standard
library only (it imports nothing of tttlab, and tttlab is not in the box).

Inside the box run two processes (:mod:`.caller`, :mod:`.worker`):

- the **caller** owns the results channel to the grader. It starts the worker, sends it one
  call at a time, and times each call from outside: the whole call, the student's function
  and the turning of its value into an answer. When a call runs out of time it ends the
  worker and starts another. It writes every line of the channel itself.
- the **worker** imports the student's code and answers the caller's questions, one at a
  time. The student's code runs in it, so it can spoil its own answers, but it cannot write
  the channel, move the clock, end a check, or answer another call (each question carries a
  fresh random number that its answer must repeat).

:mod:`.schema` declares the protocol once: the caller writes it, the grader
(:mod:`tttlab.usercode.protocol`) reads it. :mod:`.shapes` holds each exercise's side in the
box: how a case becomes a call of the student's code and its value an answer.

In the box the package is loaded under the name ``_ttt_check``, which no student's module
can shadow; the entry point is ``__main__.py`` (``python -I -B __main__.py caller JOB``).
"""

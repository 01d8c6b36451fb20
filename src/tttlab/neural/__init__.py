"""Learning beyond the table (the ``neural`` extra): networks in equinox, AlphaZero with
mctx, trained with optax on :mod:`tttlab.vector`."""

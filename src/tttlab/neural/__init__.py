"""Learning beyond the table (the ``neural`` extra): networks in equinox, AlphaZero with
mctx, DQN and PPO, trained with optax on :mod:`tttlab.vector`.

Importing it turns on JAX's persistent compilation cache, in ``jax/`` beside the table cache
(``$TTTLAB_CACHE_DIR``, see :mod:`tttlab.game.tablecache`), unless the cache is off or
``JAX_COMPILATION_CACHE_DIR`` chooses another folder: a second run of the same learner on the
same board loads its compiled programs instead of compiling them again, every one of them,
however quick (``ttt train alphazero --episodes 1024 --batch 128``: 16.2 s, then 7.4 s, on
this 2-core machine with another job beside it; 9.1 s when only programs that took 0.5 s
to compile were kept). Compiled code is the same either way, so the same seed still gives
the same file.
"""

from __future__ import annotations

import os

__all__: list[str] = []


def _persistent_compilation_cache() -> None:
    if os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return
    from tttlab.game.tablecache import cache_dir

    folder = cache_dir()
    if folder is None:
        return
    import jax

    jax.config.update("jax_compilation_cache_dir", str(folder / "jax"))  # type: ignore[no-untyped-call]
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)  # type: ignore[no-untyped-call]


_persistent_compilation_cache()

"""The networks in equinox, and their exchange with the plain arrays of agent files.

Equinox rather than flax: an equinox model *is* a pytree of arrays, so optax trains it
directly, ``jax.vmap`` maps it, and turning it into the named float32 arrays of an agent
file (and back) is a walk over its layers, with no framework state, variable collections
or serialisation library between. It is also the lighter install (flax brings orbax and
tensorstore).

The numpy forward pass in :mod:`tttlab.agents.network` computes the same function; a test
holds the two to agree.
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from tttlab.agents.network import Architecture, Params

__all__ = ["Network", "from_params", "init_network", "to_params"]


class Network(eqx.Module):
    """A multilayer perceptron over the flattened observation, with a policy-and-value
    head (AlphaZero) or an action-value head (DQN). Call it on one observation; vmap it
    over a batch."""

    torso: list[eqx.nn.Linear]
    heads: list[eqx.nn.Linear]
    head: str = eqx.field(static=True)

    def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = x.reshape(-1).astype(jnp.float32)
        for layer in self.torso:
            h = jax.nn.relu(layer(h))
        if self.head == "q":
            return self.heads[0](h), jnp.zeros(())
        return self.heads[0](h), jnp.tanh(self.heads[1](h)[0])


def init_network(architecture: Architecture, key: jax.Array) -> Network:
    """A freshly initialised network (equinox's default initialisation)."""
    widths = [2 * architecture.cells, *architecture.hidden]
    keys = jax.random.split(key, len(architecture.hidden) + 2)
    torso = [eqx.nn.Linear(a, b, key=k) for a, b, k in zip(widths, widths[1:], keys, strict=False)]
    last = widths[-1]
    if architecture.head == "q":
        heads = [eqx.nn.Linear(last, architecture.cells, key=keys[-2])]
    else:
        heads = [
            eqx.nn.Linear(last, architecture.cells, key=keys[-2]),
            eqx.nn.Linear(last, 1, key=keys[-1]),
        ]
    return Network(torso=torso, heads=heads, head=architecture.head)


def _names(architecture: Architecture) -> list[tuple[str, str]]:
    heads = ["q"] if architecture.head == "q" else ["policy", "value"]
    return [(f"torso.{i}", "torso") for i in range(len(architecture.hidden))] + [
        (name, "heads") for name in heads
    ]


def to_params(architecture: Architecture, network: Network) -> Params:
    """The network's parameters as named float32 numpy arrays (an agent file's arrays)."""
    params: Params = {}
    layers = [*network.torso, *network.heads]
    for (name, _), layer in zip(_names(architecture), layers, strict=True):
        params[f"{name}.weight"] = np.asarray(layer.weight, dtype=np.float32)
        assert layer.bias is not None
        params[f"{name}.bias"] = np.asarray(layer.bias, dtype=np.float32)
    return params


def from_params(architecture: Architecture, params: dict[str, Any]) -> Network:
    """The network holding these named arrays (as :func:`to_params` gives them)."""
    network = init_network(architecture, jax.random.PRNGKey(0))
    layers = [*network.torso, *network.heads]
    filled = []
    for (name, _), layer in zip(_names(architecture), layers, strict=True):
        weight = jnp.asarray(params[f"{name}.weight"], jnp.float32)
        bias = jnp.asarray(params[f"{name}.bias"], jnp.float32)
        filled.append(eqx.tree_at(lambda lay: (lay.weight, lay.bias), layer, (weight, bias)))
    n = len(network.torso)
    return Network(torso=filled[:n], heads=filled[n:], head=network.head)

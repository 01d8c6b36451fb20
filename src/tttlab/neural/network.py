"""The networks in equinox, and their exchange with the plain arrays of agent files.

Equinox rather than flax: an equinox model *is* a pytree of arrays, so optax trains it
directly, ``jax.vmap`` maps it, and turning it into the named float32 arrays of an agent
file (and back) is a walk over its layers, with no framework state, variable collections
or serialisation library between. It is also the lighter install (flax brings orbax and
tensorstore).

The numpy forward pass in :mod:`tttlab.agents.forward` computes the same function; a test
holds the two to agree.
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from tttlab.agents.forward import Architecture, Params, neighbourhoods

__all__ = ["Network", "from_params", "init_network", "to_params"]


class Network(eqx.Module):
    """A multilayer perceptron over the flattened observation (after the 3×3 convolutions
    of ``conv``, if any), with a policy-and-value head (AlphaZero) or an action-value head
    (DQN). Call it on one observation; vmap it over a batch.

    A convolution is a linear layer applied at every cell to its 3×3 patch (zero beyond the
    board), gathered by :func:`tttlab.agents.forward.neighbourhoods`: the numpy forward pass
    does the same, so the two agree to float rounding."""

    torso: list[eqx.nn.Linear]
    heads: list[eqx.nn.Linear]
    head: str = eqx.field(static=True)
    conv: list[eqx.nn.Linear] = eqx.field(default_factory=list)
    around: tuple[tuple[int, ...], ...] = eqx.field(static=True, default=())

    def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = x.reshape(-1).astype(jnp.float32)
        if self.conv:
            around = jnp.asarray(self.around)
            planes = h.reshape(len(self.around), -1)
            for layer in self.conv:
                padded = jnp.concatenate([planes, jnp.zeros_like(planes[:1])])
                patches = padded[around].reshape(len(self.around), -1)
                planes = jax.nn.relu(jax.vmap(layer)(patches))
            h = planes.reshape(-1)
        for layer in self.torso:
            h = jax.nn.relu(layer(h))
        if self.head == "q":
            return self.heads[0](h), jnp.zeros(())
        return self.heads[0](h), jnp.tanh(self.heads[1](h)[0])


def init_network(architecture: Architecture, key: jax.Array) -> Network:
    """A freshly initialised network (equinox's default initialisation)."""
    cells = architecture.cells
    planes = [2, *architecture.conv]
    widths = [planes[-1] * cells, *architecture.hidden]
    keys = jax.random.split(key, len(architecture.hidden) + 2)
    torso = [eqx.nn.Linear(a, b, key=k) for a, b, k in zip(widths, widths[1:], keys, strict=False)]
    # The convolutions' keys come after the perceptron's, so a perceptron alone is
    # initialised as it was before convolutions existed.
    conv_keys = jax.random.split(jax.random.fold_in(key, 1), len(architecture.conv))
    conv = [
        eqx.nn.Linear(9 * a, b, key=k)
        for a, b, k in zip(planes, planes[1:], conv_keys, strict=False)
    ]
    around = (
        tuple(map(tuple, neighbourhoods(cells, architecture.columns).tolist()))
        if architecture.conv
        else ()
    )
    last = widths[-1]
    if architecture.head == "q":
        heads = [eqx.nn.Linear(last, architecture.cells, key=keys[-2])]
    else:
        heads = [
            eqx.nn.Linear(last, architecture.cells, key=keys[-2]),
            eqx.nn.Linear(last, 1, key=keys[-1]),
        ]
    return Network(torso=torso, heads=heads, head=architecture.head, conv=conv, around=around)


def _names(architecture: Architecture) -> list[str]:
    """The layers' names, in the order of :func:`_layers`."""
    heads = ["q"] if architecture.head == "q" else ["policy", "value"]
    return [
        *(f"conv.{i}" for i in range(len(architecture.conv))),
        *(f"torso.{i}" for i in range(len(architecture.hidden))),
        *heads,
    ]


def _layers(network: Network) -> list[eqx.nn.Linear]:
    return [*network.conv, *network.torso, *network.heads]


def to_params(architecture: Architecture, network: Network) -> Params:
    """The network's parameters as named float32 numpy arrays (an agent file's arrays)."""
    params: Params = {}
    for name, layer in zip(_names(architecture), _layers(network), strict=True):
        params[f"{name}.weight"] = np.asarray(layer.weight, dtype=np.float32)
        assert layer.bias is not None
        params[f"{name}.bias"] = np.asarray(layer.bias, dtype=np.float32)
    return params


def from_params(architecture: Architecture, params: dict[str, Any]) -> Network:
    """The network holding these named arrays (as :func:`to_params` gives them)."""
    network = init_network(architecture, jax.random.PRNGKey(0))
    filled = []
    for name, layer in zip(_names(architecture), _layers(network), strict=True):
        weight = jnp.asarray(params[f"{name}.weight"], jnp.float32)
        bias = jnp.asarray(params[f"{name}.bias"], jnp.float32)
        filled.append(eqx.tree_at(lambda lay: (lay.weight, lay.bias), layer, (weight, bias)))
    c, t = len(network.conv), len(network.torso)
    return Network(
        torso=filled[c : c + t],
        heads=filled[c + t :],
        head=network.head,
        conv=filled[:c],
        around=network.around,
    )

import pytest

pytest.importorskip("jax", reason="the neural extra is not installed")

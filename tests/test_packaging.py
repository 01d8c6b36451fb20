"""The sdist and the wheel: built from the sources, complete, and working once installed into a
fresh virtual environment, away from the source tree."""

from __future__ import annotations

import email
import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

pytest.importorskip("build", reason="the dev extras are not installed")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build``: the sdist, then the wheel built from the sdist (so a file the
    sdist leaves out breaks the wheel). The dev extras hold the build backend, so no
    isolated environment is downloaded."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return out


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("tttlab-*.whl")
    return wheel


def test_the_wheel_holds_the_package_data(dist: Path) -> None:
    names = set(zipfile.ZipFile(_wheel(dist)).namelist())
    for needed in (
        "tttlab/py.typed",
        "tttlab/web/static/index.html",
        "tttlab/web/static/vendor/uplot/uPlot.iife.min.js",
        "tttlab/web/static/vendor/uplot/uPlot.min.css",
        "tttlab/web/static/vendor/uplot/LICENSE",
        "tttlab/cli/__init__.py",
    ):
        assert needed in names, needed
    assert not any("__pycache__" in name or name.startswith("tests/") for name in names)


def test_the_metadata_is_complete(dist: Path) -> None:
    with zipfile.ZipFile(_wheel(dist)) as wheel:
        (path,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        meta = email.message_from_bytes(wheel.read(path))
    assert meta["Name"] == "tttlab"
    assert meta["Version"] == PYPROJECT["version"]
    assert meta["Summary"] == PYPROJECT["description"]
    assert meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.11"
    assert len(meta.get_all("Classifier")) >= 10
    assert meta["Description-Content-Type"] == "text/markdown"
    assert "# tttlab" in meta.get_payload()  # the README is the long description
    requires = meta.get_all("Requires-Dist")
    for dependency in PYPROJECT["dependencies"]:
        assert dependency in requires
    extras = set(meta.get_all("Provides-Extra"))
    assert {"envs", "neural", "distributed", "docs", "sb3", "dev"} <= extras


def test_the_sdist_builds_everything(dist: Path) -> None:
    (sdist,) = dist.glob("tttlab-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "mkdocs.yml"):
        assert needed in names
    assert "src/tttlab/web/static/index.html" in names
    assert any(name.startswith("notebooks/") for name in names)


def test_the_wheel_installs_and_runs_in_a_fresh_environment(dist: Path, tmp_path: Path) -> None:
    """A new virtual environment gets the wheel (``pip install --no-deps``); its
    dependencies are the ones this environment already has, reached by a path file rather
    than downloaded again. The source tree is on no path: ``tttlab`` must come from the
    wheel, with its web page and ``py.typed``."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", "--no-index", str(_wheel(dist))],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    # the dependencies: this environment's site-packages, after the new one's (a path file
    # adds a folder, it does not run the editable install's own path files there)
    (Path(site) / "_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run(
        [str(python), "-c",
         "import tttlab, importlib.resources as r; print(tttlab.__file__); "
         "print(r.files('tttlab.web').joinpath('static/index.html').is_file()); "
         "print(r.files('tttlab').joinpath('py.typed').is_file()); print(tttlab.__version__)"],
        cwd=tmp_path, env=env, check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    assert where[0].startswith(site)
    assert str(ROOT) not in where[0]
    assert where[1:] == ["True", "True", PYPROJECT["version"]]
    ttt = venv / "bin" / "ttt"
    demo = subprocess.run([str(ttt), "demo", "--seed", "1"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert demo.returncode == 0, demo.stderr
    assert "255,168" in demo.stdout  # the solve's game count
    assert "Result:" in demo.stdout  # the game against random
    solved = subprocess.run([str(ttt), "solve", "--json"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["positions"] == 5478

#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu).
# Put tttlab's wheel beside this file in the autograder's zip (`python -m build --wheel`
# in a clone of tttlab makes it); it is installed from there, with its dependencies.
set -euo pipefail
apt-get install -y -qq python3-venv bubblewrap
python3 -m venv /opt/tttlab
/opt/tttlab/bin/pip install --quiet /autograder/source/tttlab-*.whl

#!/usr/bin/env bash
# The main job: sets up everything, then opens the example notebooks in JupyterLab (it prints the URL;
# pass --no-browser on a machine without a browser). With --html PATH it instead writes the interactive
# offline demo page (no kernel, no network needed to open it).
# Usage: bash examples/launch.sh [--html demo.html] [jupyter lab options such as --no-browser --port 8888]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../.ci/setup.sh"

if [ "${1:-}" = "--html" ]; then
    out="${2:-micrograd-widget-demo.html}"
    .venv/bin/python -m micrograd_widget.demo "$out"
    exit 0
fi
say "opening examples/ in JupyterLab (Ctrl-C to stop)"
lab_args=(--notebook-dir="$MGW_ROOT/examples")
[ "$(id -u)" = 0 ] && lab_args+=(--allow-root)   # JupyterLab refuses to start as root without it (containers)
exec .venv/bin/python -m jupyter lab "${lab_args[@]}" "$@"

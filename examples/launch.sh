#!/usr/bin/env bash
# The main job: sets up everything (a second run skips what is up to date), then opens the example notebooks in
# JupyterLab (it prints the URL; pass --no-browser on a machine without a browser). They open from my-notebooks/, a
# git-ignored working copy of examples/, so running and saving them leaves the repository as it was. With --html PATH
# it instead writes the interactive offline demo page (no kernel, no network needed to open it) to PATH, taken from
# the folder you run it in. With --lite DIR it builds a JupyterLite site of examples/ into DIR (Python runs in the
# learner's browser; every file it needs is fetched now, so any static web server can serve DIR, offline).
# Usage: bash examples/launch.sh [--html demo.html | --lite DIR] [jupyter lab options such as --no-browser --port 8888]
set -euo pipefail
caller_dir="$PWD"   # setup.sh moves to the repository; a PATH given here is the caller's
if [ "${1:-}" = "--lite" ]; then
    source "$(dirname "${BASH_SOURCE[0]}")/../.ci/setup.sh" --lite
else
    source "$(dirname "${BASH_SOURCE[0]}")/../.ci/setup.sh"
fi

if [ "${1:-}" = "--lite" ]; then
    [ "$#" -eq 2 ] || die "--lite takes one DIR (the folder to build the JupyterLite site into); got: ${*:2}"
    cd "$caller_dir"
    exec "$MGW_ROOT/.venv/bin/python" -m micrograd_widget.host.lite "$2"
fi

if [ "${1:-}" = "--html" ]; then
    [ "$#" -le 2 ] || die "--html takes one PATH (the page to write); also got: ${*:3}"
    out="${2:-micrograd-widget-demo.html}"
    cd "$caller_dir"
    exec "$MGW_ROOT/.venv/bin/python" -m micrograd_widget.host.demo "$out"
fi

# my-notebooks/: each example is copied in when missing, and copied again when the example has changed and the copy
# has not (my-notebooks/.copied/ keeps the sha256 of each example as copied); a copy the learner changed is kept.
work="$MGW_ROOT/my-notebooks"
mkdir -p "$work/.copied"
for example in "$MGW_ROOT"/examples/*.ipynb; do
    name="$(basename "$example")"
    copy="$work/$name"
    made="$work/.copied/$name.sha256"
    now="$(sha256sum < "$example")"
    if [ -e "$copy" ]; then
        # the learner's own file of that name, or nothing new in the example: leave the copy as it is
        if [ ! -f "$made" ] || [ "$now" = "$(cat "$made")" ]; then continue; fi
        if [ "$(sha256sum < "$copy")" != "$(cat "$made")" ]; then
            say "examples/$name has changed since my-notebooks/$name was copied from it; your copy has your changes," \
                "so it is kept (delete it to get the new example)"
            continue
        fi
    fi
    cp "$example" "$copy"
    printf '%s\n' "$now" > "$made"
done

say "opening my-notebooks/ (copies of examples/) in JupyterLab (Ctrl-C to stop)"
lab_args=(--notebook-dir="$work")
[ "$(id -u)" = 0 ] && lab_args+=(--allow-root)   # JupyterLab refuses to start as root without it (containers)
exec .venv/bin/python -m jupyter lab "${lab_args[@]}" "$@"

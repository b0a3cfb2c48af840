#!/usr/bin/env bash
# Sets up everything micrograd-widget needs, idempotently: system packages, .venv, the JS build. A step whose inputs
# and results are as its last successful run left them is skipped (stamps in .ci/stamps/, git-ignored), so a second
# launch starts at once; anything changed or missing runs the step again.
# Sourced by tests/run.sh (the test command) and examples/launch.sh (the main job); not run by hand.
# Usage: source .ci/setup.sh [--for-tests | --lite] (--lite: launch.sh --lite, which also needs the [lite] extra)
set -euo pipefail

MGW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$MGW_ROOT"
for_tests=0
[ "${1:-}" = "--for-tests" ] && for_tests=1
for_lite=0
[ "${1:-}" = "--lite" ] && for_lite=1

say() { printf '\033[1m[micrograd-widget]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[micrograd-widget] error:\033[0m %s\n' "$*" >&2; exit 1; }

# Stamps: a step records the fingerprint of what it depends on and what it made once it has succeeded; the next run
# skips the step when the fingerprint is the same. fingerprint FILE-OR-FOLDER...: sha256 of each file's path and
# bytes, sorted (a missing one shows as "missing").
stamps="$MGW_ROOT/.ci/stamps"
fingerprint() {
    local path
    for path in "$@"; do
        if [ -e "$path" ]; then
            find "$path" \( -path js/node_modules -o -name __pycache__ \) -prune -o -type f -print0 | LC_ALL=C sort -z \
                | xargs -0 -r sha256sum
        else
            echo "missing $path"
        fi
    done | sha256sum | cut -d' ' -f1
}
up_to_date() { [ -f "$stamps/$1" ] && [ "$(cat "$stamps/$1")" = "$2" ]; }   # up_to_date NAME FINGERPRINT
stamp() { mkdir -p "$stamps" && printf '%s\n' "$2" > "$stamps/$1"; }     # stamp NAME FINGERPRINT

# 1. System packages from Debian: Graphviz's `dot` renders the static SVG (the widget itself does not need it);
#    the tests also drive Debian's Chromium (a browser download is impossible on these machines).
apt_packages=()
command -v dot >/dev/null 2>&1 || apt_packages+=(graphviz)
if [ "$for_tests" = 1 ] && [ ! -x /usr/bin/chromium ]; then apt_packages+=(chromium); fi
if [ "${#apt_packages[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then sudo_cmd=()
    elif command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo)
    else sudo_cmd=(none)
    fi
    if [ "${sudo_cmd[0]:-}" != none ] && command -v apt-get >/dev/null 2>&1; then
        say "installing ${apt_packages[*]} with apt-get"
        "${sudo_cmd[@]}" apt-get update -qq
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_packages[@]}" >/dev/null
    elif [ "$for_tests" = 1 ]; then
        die "the tests need ${apt_packages[*]};" \
            "install them (e.g. 'sudo apt-get install ${apt_packages[*]}') and run again"
    else
        say "Graphviz's 'dot' is missing: static pictures fall back to a table (install graphviz for SVG);" \
            "the widget works without it"
    fi
fi

# 2. Python: a project-local virtual environment with the package (editable) and its extras.
PYTHON="${PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null \
    || die "Python 3.10+ is needed (set PYTHON=/path/to/python3.x); found: $("$PYTHON" --version 2>&1)"
if [ ! -x .venv/bin/python ]; then
    say "creating .venv"
    "$PYTHON" -m venv .venv
fi
extras=$([ "$for_tests" = 1 ] && echo "dev" || echo "demo")
[ "$for_lite" = 1 ] && extras="demo,lite"
# What the install depends on (this tree, the extras, pyproject.toml) and what it leaves: the packages in .venv
# (one folder per package and version) and the .pth files that point the editable install at a tree.
venv_fingerprint() {
    { echo "$MGW_ROOT [$extras]"; fingerprint pyproject.toml
      for site in .venv/lib/python*/site-packages; do
          echo "$site"; ls -1 "$site" 2>&1 || true; cat "$site"/*.pth 2>/dev/null || true
      done; } | sha256sum | cut -d' ' -f1
}
if up_to_date "venv-$extras" "$(venv_fingerprint)"; then
    say "micrograd-widget[$extras] in .venv is up to date"
else
    say "installing micrograd-widget[$extras] into .venv"
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$extras]"
    stamp "venv-$extras" "$(venv_fingerprint)"
fi

# 3. JavaScript: the widget bundle is built from js/ and committed in micrograd_widget/static/ (with js/core/ops.js and
#    js/core/shared.js, generated from ops.py and shared.py). The build is byte-reproducible, so the files as found and as
#    built are fingerprinted: the test command fails when they differ (the committed bundle was stale), in a clean
#    clone or not.
bundle_fingerprint() {  # a missing file is no error here: it shows as a difference
    { find micrograd_widget/static js/core/ops.js js/core/shared.js -type f -print0 2>/dev/null || true; } | LC_ALL=C sort -z \
        | xargs -0 -r sha256sum
}
command -v npm >/dev/null 2>&1 || die "node and npm are needed to build the widget from js/ (install Node.js 18+)"
bundle_before_build="$(bundle_fingerprint)"
# js/node_modules: npm ci installs package-lock.json's tree and records it in node_modules/.package-lock.json.
modules_fingerprint() {
    { node --version; fingerprint js/package.json js/package-lock.json js/node_modules/.package-lock.json; } \
        | sha256sum | cut -d' ' -f1
}
if up_to_date js-modules "$(modules_fingerprint)"; then
    say "js/node_modules is up to date"
else
    say "installing js/node_modules (npm ci)"
    npm --prefix js ci --no-audit --no-fund --loglevel=error >/dev/null
    stamp js-modules "$(modules_fingerprint)"
fi
# The build reads js/ (its sources and node_modules' tree) and micrograd_widget/*.py (the generators of js/core/ops.js and
# js/core/shared.js, run by .venv's Python) and writes micrograd_widget/static/, js/core/ops.js and js/core/shared.js. The test
# command always builds: it checks the committed bundle against a fresh build.
build_fingerprint() {
    { modules_fingerprint; cat "$stamps/venv-$extras"; fingerprint js micrograd_widget; } | sha256sum | cut -d' ' -f1
}
if [ "$for_tests" = 0 ] && up_to_date build "$(build_fingerprint)"; then
    say "the widget build is up to date"
else
    say "building the widget from js/"
    PATH="$MGW_ROOT/.venv/bin:$PATH" npm --prefix js run --silent build
    stamp build "$(build_fingerprint)"
fi
bundle_after_build="$(bundle_fingerprint)"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

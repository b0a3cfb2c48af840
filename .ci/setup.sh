#!/usr/bin/env bash
# Sets up everything micrograd-widget needs, idempotently: system packages, .venv, the JS build.
# Sourced by tests/run.sh (the test command) and examples/launch.sh (the main job); not run by hand.
# Usage: source .ci/setup.sh [--for-tests]
set -euo pipefail

MGW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$MGW_ROOT"
for_tests=0
[ "${1:-}" = "--for-tests" ] && for_tests=1

say() { printf '\033[1m[micrograd-widget]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[micrograd-widget] error:\033[0m %s\n' "$*" >&2; exit 1; }

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
say "installing micrograd-widget[$extras] into .venv"
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$extras]"

# 3. JavaScript: the widget bundle is built from js/ and committed in micrograd_widget/static/ (with js/ops.js and
#    js/shared.js, generated from ops.py and shared.py). The build is byte-reproducible, so the files as found and as
#    built are fingerprinted: the test command fails when they differ (the committed bundle was stale), in a clean
#    clone or not.
bundle_fingerprint() {  # a missing file is no error here: it shows as a difference
    { find micrograd_widget/static js/ops.js js/shared.js -type f -print0 2>/dev/null || true; } | LC_ALL=C sort -z \
        | xargs -0 -r sha256sum
}
command -v npm >/dev/null 2>&1 || die "node and npm are needed to build the widget from js/ (install Node.js 18+)"
bundle_before_build="$(bundle_fingerprint)"
say "building the widget from js/"
npm --prefix js ci --no-audit --no-fund --loglevel=error >/dev/null
PATH="$MGW_ROOT/.venv/bin:$PATH" npm --prefix js run --silent build
bundle_after_build="$(bundle_fingerprint)"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

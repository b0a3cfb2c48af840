#!/usr/bin/env bash
# The test command: sets up everything (system packages, .venv, the JS build) and runs every test:
# the JS unit tests, then pytest (engine, nn, tape, dot, display, widget, extension, examples, browser).
# Usage: bash tests/run.sh [extra pytest arguments]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../.ci/setup.sh" --for-tests

# The committed bundle must be exactly what js/ builds (CI checks a clean clone; locally, commit the rebuilt files).
if [ -n "${CI:-}" ] && git rev-parse --git-dir >/dev/null 2>&1; then
    git diff --exit-code --stat -- micrograd_widget/static js/ops.js \
        || die "micrograd_widget/static or js/ops.js differs from what js/ builds: rebuild (npm --prefix js run build) and commit"
fi

say "JS unit tests"
npm --prefix js test

say "pytest"
status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" = 5 ]; then
    die "pytest collected no tests: the suite is missing, which is a failure"
fi
exit "$status"

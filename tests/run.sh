#!/usr/bin/env bash
# The test command: sets up everything (system packages, .venv, the JS build), then runs, in order, failing on the
# first that fails: ruff, mypy, the JS linter, the JS type check (tsc), the committed-bundle check, the JS unit
# tests and pytest (engine, nn, tape, dot, display, widget, extension, examples, browser).
# Usage: bash tests/run.sh [extra pytest arguments]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../.ci/setup.sh" --for-tests

# step NAME WHAT-TO-DO COMMAND...: run COMMAND; when it fails, stop with NAME and what to do about it.
step() {
    local name="$1" advice="$2"
    shift 2
    say "$name"
    "$@" || die "$name failed: $advice"
}

step "ruff check" "fix the findings above (ruff's rules are in pyproject.toml)" .venv/bin/ruff check
step "mypy (strict, micrograd_widget/)" "fix the type errors above" .venv/bin/mypy
step "JS lint" "fix the findings above (js/eslint.config.js)" npm --prefix js run --silent lint
step "JS types (tsc)" "fix the type errors above (js/tsconfig.json, js/tsconfig.view.json; the types are JSDoc in the modules)" \
    npm --prefix js run --silent typecheck

# setup.sh fingerprinted micrograd_widget/static/, js/core/ops.js and js/core/shared.js before and after its build
# (bundle_fingerprint).
say "committed bundle == fresh build"
if [ "$bundle_before_build" != "$bundle_after_build" ]; then
    diff <(printf '%s\n' "$bundle_before_build") <(printf '%s\n' "$bundle_after_build") >&2 || true
    die "the committed bundle was stale: micrograd_widget/static/, js/core/ops.js or js/core/shared.js differed from what js/," \
        "ops.py and shared.py build (above: sha256 before < and after > the build). The build has rewritten them now:" \
        "review and commit them (git add micrograd_widget/static js/core/ops.js js/core/shared.js; git commit)"
fi

step "JS unit tests" "fix the failing tests above" npm --prefix js test

# Two worker processes, each test file whole in one (its module and session fixtures set up once per worker): on a
# 2-core machine the suite took 12-13 min in one process and 9.5-10.5 in two, as much of it waits on servers, kernels
# and the browser. More workers each start their own Chromium and Jupyter servers. `bash tests/run.sh -n 0` runs it in
# one.
say "pytest"
status=0
.venv/bin/python -m pytest -n 2 --dist loadfile "$@" || status=$?
if [ "$status" = 5 ]; then
    die "pytest collected no tests: the suite is missing, which is a failure"
fi
exit "$status"

#!/usr/bin/env bash
# The README's promise on a machine with Node only: `npm ci && npm test` in a fresh clone passes, with no
# browser, no PostgreSQL server and no Redis for the tests (they skip, each saying `SKIPPED: …`), and not
# in CI mode (where a missing browser is an error).
#
#   bash scripts/fresh-machine-check.sh                 # the whole run (minutes)
#   bash scripts/fresh-machine-check.sh --browser-only  # only the browser tests, as CI runs it (seconds)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git clone -q "$root" "$dir"
cd "$dir"
run() { env -u CI -u TEST_DATABASE_URL -u REDIS_TEST_URL -u DATABASE_URL CHROMIUM_PATH="$dir/no-chromium" "$@"; }
if [ "${1:-}" = --browser-only ]; then
  # The installed packages of this checkout stand in for `npm ci` (same lockfile).
  ln -s "$root/node_modules" node_modules
  out=$(run npx vitest run test/browser 2>&1) || { echo "$out"; exit 1; }
else
  run npm ci --no-audit --no-fund --loglevel=error
  out=$(run npm test 2>&1) || { echo "$out"; exit 1; }
fi
echo "$out" | tail -n 5
skipped=$(echo "$out" | grep -c 'SKIPPED: .* in Chromium, no Chromium at .*(install chromium' || true)
if [ "$skipped" -lt 2 ]; then echo "expected both browser tests to say SKIPPED without Chromium"; exit 1; fi
echo "fresh-machine check passed: npm test without Chromium skips the browser tests ($skipped) and passes"

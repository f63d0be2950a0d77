#!/usr/bin/env bash
# `npm run test:faults:hosts`: the fault suite (test/hosts) on a stand of hosts (scripts/stand.sh, as root).
# On a stand that is up already (every process running: `scripts/stand.sh status`), as in .ci/run after the
# README's tour, it runs there and leaves the stand up; otherwise it brings one up, runs, and takes it down
# whatever the outcome. STAND_ID (default 1) picks the stand, so that one runs beside another. The figures
# go to test-output/hosts-figures.md. Arguments go to vitest:
#
#   npm run test:faults:hosts
#   STAND_ID=2 npm run test:faults:hosts -- -t '3 Kafka'
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export STAND_ID="${STAND_ID:-1}"
export PATH="$PWD/node_modules/.bin:$PATH"

if scripts/stand.sh status > /dev/null 2>&1; then
  echo "[faults] on stand $STAND_ID, up already: it stays up"
else
  trap 'scripts/stand.sh down' EXIT
  scripts/stand.sh up
fi
vitest run --project hosts "$@"

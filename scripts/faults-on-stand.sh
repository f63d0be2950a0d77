#!/usr/bin/env bash
# `npm run test:faults:hosts`: the fault suite (test/hosts) on a stand of hosts of its own. Brings the stand up
# (scripts/stand.sh up, as root), runs the suite against it, and takes it down whatever the outcome; the
# figures go to test-results/hosts-figures.md. STAND_ID (default 1) picks the stand, so that one runs beside
# another. With STAND_RUNNING=true it runs on a stand already up, and leaves it up (for working on the suite).
#
#   npm run test:faults:hosts
#   STAND_ID=2 STAND_RUNNING=true npm run test:faults:hosts -- -t '3 Kafka'
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export STAND_ID="${STAND_ID:-1}"
export PATH="$PWD/node_modules/.bin:$PATH"

if [[ ${STAND_RUNNING:-} != true ]]; then
  trap 'scripts/stand.sh down' EXIT
  scripts/stand.sh up
fi
vitest run --project hosts "$@"

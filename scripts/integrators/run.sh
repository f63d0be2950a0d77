#!/usr/bin/env bash
# The service as integrators' tools see it, against a freshly started embedded default (as
# scripts/fuzz/fuzz-api.sh starts one: DATA_DIR in a temporary folder, a free PORT, users added with the
# admin CLI before the start):
#
#  1. the API document it serves (GET /openapi.json), linted by Redocly CLI (redocly.yaml: 0 errors) and by
#     Spectral with its OpenAPI rules (.spectral.yaml: no error, no warning);
#  2. a client generated from it by openapi-typescript (the types) and openapi-fetch (the requests),
#     type-checked by tsc with the project's strict options, then run through the README's quick tour
#     (scripts/integrators/client-tour.ts);
#  3. REDbot (PyPI `redbot`, in a virtual environment this script creates) on catalogue and order endpoints:
#     any "bad" note fails; warnings are printed.
#
# The npm tools are devDependencies (npm ci installs them). Prints one line per check and a summary,
# `integrators: N passed, M failed`, and exits non-zero on any failure.
#
#   npm run test:integrators
set -euo pipefail
cd "$(dirname "$0")/../.."

redbot_version=2.7.1
venv=${INTEGRATORS_VENV:-.venv-integrators}
work=.integrators
node=node_modules/.bin/node
bin=node_modules/.bin
# The tools' own scripts run on the project's Node (node_modules/.bin/node), as under npm run.
export PATH="$PWD/$bin:$PATH"

for tool in redocly spectral openapi-typescript tsc; do
  [[ -x "$bin/$tool" ]] || { echo "[integrators] $bin/$tool is missing: run npm ci"; exit 1; }
done
if [[ ! -x "$venv/bin/redbot" ]] || [[ "$("$venv/bin/pip" show redbot 2> /dev/null | grep '^Version:')" != "Version: $redbot_version" ]]; then
  echo "[integrators] installing redbot $redbot_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "redbot==$redbot_version"
fi

source scripts/lib/embedded-service.sh
embedded_service_prepare
password="tour-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"

# PUBLIC_BASE_URL is left to its default (http://localhost:PORT), as `npm start` has it.
unset PUBLIC_BASE_URL ERROR_TYPE_BASE DOCS_URL
for role in customer staff admin; do
  printf '%s' "$password" | "$node" cli/admin.ts user:add --email "$role@tour.example" --password-stdin \
    --role "$role" --name "Tour ${role^}" > /dev/null
done

embedded_service_start integrators
echo "[integrators] the embedded default at $base"

passed=0
failed=0
failures=()
# check NAME COMMAND...: runs it, its output indented; counts it passed or failed.
check() {
  local name=$1
  shift
  echo "--- $name"
  if "$@" 2>&1 | sed 's/^/    /'; then
    echo "    ok: $name"
    passed=$((passed + 1))
  else
    echo "    FAILED: $name"
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

mkdir -p "$work"
# The document as served, pretty-printed, so that the linters' line numbers mean something.
curl -fs "$base/openapi.json" | "$node" -e \
  "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify(JSON.parse(s),null,2)))" \
  > "$work/openapi.json"

check "Redocly CLI lint (redocly.yaml): no error" \
  "$bin/redocly" lint --config redocly.yaml --format=stylish "$work/openapi.json"
check "Spectral lint (.spectral.yaml, spectral:oas): no error, no warning" \
  "$bin/spectral" lint --ruleset .spectral.yaml --fail-severity=warn "$work/openapi.json"
rm -f "$work/api.ts"
check "openapi-typescript: the client's types from the document" \
  "$bin/openapi-typescript" "$work/openapi.json" --output "$work/api.ts"
check "tsc: the quick tour's client type-checks against the generated types" \
  "$bin/tsc" -p scripts/integrators/tsconfig.json
check "the quick tour through the generated client (openapi-fetch)" \
  env BASE_URL="$base" TOUR_PASSWORD="$password" "$node" scripts/integrators/client-tour.ts

token=$(curl -fs "$base/auth/token" -H 'Content-Type: application/json' \
  -d "{\"grant_type\":\"password\",\"username\":\"customer@tour.example\",\"password\":\"$password\"}" |
  "$node" -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).access_token))")
order_id=$(curl -fs "$base/orders" -H "Authorization: Bearer $token" |
  "$node" -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).data[0]?.id ?? ''))")
[[ -n "$order_id" ]] || echo "[integrators] the customer has no order (the tour failed): REDbot skips /orders/{id}"

redbot() { "$venv/bin/python" scripts/integrators/redbot-check.py "$@"; }
for path in /products /products/1001 /products/1001/stock /categories /categories/kitchen '/search?q=mug'; do
  check "REDbot GET $path: no bad note" redbot "$base$path"
done
check "REDbot GET /orders (with a token): no bad note" redbot "$base/orders" "Authorization: Bearer $token"
[[ -z "$order_id" ]] ||
  check "REDbot GET /orders/{id} (with a token): no bad note" \
    redbot "$base/orders/$order_id" "Authorization: Bearer $token"

if grep -q '"level":50' "$log"; then
  echo "[integrators] the service logged errors:"
  grep '"level":50' "$log" | head -20
  failed=$((failed + 1))
  failures+=("the service's log has errors")
fi

for failure in "${failures[@]}"; do echo "[integrators] failed: $failure"; done
echo "integrators: $passed passed, $failed failed"
((failed == 0))

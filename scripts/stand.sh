#!/usr/bin/env bash
# A stand of hosts for the distributed mode, without Docker: every server and process in a network namespace
# of its own, with its own address on a bridge of the stand's own (Debian's iproute2, nftables and nginx;
# as root). docs/testing.md ("The stand of hosts") says what runs where and how to use it.
#
#   router   nginx: GET/HEAD to qry1/qry2, the rest to cmd1/cmd2 (BASE_URL)
#   log1     PostgreSQL, the event log's primary (synchronous_commit=on, fsync on)
#   log2     its synchronous standby (streaming replication, a slot)
#   reads    FerretDB 1.24 on a PostgreSQL of its own (the read store)
#   kafka    one Kafka 3.9 broker (KRaft)
#   via      a delaying TCP forwarder that the API hosts reach the stores through (`delay`)
#   hooks    a webhook receiver (RECEIVER_URL; GET /received?from=N)
#   cmd1 cmd2 qry1 qry2 proj disp1 disp2   the four processes of the distributed mode
# The machine's own namespace has an address on the bridge (OUTSIDE_ADDRESS): tests run there reach every
# host, and the hosts reach it. Nothing is routed beyond the stand's subnet.
#
# Usage: scripts/stand.sh COMMAND (see usage below, or scripts/stand.sh help)
#   eval "$(scripts/stand.sh env)"   # BASE_URL, OUTSIDE_ADDRESS, RECEIVER_URL, the admin CLI's stores, STAND_HOSTS
#
# Environment:
#   STAND_ID          1 to 99, default 1: the namespaces (stand<ID>-<host>), bridge, subnet 10.199.<ID>.0/24 and
#                     state dir are the stand's own, so that stands of other IDs run beside it
#   STAND_STATE_DIR   default /tmp/order-service-stand<ID>: data, logs, pid files, keys; removed by `down`
#   STAND_LOG_LEVEL   the processes' LOG_LEVEL, default warn
#   STAND_PROCESS_ENV at `up`: more settings for every process, NAME=VALUE separated by spaces (values without
#                     spaces), after the stand's own, e.g. 'USER_WRITE_LIMIT_ORDERS=0'; kept in the state dir, so
#                     that `start PROCESS` starts it with them too
#   SERVICES_CACHE_DIR  builds and downloads, shared with scripts/services.sh
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
LOG_LABEL=stand
# shellcheck source=scripts/lib/servers.sh
source "$SCRIPT_DIR/lib/servers.sh"

log() { printf '[stand] %s\n' "$*" >&2; }
die() { printf '[stand] ERROR: %s\n' "$*" >&2; exit 1; }

STAND_ID="${STAND_ID:-1}"
[[ $STAND_ID =~ ^[1-9][0-9]?$ ]] || die "STAND_ID must be 1 to 99 (got '$STAND_ID')"
STATE_DIR="${STAND_STATE_DIR:-/tmp/order-service-stand$STAND_ID}"
SUBNET="10.199.$STAND_ID"
BRIDGE="stand${STAND_ID}br"
NFT_TABLE="stand$STAND_ID"
LOG_LEVEL="${STAND_LOG_LEVEL:-warn}"
NODE="$REPO_DIR/node_modules/.bin/node"
# Six Node processes starting at once on two busy cores took over 120 s for the last of them.
START_TIMEOUT="${STAND_START_TIMEOUT:-300}"

# ------------------------------------------------------------------ hosts --

HOSTS=(router log1 log2 reads kafka via hooks cmd1 cmd2 qry1 qry2 proj disp1 disp2)
API_HOSTS=(cmd1 cmd2 qry1 qry2)
OUTSIDE_ADDRESS="$SUBNET.1"

address_of() {
  case $1 in
    outside) echo "$OUTSIDE_ADDRESS" ;;
    router) echo "$SUBNET.10" ;;
    log1) echo "$SUBNET.11" ;;
    log2) echo "$SUBNET.12" ;;
    reads) echo "$SUBNET.13" ;;
    kafka) echo "$SUBNET.14" ;;
    via) echo "$SUBNET.15" ;;
    hooks) echo "$SUBNET.16" ;;
    cmd1) echo "$SUBNET.21" ;;
    cmd2) echo "$SUBNET.22" ;;
    qry1) echo "$SUBNET.23" ;;
    qry2) echo "$SUBNET.24" ;;
    proj) echo "$SUBNET.25" ;;
    disp1) echo "$SUBNET.26" ;;
    disp2) echo "$SUBNET.27" ;;
    *) die "no host '$1' (hosts: ${HOSTS[*]})" ;;
  esac
}
netns_of() { echo "stand$STAND_ID-$1"; }
veth_of() { echo "st$STAND_ID-$1"; }
in_host() {
  local host=$1
  shift
  ip netns exec "$(netns_of "$host")" "$@"
}

# Ports, the same on every host of a kind.
PG_PORT=5432
FERRETDB_PORT=27017
KAFKA_PORT=9092
RECEIVER_PORT=4000
VIA_CONTROL_PORT=9000
VIA_LOG1_PORT=5432
VIA_LOG2_PORT=5433
VIA_FERRETDB_PORT=27017
FERRETDB_DEBUG_PORT=8088

BASE_URL="http://$(address_of router)"
RECEIVER_URL="http://$(address_of hooks):$RECEIVER_PORT"
KEYS_DIR="$STATE_DIR/keys"
PRIMARY_FILE="$STATE_DIR/log-primary"
PROCESS_ENV_FILE="$STATE_DIR/process-env"

# ------------------------------------------------------- the processes' env --

# The stores as the hosts other than the API hosts reach them, and as the admin CLI does from outside.
direct_event_log_url() {
  echo "postgres://event_log@$(address_of log1):$PG_PORT,$(address_of log2):$PG_PORT/event_log?target_session_attrs=read-write&connect_timeout=2"
}
# serverSelectionTimeoutMS: a read store that is down answers 503 within 3 s, not after the driver's 30 s.
MONGO_OPTIONS="serverSelectionTimeoutMS=3000&connectTimeoutMS=2000&heartbeatFrequencyMS=1000"
direct_mongodb_url() { echo "mongodb://$(address_of reads):$FERRETDB_PORT/?$MONGO_OPTIONS"; }
# The API hosts reach the stores through `via` (whose delay is 0 until `delay` says otherwise).
via_event_log_url() {
  echo "postgres://event_log@$(address_of via):$VIA_LOG1_PORT,$(address_of via):$VIA_LOG2_PORT/event_log?target_session_attrs=read-write&connect_timeout=2"
}
via_mongodb_url() { echo "mongodb://$(address_of via):$VIA_FERRETDB_PORT/?$MONGO_OPTIONS"; }

# What heals fast enough for the fault suite (< 15 s, < 30 s across a failover): each printed by `up`.
# shellcheck disable=SC2054  # the retry schedule is one comma-separated value
HEALING_SETTINGS=(
  KAFKA_SESSION_TIMEOUT_MS=6000     # a dead dispatcher's partitions move after 6 s (default 30 s; 6 s is the least)
  WEBHOOK_TIMEOUT_MS=2000           # a delivery attempt gives up after 2 s (default 10 s)
  WEBHOOK_LEASE_MS=4000             # a dead dispatcher's claimed deliveries move after 4 s (default 60 s)
  WEBHOOK_RETRY_SCHEDULE=500,1000,2000,4000,8000,15000,30000,60000,300000,1800000
  EVENT_LOG_POOL_SIZE=4             # connections per process (default 10): ~14 processes share two cores
  EVENT_LOG_STATEMENT_TIMEOUT_MS=5000
  EVENT_LOG_POLL_INTERVAL_MS=500    # the safety net under LISTEN/NOTIFY (default 1000)
  READY_CHECK_TIMEOUT_MS=500
)

# common_env HOST: the environment every process of the distributed mode gets, one assignment a line.
common_env() {
  local host=$1
  cat <<EOF
PATH=$REPO_DIR/node_modules/.bin:/usr/local/bin:/usr/bin:/bin
HOME=$STATE_DIR
HOST=0.0.0.0
LOG_LEVEL=$LOG_LEVEL
MONGODB_DATABASE=order_service
KAFKA_BROKERS=$(address_of kafka):$KAFKA_PORT
JWT_PRIVATE_KEY_FILE=$KEYS_DIR/jwt-signing-key.pem
WEBHOOK_SECRET_KEY_FILE=$KEYS_DIR/webhook-secret-key
PERSONAL_DATA_KEY_FILE=$KEYS_DIR/personal-data-key
CONSISTENCY_TOKEN_KEY_FILE=$KEYS_DIR/consistency-token-key
PUBLIC_BASE_URL=$BASE_URL
WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
TRUST_PROXY=$(address_of router)
EOF
  local setting
  for setting in "${HEALING_SETTINGS[@]}"; do echo "$setting"; done
  case $host in
    cmd* | qry*)
      echo "EVENT_LOG_URL=$(via_event_log_url)"
      echo "MONGODB_URL=$(via_mongodb_url)"
      ;;
    *)
      echo "EVENT_LOG_URL=$(direct_event_log_url)"
      echo "MONGODB_URL=$(direct_mongodb_url)"
      ;;
  esac
  case $host in
    cmd*) echo "PORT=3001" ;;
    qry*)
      echo "PORT=3002"
      echo "CONSOLE_PROJECTIONS_URL=http://$(address_of proj):3003"
      echo "CONSOLE_WEBHOOK_DISPATCHER_URL=http://$(address_of disp1):3004"
      ;;
    proj) echo "PORT=3003" ;;
    disp*) echo "PORT=3004" ;;
  esac
  if [[ -f $PROCESS_ENV_FILE ]]; then cat "$PROCESS_ENV_FILE"; fi
}

# keep_process_env: STAND_PROCESS_ENV, checked, into the state dir.
keep_process_env() {
  local setting settings=()
  : >"$PROCESS_ENV_FILE"
  read -ra settings <<<"${STAND_PROCESS_ENV:-}"
  for setting in "${settings[@]}"; do
    [[ $setting =~ ^[A-Z][A-Z0-9_]*=[^[:space:]]*$ ]] || die "STAND_PROCESS_ENV: '$setting' is not NAME=VALUE"
    echo "$setting" >>"$PROCESS_ENV_FILE"
  done
}

# ------------------------------------------------------------- processes --

# The processes `kill` and `start` know, each on its host; log-primary and log-standby name whichever log
# host is which now.
PROCESSES=(router log1 log2 reads-postgres ferretdb kafka via receiver cmd1 cmd2 qry1 qry2 proj disp1 disp2)

current_primary() { if [[ -f $PRIMARY_FILE ]]; then cat "$PRIMARY_FILE"; else echo log1; fi; }
other_log() { if [[ $1 == log1 ]]; then echo log2; else echo log1; fi; }

resolve_process() {
  case $1 in
    log-primary) current_primary ;;
    log-standby) other_log "$(current_primary)" ;;
    *)
      local process
      for process in "${PROCESSES[@]}"; do [[ $process == "$1" ]] && { echo "$1"; return 0; }; done
      die "no process '$1' (processes: ${PROCESSES[*]} log-primary log-standby)"
      ;;
  esac
}

host_of_process() {
  case $1 in
    reads-postgres | ferretdb) echo reads ;;
    receiver) echo hooks ;;
    *) echo "$1" ;;
  esac
}

pid_file() { echo "$STATE_DIR/run/$1.pid"; }
log_file() { echo "$STATE_DIR/logs/$1.log"; }

alive() {
  local file pid
  file=$(pid_file "$1")
  [[ -f $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# spawn PROCESS COMMAND...: in PROCESS's host, a session (process group) of its own, so that `kill` reaches
# its children too; its output appended to its log.
spawn() {
  local process=$1 host
  shift
  host=$(host_of_process "$process")
  mkdir -p "$STATE_DIR/run" "$STATE_DIR/logs"
  printf '\n--- %s started %s\n' "$process" "$(date -u +%FT%TZ)" >>"$(log_file "$process")"
  ip netns exec "$(netns_of "$host")" setsid "$@" >>"$(log_file "$process")" 2>&1 </dev/null &
  echo $! >"$(pid_file "$process")"
}

# signal_process PROCESS SIGNAL: to its whole process group.
signal_process() {
  local pid
  alive "$1" || return 1
  pid=$(<"$(pid_file "$1")")
  kill "-$2" -- "-$pid" 2>/dev/null || kill "-$2" "$pid" 2>/dev/null || true
}

wait_gone() {
  local pid i
  [[ -f $(pid_file "$1") ]] || return 0
  pid=$(<"$(pid_file "$1")")
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  # Its children (PostgreSQL's backends) a moment later.
  for ((i = 0; i < 100; i++)); do
    pgrep -g "$pid" >/dev/null 2>&1 || break
    sleep 0.1
  done
  rm -f "$(pid_file "$1")"
}

# wait_for WHAT COMMAND...: until COMMAND succeeds, or dies after START_TIMEOUT seconds.
wait_for() {
  local what=$1 deadline=$((SECONDS + START_TIMEOUT))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || die "$what did not come up within ${START_TIMEOUT}s (logs in $STATE_DIR/logs)"
    sleep 0.2
  done
}

http_ok() { curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null; }

# wait_service HOST: until its /health answers. One that has not within 90 s is killed and started once more
# (a start that hung, seen on a busy machine), then waited for up to START_TIMEOUT.
wait_service() {
  local host=$1 deadline=$((SECONDS + 90))
  until service_healthy "$host"; do
    if ((SECONDS >= deadline)); then
      log "$host did not answer within 90 s; starting it again"
      signal_process "$host" KILL || true
      wait_gone "$host"
      start_service "$host"
      wait_for "$host" service_healthy "$host"
      return
    fi
    sleep 0.2
  done
}

# ------------------------------------------------------------ PostgreSQL --

as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }

# psql_on HOST [psql args...]: as the clusters' superuser, from this namespace.
psql_on() {
  local host=$1
  shift
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$(address_of "$host")" -p "$PG_PORT" -U postgres "$@"
}

pg_ready_on() { "$PG_BIN/pg_isready" -q -h "$(address_of "$1")" -p "$PG_PORT" -U postgres; }

# init_cluster DIR SUPERUSER [initdb args]: a fresh cluster owned by postgres, open to the stand's subnet.
init_cluster() {
  local dir=$1 superuser=$2
  shift 2
  rm -rf "$dir"
  mkdir -p "$dir"
  chown postgres: "$dir"
  as_postgres "$PG_BIN/initdb" -D "$dir/data" -U "$superuser" --auth=trust --encoding=UTF8 --locale=C "$@" \
    >"$dir/initdb.out" 2>&1 || { show_log_tail "$dir/initdb.out"; die "initdb $dir failed"; }
  cat >>"$dir/data/pg_hba.conf" <<EOF
host all all $SUBNET.0/24 trust
host replication all $SUBNET.0/24 trust
EOF
}

# The event log's clusters: what lets a standby follow, and no commit acknowledged before the standby has it
# (synchronous_standby_names is set with ALTER SYSTEM once a standby streams, and cleared on promotion).
log_cluster_settings() {
  cat <<EOF
port = $PG_PORT
fsync = on
synchronous_commit = on
wal_level = replica
max_wal_senders = 5
max_replication_slots = 5
hot_standby = on
wal_receiver_timeout = 5s
wal_sender_timeout = 5s
max_connections = 200
shared_buffers = 32MB
idle_in_transaction_session_timeout = 10s
EOF
}

start_log_postgres() {
  local host=$1 dir="$STATE_DIR/$1"
  spawn "$host" setpriv --reuid=postgres --regid=postgres --init-groups -- \
    "$PG_BIN/postgres" -D "$dir/data" -c listen_addresses="$(address_of "$host")" \
    -c unix_socket_directories="$dir"
}

create_log_primary() {
  init_cluster "$STATE_DIR/log1" postgres
  log_cluster_settings >>"$STATE_DIR/log1/data/postgresql.conf"
  start_log_postgres log1
}

# make_standby HOST PRIMARY: a fresh base backup of PRIMARY on HOST, streaming from a slot of its own.
make_standby() {
  local host=$1 primary=$2 dir="$STATE_DIR/$1" slot="standby_$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  chown postgres: "$dir"
  psql_on "$primary" -d postgres -c "SELECT pg_drop_replication_slot('$slot') FROM pg_replication_slots WHERE slot_name = '$slot'" >/dev/null
  psql_on "$primary" -d postgres -c "SELECT pg_create_physical_replication_slot('$slot')" >/dev/null
  in_host "$host" setpriv --reuid=postgres --regid=postgres --init-groups -- \
    "$PG_BIN/pg_basebackup" -d "host=$(address_of "$primary") port=$PG_PORT user=postgres application_name=$host" \
    -D "$dir/data" -R -S "$slot" -X stream -c fast >"$dir/basebackup.out" 2>&1 \
    || { show_log_tail "$dir/basebackup.out"; die "pg_basebackup of $primary onto $host failed"; }
  start_log_postgres "$host"
}

standby_streaming() {
  [[ $(psql_on "$1" -d postgres -tAc "SELECT count(*) FROM pg_stat_replication WHERE application_name = '$2' AND state = 'streaming'" 2>/dev/null) == 1 ]]
}

# make_synchronous PRIMARY STANDBY: once STANDBY streams, PRIMARY acknowledges a commit only when it has it.
make_synchronous() {
  wait_for "the standby $2 streaming from $1" standby_streaming "$1" "$2"
  psql_on "$1" -d postgres -c "ALTER SYSTEM SET synchronous_standby_names = '\"$2\"'" -c 'SELECT pg_reload_conf()' >/dev/null
  wait_for "$2 synchronous" sync_state_is "$1" "$2" sync
}

sync_state_is() {
  [[ $(psql_on "$1" -d postgres -tAc "SELECT sync_state FROM pg_stat_replication WHERE application_name = '$2'" 2>/dev/null) == "$3" ]]
}

create_event_log_database() {
  psql_on log1 -d postgres -c 'CREATE ROLE event_log LOGIN CREATEDB' -c 'CREATE DATABASE event_log OWNER event_log' >/dev/null
}

# The read store's PostgreSQL: throwaway data (fsync off), as scripts/services.sh runs it.
create_reads_postgres() {
  init_cluster "$STATE_DIR/reads-postgres" ferretdb -N
  start_reads_postgres
}

start_reads_postgres() {
  local dir="$STATE_DIR/reads-postgres"
  # plan_cache_mode: see scripts/services.sh (the GIN twins of ferretdb-postgresql-indexes.sql).
  spawn reads-postgres setpriv --reuid=postgres --regid=postgres --init-groups -- \
    "$PG_BIN/postgres" -D "$dir/data" -c listen_addresses=127.0.0.1 -c port="$PG_PORT" \
    -c unix_socket_directories="$dir" -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
    -c plan_cache_mode=force_custom_plan -c max_connections=200 -c shared_buffers=32MB
}

reads_postgres_ready() { in_host reads "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U ferretdb; }

create_ferretdb_database() {
  in_host reads "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U ferretdb -d postgres \
    -c 'CREATE DATABASE ferretdb' >/dev/null
  in_host reads "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U ferretdb -d ferretdb \
    -c 'SET client_min_messages = warning' -f "$POSTGRES_INDEXES_SQL" >/dev/null
}

# ---------------------------------------------------- FerretDB and Kafka --

start_ferretdb() {
  mkdir -p "$STATE_DIR/ferretdb"
  spawn ferretdb "$FERRETDB_BIN" --handler=postgresql \
    --postgresql-url="postgres://ferretdb@127.0.0.1:$PG_PORT/ferretdb?pool_max_conns=150" \
    --state-dir="$STATE_DIR/ferretdb" --listen-addr="$(address_of reads):$FERRETDB_PORT" \
    --debug-addr="$(address_of reads):$FERRETDB_DEBUG_PORT" --telemetry=disable --log-level=warn
}

ferretdb_answers() { mongo_ping "$FERRETDB_PORT" "$(address_of reads)"; }

KAFKA_DIR_NAME=kafka
kafka_stand_props() {
  cat <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=PLAINTEXT://$(address_of kafka):$KAFKA_PORT,CONTROLLER://127.0.0.1:9093
advertised.listeners=PLAINTEXT://$(address_of kafka):$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$STATE_DIR/$KAFKA_DIR_NAME/data
num.partitions=6
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=6
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
EOF
}

kafka_jvm() {
  KAFKA_JVM=(-cp "$KAFKA_LIBS/*" -Djava.awt.headless=true "-Dlog4j.configuration=file:$KAFKA_LOG4J"
    "-Dkafka.logs.dir=$STATE_DIR/kafka/logs")
}

create_kafka() {
  local dir="$STATE_DIR/kafka"
  mkdir -p "$dir/data" "$dir/logs"
  kafka_stand_props >"$dir/server.properties"
  kafka_jvm
  "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 "${KAFKA_JVM[@]}" -Dkafka.log.file=tools.log \
    kafka.tools.StorageTool format --ignore-formatted -t "$(random_cluster_id)" -c "$dir/server.properties" \
    >"$dir/format.out" 2>&1 || { show_log_tail "$dir/format.out"; die "Kafka StorageTool format failed"; }
  start_kafka
}

start_kafka() {
  kafka_jvm
  spawn kafka "$JAVA" -Xms128m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "${KAFKA_JVM[@]}" \
    -Dkafka.log.file=server.log kafka.Kafka "$STATE_DIR/kafka/server.properties"
}

kafka_answers() { kafka_probe "$KAFKA_PORT" "$(address_of kafka)"; }

# ------------------------------------------- router, receiver, forwarder --

router_config() {
  local problem="{\"type\":\"$BASE_URL/problems/service-unavailable\",\"title\":\"Service Unavailable\",\"status\":503,\"detail\":\"No instance of the API answered. Retry after the number of seconds in Retry-After.\"}"
  # A method nginx refuses itself (TRACE), as problem details too rather than its HTML page. (A malformed
  # request target cannot be: nginx gives up on it before any location, so it keeps its own 400.)
  local not_allowed="{\"type\":\"$BASE_URL/problems/method-not-allowed\",\"title\":\"Method Not Allowed\",\"status\":405,\"detail\":\"This method is not served here.\"}"
  cat <<EOF
# generated by scripts/stand.sh
worker_processes 1;
daemon off;
pid $STATE_DIR/router/nginx.pid;
error_log $STATE_DIR/logs/router-error.log warn;
events { worker_connections 2048; }
http {
  access_log off;
  client_body_temp_path $STATE_DIR/router/client_body;
  proxy_temp_path $STATE_DIR/router/proxy;
  fastcgi_temp_path $STATE_DIR/router/fastcgi;
  uwsgi_temp_path $STATE_DIR/router/uwsgi;
  scgi_temp_path $STATE_DIR/router/scgi;
  client_max_body_size 2m;

  # Reads to the query APIs, everything else to the command APIs; each pair load-balanced. An instance
  # that failed once is passed over for 2 s (passive marking), then tried again.
  map \$request_method \$api {
    GET query;
    HEAD query;
    default command;
  }
  upstream command {
    server $(address_of cmd1):3001 max_fails=1 fail_timeout=2s;
    server $(address_of cmd2):3001 max_fails=1 fail_timeout=2s;
  }
  upstream query {
    server $(address_of qry1):3002 max_fails=1 fail_timeout=2s;
    server $(address_of qry2):3002 max_fails=1 fail_timeout=2s;
  }

  server {
    listen $(address_of router):80;
    server_tokens off;
    error_page 405 @not_allowed;
    proxy_http_version 1.1;
    proxy_set_header Host \$http_host;
    proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto \$scheme;
    proxy_buffering off;
    proxy_request_buffering on;
    proxy_connect_timeout 1s;
    proxy_send_timeout 15s;
    proxy_read_timeout 15s;
    # A request goes to the other instance when one cannot be reached (connection refused or timed out);
    # nginx never sends a POST twice once it was sent, so only reads are retried after a lost answer.
    proxy_next_upstream error timeout;
    proxy_next_upstream_tries 2;
    proxy_next_upstream_timeout 5s;

    location / {
      proxy_pass http://\$api;
      error_page 502 503 504 = @unavailable;
    }
    # Only nginx's own errors come here (proxy_intercept_errors is off): an API's own answers pass as they are.
    location @not_allowed {
      default_type application/problem+json;
      add_header Cache-Control no-store always;
      return 405 '$not_allowed';
    }
    location @unavailable {
      default_type application/problem+json;
      add_header Retry-After 1 always;
      add_header Cache-Control no-store always;
      return 503 '$problem';
    }
  }
}
EOF
}

start_router() {
  mkdir -p "$STATE_DIR/router"
  router_config >"$STATE_DIR/router/nginx.conf"
  spawn router nginx -p "$STATE_DIR/router" -c "$STATE_DIR/router/nginx.conf"
}

start_receiver() {
  spawn receiver "$NODE" --max-old-space-size=96 "$SCRIPT_DIR/stand/receiver.ts" \
    "$(address_of hooks):$RECEIVER_PORT" "$STATE_DIR/received.jsonl"
}

start_via() {
  spawn via "$NODE" --max-old-space-size=64 "$SCRIPT_DIR/stand/forwarder.ts" \
    "$(address_of via):$VIA_CONTROL_PORT" \
    "$(address_of via):$VIA_LOG1_PORT=$(address_of log1):$PG_PORT" \
    "$(address_of via):$VIA_LOG2_PORT=$(address_of log2):$PG_PORT" \
    "$(address_of via):$VIA_FERRETDB_PORT=$(address_of reads):$FERRETDB_PORT"
}

# --------------------------------------------------- the service processes --

service_entry() {
  case $1 in
    cmd*) echo command-api/main.ts ;;
    qry*) echo query-api/main.ts ;;
    proj) echo projections/main.ts ;;
    disp*) echo webhook-dispatcher/main.ts ;;
  esac
}
service_port() {
  case $1 in
    cmd*) echo 3001 ;;
    qry*) echo 3002 ;;
    proj) echo 3003 ;;
    disp*) echo 3004 ;;
  esac
}

start_service() {
  local host=$1 env_lines=() heap=128
  mapfile -t env_lines < <(common_env "$host")
  # The first command API seeds the demo catalogue into the empty read store, the second must not race it.
  # The demo users are the admin CLI's (add_demo_users), so that no password is ever printed into a log.
  env_lines+=(SEED_DEMO_USERS=false)
  if [[ $host == cmd1 ]]; then env_lines+=(SEED_DEMO_CATALOG=true); else env_lines+=(SEED_DEMO_CATALOG=false); fi
  spawn "$host" env -i "${env_lines[@]}" "$NODE" --max-old-space-size="$heap" \
    "$REPO_DIR/$(service_entry "$host")"
}

# The embedded default's demo users (one per role), with passwords nobody knows: set one with
# `npm run admin -- user:set-password` (as README's quick tour does), with the stores of `env`.
add_demo_users() {
  local user pids=() pid email name role
  for user in 'customer|Demo Customer|customer' 'customer2|Second Demo Customer|customer' \
    'staff|Demo Staff|staff' 'auditor|Demo Auditor|auditor' 'admin|Demo Admin|admin'; do
    IFS='|' read -r email name role <<<"$user"
    (
      eval "$(cmd_env)"
      head -c 24 /dev/urandom | base64 | "$NODE" "$REPO_DIR/cli/admin.ts" user:add --email "$email@example.com" \
        --name "$name" --role "$role" --password-stdin >/dev/null
    ) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || die "could not add the demo users"; done
}

service_healthy() { http_ok "http://$(address_of "$1"):$(service_port "$1")/health"; }

# ---------------------------------------------------------------- network --

create_network() {
  local host veth
  ip link add "$BRIDGE" type bridge
  ip addr add "$OUTSIDE_ADDRESS/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  for host in "${HOSTS[@]}"; do
    veth=$(veth_of "$host")
    ip netns add "$(netns_of "$host")"
    ip link add "$veth" type veth peer name eth0 netns "$(netns_of "$host")"
    ip link set "$veth" master "$BRIDGE" up
    in_host "$host" ip addr add "$(address_of "$host")/24" dev eth0
    in_host "$host" ip link set eth0 up
    in_host "$host" ip link set lo up
  done
  # Faults between hosts: frames the bridge forwards between two of the stand's hosts (the bridge family
  # sees them without br_netfilter). `cut-between` adds address pairs to @cut, `loss` rules to chain loss.
  nft -f - <<EOF
table bridge $NFT_TABLE {
  set cut { type ipv4_addr . ipv4_addr; }
  set api { type ipv4_addr; elements = { $(api_addresses) }; }
  chain loss {}
  chain forward {
    type filter hook forward priority 0; policy accept;
    ip saddr . ip daddr @cut drop
    jump loss
  }
}
EOF
}

api_addresses() {
  local host list=()
  for host in "${API_HOSTS[@]}"; do list+=("$(address_of "$host")"); done
  (
    IFS=,
    echo "${list[*]}"
  )
}

stand_exists() {
  ip link show "$BRIDGE" >/dev/null 2>&1 && return 0
  local host
  for host in "${HOSTS[@]}"; do
    [[ -e /run/netns/$(netns_of "$host") ]] && return 0
  done
  return 1
}

# ---------------------------------------------------------------- commands --

require_root() { [[ $(id -u) == 0 ]] || die "run as root (namespaces, veths and nftables need it)"; }

prepare_tools() {
  require_root
  local tool
  for tool in ip nft nginx curl setpriv; do
    PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null 2>&1 \
      || die "$tool not found (Debian: apt-get install iproute2 nftables nginx curl util-linux)"
  done
  PATH="$PATH:/usr/sbin:/sbin"
  [[ -x $NODE ]] || die "$NODE missing: npm ci first"
  id postgres >/dev/null 2>&1 || die "no 'postgres' user to own the clusters (Debian: apt-get install postgresql)"
  find_postgres
  [[ -x $PG_BIN/pg_basebackup ]] || die "pg_basebackup not found in $PG_BIN"
  JAVA=$(find_java)
  mkdir -p "$CACHE_DIR"
  ensure_ferretdb
  ensure_kafka
}

cmd_up() {
  local started=$SECONDS
  prepare_tools
  if stand_exists; then
    log "stand $STAND_ID exists already: removing it first"
    cmd_down
  fi
  trap 'rc=$?; if ((rc != 0)); then log "up failed (logs in $STATE_DIR/logs); removing the stand"; cmd_down; fi' EXIT
  rm -rf "$STATE_DIR"
  mkdir -p "$STATE_DIR/run" "$STATE_DIR/logs"
  chmod 755 "$STATE_DIR"
  echo log1 >"$PRIMARY_FILE"
  keep_process_env
  log "network: bridge $BRIDGE, $SUBNET.0/24, namespaces stand$STAND_ID-*"
  create_network
  "$NODE" "$REPO_DIR/cli/admin.ts" keys:init "$KEYS_DIR" >/dev/null
  mkdir -p "$STATE_DIR/admin"

  log "starting the stores, the router, the receiver and the forwarder..."
  create_log_primary
  create_reads_postgres
  create_kafka
  start_router
  start_receiver
  start_via

  wait_for "log1's PostgreSQL" pg_ready_on log1
  create_event_log_database
  make_standby log2 log1
  make_synchronous log1 log2
  log "event log: primary log1, synchronous standby log2 ($((SECONDS - started)) s)"
  wait_for "the read store's PostgreSQL" reads_postgres_ready
  create_ferretdb_database
  start_ferretdb
  wait_for FerretDB ferretdb_answers
  wait_for Kafka kafka_answers
  wait_for "the receiver" http_ok "$RECEIVER_URL/received?from=0"
  wait_for "the forwarder" http_ok "http://$(address_of via):$VIA_CONTROL_PORT/"

  log "stores, router, receiver and forwarder answer ($((SECONDS - started)) s); starting the processes..."
  start_service cmd1
  wait_for cmd1 service_healthy cmd1
  add_demo_users
  local host
  for host in cmd2 qry1 qry2 proj; do start_service "$host"; done
  for host in cmd2 qry1 qry2 proj; do wait_service "$host"; done
  # The dispatchers one after the other: both creating the retry state's collections and indexes at once
  # on a fresh FerretDB was seen to leave one waiting for good.
  for host in disp1 disp2; do
    start_service "$host"
    wait_service "$host"
  done
  wait_for "the router" http_ok "$BASE_URL/health"
  trap - EXIT
  log "the processes answer ($((SECONDS - started)) s)"

  log "a test bench: webhooks to private networks allowed (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)"
  log "settings for fast healing: ${HEALING_SETTINGS[*]}"
  [[ ! -s $PROCESS_ENV_FILE ]] || log "STAND_PROCESS_ENV: $(paste -sd ' ' "$PROCESS_ENV_FILE")"
  log "the API hosts reach the stores through via (delay 0 until 'delay N')"
  for host in outside "${HOSTS[@]}"; do printf '  %-7s %s\n' "$host" "$(address_of "$host")" >&2; done
  echo "BASE_URL=$BASE_URL"
  log "stand $STAND_ID up in $((SECONDS - started)) s; state in $STATE_DIR; 'eval \"\$($0 env)\"' for the rest"
}

cmd_down() {
  require_root
  PATH="$PATH:/usr/sbin:/sbin"
  local host ns pids
  for host in "${HOSTS[@]}"; do
    ns=$(netns_of "$host")
    [[ -e /run/netns/$ns ]] || continue
    # Every process in the stand's namespaces is the stand's.
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    # shellcheck disable=SC2086
    [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
  done
  for host in "${HOSTS[@]}"; do
    ns=$(netns_of "$host")
    [[ -e /run/netns/$ns ]] || continue
    for _ in $(seq 50); do [[ -z $(ip netns pids "$ns" 2>/dev/null) ]] && break; sleep 0.1; done
    ip netns del "$ns"
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  nft delete table bridge "$NFT_TABLE" 2>/dev/null || true
  rm -rf "$STATE_DIR"
  log "stand $STAND_ID removed"
}

cmd_status() {
  local process host state rc=0 primary
  primary=$(current_primary)
  for process in "${PROCESSES[@]}"; do
    host=$(host_of_process "$process")
    if alive "$process"; then state="running (pid $(<"$(pid_file "$process")"))"; else state=stopped; rc=1; fi
    case $process in
      "$primary") state="$state, primary" ;;
      log1 | log2) state="$state, standby" ;;
    esac
    if ! in_host "$host" ip link show eth0 2>/dev/null | grep -q 'state UP'; then state="$state, host cut off"; fi
    printf '%-15s %-6s %-14s %s\n' "$process" "$host" "$(address_of "$host")" "$state"
  done
  printf 'cut between: %s\n' "$(cuts_by_name)"
  printf 'loss: %s\n' "$(nft list chain bridge "$NFT_TABLE" loss 2>/dev/null | grep -o 'numgen random mod 100 < [0-9]* counter packets [0-9]*' | sed 's/numgen random mod 100 < \([0-9]*\) counter packets \([0-9]*\)/\1 % (\2 packets dropped)/' | paste -sd ' ' || true)"
  printf 'delay: %s\n' "$(curl -fsS --max-time 2 "http://$(address_of via):$VIA_CONTROL_PORT/" 2>/dev/null || echo unknown)"
  return "$rc"
}

# cuts_by_name: the pairs of hosts cut off from each other, by name ("disp2-kafka ..."), each pair once.
cuts_by_name() {
  local pairs pair a b host names=() seen=" "
  pairs=$(nft list set bridge "$NFT_TABLE" cut 2>/dev/null | tr -d '\n\t' | sed -n 's/.*elements = { *\([^}]*\)}.*/\1/p')
  IFS=, read -ra pairs <<<"$pairs"
  for pair in "${pairs[@]}"; do
    read -r a _ b <<<"$pair"
    for host in "${HOSTS[@]}"; do
      [[ $(address_of "$host") == "$a" ]] && a=$host
      [[ $(address_of "$host") == "$b" ]] && b=$host
    done
    [[ $seen == *" $b-$a "* ]] || { names+=("$a-$b"); seen+="$a-$b "; }
  done
  echo "${names[*]}"
}

cmd_env() {
  local host hosts=()
  for host in "${HOSTS[@]}"; do hosts+=("$host=$(address_of "$host")"); done
  cat <<EOF
export STAND_ID='$STAND_ID'
export BASE_URL='$BASE_URL'
export OUTSIDE_ADDRESS='$OUTSIDE_ADDRESS'
export RECEIVER_URL='$RECEIVER_URL'
export EVENT_LOG_URL='$(direct_event_log_url)'
export MONGODB_URL='$(direct_mongodb_url)'
export MONGODB_DATABASE='order_service'
export KAFKA_BROKERS='$(address_of kafka):$KAFKA_PORT'
export DATA_DIR='$STATE_DIR/admin'
export PERSONAL_DATA_KEY_FILE='$KEYS_DIR/personal-data-key'
export STAND_KEYS_DIR='$KEYS_DIR'
export STAND_STATE_DIR='$STATE_DIR'
export STAND_HOSTS='${hosts[*]}'
EOF
}

cmd_kill() {
  local process
  process=$(resolve_process "${1:?kill takes a process}")
  if signal_process "$process" KILL; then
    wait_gone "$process"
    log "$process killed (SIGKILL)"
  else
    log "$process was not running"
  fi
}

cmd_start() {
  local process
  process=$(resolve_process "${1:?start takes a process}")
  alive "$process" && { log "$process is running already"; return 0; }
  PATH="$PATH:/usr/sbin:/sbin"
  find_postgres
  JAVA=$(find_java)
  case $process in
    log1 | log2) start_log_postgres "$process"; wait_for "$process" pg_ready_on "$process" ;;
    reads-postgres) start_reads_postgres; wait_for reads-postgres reads_postgres_ready ;;
    ferretdb) start_ferretdb; wait_for FerretDB ferretdb_answers ;;
    kafka) ensure_kafka; start_kafka; wait_for Kafka kafka_answers ;;
    router) start_router; wait_for router http_ok "$BASE_URL/health" ;;
    receiver) start_receiver; wait_for receiver http_ok "$RECEIVER_URL/received?from=0" ;;
    via) start_via; wait_for via http_ok "http://$(address_of via):$VIA_CONTROL_PORT/" ;;
    *) start_service "$process"; wait_for "$process" service_healthy "$process" ;;
  esac
  log "$process started"
}

cmd_cut() {
  local host=${1:?cut takes a host}
  address_of "$host" >/dev/null
  in_host "$host" ip link set eth0 down
  log "$host cut off the network"
}

cmd_heal() {
  local host=${1:?heal takes a host}
  address_of "$host" >/dev/null
  in_host "$host" ip link set eth0 up
  log "$host back on the network"
}

# between_elements A B: both directions of a pair, as elements of @cut.
between_elements() {
  local a b
  a=$(address_of "${1:?takes two hosts}")
  b=$(address_of "${2:?takes two hosts}")
  echo "$a . $b, $b . $a"
}

cmd_cut_between() {
  nft add element bridge "$NFT_TABLE" cut "{ $(between_elements "$@") }"
  log "$1 and $2 cut off from each other"
}

cmd_heal_between() {
  nft delete element bridge "$NFT_TABLE" cut "{ $(between_elements "$@") }" 2>/dev/null || true
  log "$1 and $2 reach each other again"
}

cmd_loss() {
  local percent=${1:?loss takes a percentage or off} via
  via=$(address_of via)
  nft flush chain bridge "$NFT_TABLE" loss
  if [[ $percent == off ]]; then
    log "no loss between the API hosts and the stores"
    return 0
  fi
  [[ $percent =~ ^[0-9]{1,2}$ ]] || die "loss takes a percentage below 100, or off"
  # The API hosts reach the stores only through via: both directions of that path.
  nft add rule bridge "$NFT_TABLE" loss ip saddr @api ip daddr "$via" numgen random mod 100 "<" "$percent" counter drop
  nft add rule bridge "$NFT_TABLE" loss ip saddr "$via" ip daddr @api numgen random mod 100 "<" "$percent" counter drop
  log "$percent % of packets dropped between the API hosts and the stores (each way)"
}

cmd_delay() {
  local ms=${1:?delay takes a number of ms or off}
  [[ $ms == off ]] && ms=0
  [[ $ms =~ ^[0-9]{1,5}$ ]] || die "delay takes a number of ms, or off"
  curl -fsS --max-time 5 -X PUT --data "$ms" "http://$(address_of via):$VIA_CONTROL_PORT/delay" >/dev/null \
    || die "the forwarder on via did not answer"
  log "$ms ms added to every round trip between the API hosts and the stores"
}

# failover: the primary dies (SIGKILL, its backends too), the standby is promoted and stops waiting for a
# standby of its own. Prints the new primary.
cmd_failover() {
  local old new
  find_postgres
  old=$(current_primary)
  new=$(other_log "$old")
  signal_process "$old" KILL || log "$old was not running"
  wait_gone "$old"
  psql_on "$new" -d postgres -c 'SELECT pg_promote(true, 60)' >/dev/null
  psql_on "$new" -d postgres -c "ALTER SYSTEM SET synchronous_standby_names = ''" -c 'SELECT pg_reload_conf()' >/dev/null
  echo "$new" >"$PRIMARY_FILE"
  log "$old killed, $new promoted (no synchronous standby until rebuild-standby)"
  echo "$new"
}

# rebuild-standby: a new standby on the other log host, from the primary, made synchronous again.
cmd_rebuild_standby() {
  local primary standby
  find_postgres
  primary=$(current_primary)
  standby=$(other_log "$primary")
  signal_process "$standby" KILL || true
  wait_gone "$standby"
  make_standby "$standby" "$primary"
  make_synchronous "$primary" "$standby"
  log "$standby is $primary's synchronous standby again"
}

usage() {
  cat >&2 <<EOF
usage: $0 COMMAND   (as root; STAND_ID=$STAND_ID, state in $STATE_DIR)
  up                    start the stand afresh (removes one left over); prints BASE_URL and the hosts
  down                  stop and remove everything it made: processes, namespaces, veths, bridge, nft table, state
  status                the processes, hosts, cuts, loss and delay (exit 1 if a process is down)
  env                   export lines: BASE_URL OUTSIDE_ADDRESS RECEIVER_URL EVENT_LOG_URL MONGODB_URL ... STAND_HOSTS
  kill PROCESS          SIGKILL (the process group): ${PROCESSES[*]} log-primary log-standby
  start PROCESS         start it again, on its data, with the same configuration; waits until it answers
  cut HOST / heal HOST  its interface down / up (hosts: ${HOSTS[*]})
  cut-between A B       drop every packet between hosts A and B, both ways / heal-between A B
  failover              SIGKILL the log's primary, promote the standby (pg_promote), clear its
                        synchronous_standby_names; prints the new primary
  rebuild-standby       pg_basebackup a new standby from the primary on the other log host, synchronous again
  loss N | loss off     drop N % of packets between the API hosts and the stores (nftables numgen)
  delay MS | delay off  add MS to every round trip between the API hosts and the stores (the via forwarder)
EOF
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  env) cmd_env ;;
  kill) require_root; cmd_kill "${2:-}" ;;
  start) require_root; cmd_start "${2:-}" ;;
  cut) require_root; cmd_cut "${2:-}" ;;
  heal) require_root; cmd_heal "${2:-}" ;;
  cut-between) require_root; cmd_cut_between "${2:-}" "${3:-}" ;;
  heal-between) require_root; cmd_heal_between "${2:-}" "${3:-}" ;;
  failover) require_root; cmd_failover ;;
  rebuild-standby) require_root; cmd_rebuild_standby ;;
  loss) require_root; cmd_loss "${2:-}" ;;
  delay) cmd_delay "${2:-}" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac

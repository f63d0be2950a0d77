#!/usr/bin/env bash
# Starts/stops the real servers the integration tests talk to, on loopback
# only and without Docker:
#   - FerretDB v1.24 (MongoDB wire protocol) on Debian's PostgreSQL (the
#     default), or on its SQLite backend with FERRETDB_BACKEND=sqlite
#   - Apache Kafka 3.9 (single node, KRaft, combined broker+controller)
#   - the distributed mode's event log on that PostgreSQL: a role and a
#     database `event_log` (EVENT_LOG_URL); the role may create databases, so
#     that each test service gets a log of its own. With FERRETDB_BACKEND=sqlite
#     PostgreSQL still runs, for the log alone.
#
# On PostgreSQL, FerretDB gets a throwaway cluster of its own (initdb into the
# state dir, loopback only, port $POSTGRES_PORT, run as the invoking user, or
# as `postgres` when that is root) and scripts/ferretdb-postgresql-indexes.sql,
# which gives every index FerretDB creates a GIN twin that serves FerretDB's
# `_jsonb->'field' @> value` equality filters (findOne({_id}) included), which
# its own btree indexes cannot. BENCHMARKS.md ("Test stand") has the figures.
#
# Usage: scripts/services.sh start|stop|status|env|kafka-stop|kafka-start|ferretdb-start|ferretdb-stop
#   eval "$(scripts/services.sh env)"   # exports MONGODB_URL, KAFKA_BROKERS and EVENT_LOG_URL
#   scripts/services.sh kafka-stop      # fault tests: stop only Kafka, keep its data
#   scripts/services.sh kafka-start     # ...and bring it back on the same port,
#                                       # data dir and cluster id (no wipe/format)
#
# Varnish, on its own (it touches neither FerretDB nor Kafka), in front of a running service:
#   scripts/services.sh varnish-start http://127.0.0.1:3000   # prints Varnish's URL
#   scripts/services.sh varnish-stop
# It runs deploy/varnish/default.vcl with that backend; Debian's varnish and
# varnish-modules (the xkey vmod) must be installed.
#
# Needs only Go (>= 1.24), Java (>= 11), Maven and (for the default backend)
# Debian's PostgreSQL server (apt-get install postgresql; its binaries are
# looked up in /usr/lib/postgresql/*/bin, no cluster of Debian's is used). Builds and
# downloads are cached in $SERVICES_CACHE_DIR, runtime state (data, pid
# files, logs) lives in $SERVICES_STATE_DIR and is wiped by every `start`
# (`kafka-stop` / `kafka-start` keep it).
#
# Environment:
#   SERVICES_CACHE_DIR     default $HOME/.cache/order-service-services
#   SERVICES_STATE_DIR     default /tmp/order-service-services
#   FERRETDB_PORT          default 27018
#   FERRETDB_BACKEND       postgresql (default) or sqlite
#   POSTGRES_PORT          default 54329 (FerretDB's PostgreSQL, loopback only)
#   POSTGRES_BIN_DIR       default: the newest /usr/lib/postgresql/*/bin
#   POSTGRES_GIN_TWINS     default true; false leaves FerretDB's btrees alone
#                          (only to measure what the twins are worth)
#   KAFKA_PORT             default 9092
#   KAFKA_CONTROLLER_PORT  default 9093
#   KAFKA_HEAP_OPTS        default "-Xms256m -Xmx512m"
#   SERVICES_START_TIMEOUT seconds to wait for each server, default 120
#   VARNISH_PORT           default 6081; 0 picks a free port
#   VARNISH_STORAGE        default 64m (malloc)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_LABEL=services
# shellcheck source=scripts/lib/servers.sh
source "$SCRIPT_DIR/lib/servers.sh"

STATE_DIR="${SERVICES_STATE_DIR:-/tmp/order-service-services}"
FERRETDB_PORT="${FERRETDB_PORT:-27018}"
FERRETDB_BACKEND="${FERRETDB_BACKEND:-postgresql}"
POSTGRES_PORT="${POSTGRES_PORT:-54329}"
POSTGRES_GIN_TWINS="${POSTGRES_GIN_TWINS:-true}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
START_TIMEOUT="${SERVICES_START_TIMEOUT:-120}"
STOP_TIMEOUT=30

FERRETDB_PID="$STATE_DIR/ferretdb.pid"
FERRETDB_LOG="$STATE_DIR/ferretdb/ferretdb.log"
POSTGRES_DIR="$STATE_DIR/postgres"
POSTGRES_PID="$STATE_DIR/postgres.pid"
POSTGRES_LOG="$POSTGRES_DIR/postgres.log"
KAFKA_PID="$STATE_DIR/kafka.pid"
KAFKA_DIR="$STATE_DIR/kafka"
KAFKA_DATA_DIR="$KAFKA_DIR/data"
KAFKA_PROPS="$KAFKA_DIR/server.properties"
KAFKA_LOG_DIR="$KAFKA_DIR/logs"
KAFKA_SERVER_LOG="$KAFKA_LOG_DIR/server.log"
KAFKA_OUT="$STATE_DIR/kafka/kafka.out"

VARNISH_VCL="$SCRIPT_DIR/../deploy/varnish/default.vcl"
VARNISH_DIR="$STATE_DIR/varnish"
VARNISH_PID="$VARNISH_DIR/varnishd.pid"
VARNISH_PORT="${VARNISH_PORT:-6081}"
VARNISH_STORAGE="${VARNISH_STORAGE:-64m}"

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

case $FERRETDB_BACKEND in
  postgresql | sqlite) ;;
  *) die "FERRETDB_BACKEND must be postgresql or sqlite (got '$FERRETDB_BACKEND')" ;;
esac

# ---------------------------------------------------------------- helpers --

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# ------------------------------------------------------------------ start --

# start_postgres: a fresh cluster in $POSTGRES_DIR, in the background.
start_postgres() {
  rm -rf "$POSTGRES_DIR"
  mkdir -p "$POSTGRES_DIR"
  if port_open "$POSTGRES_PORT"; then
    die "port 127.0.0.1:$POSTGRES_PORT is already in use (set POSTGRES_PORT to another port)"
  fi
  if ((${#AS_PG_USER[@]} > 0)); then
    chown postgres: "$POSTGRES_DIR"
    "${AS_PG_USER[@]}" test -w "$POSTGRES_DIR" \
      || die "the postgres user cannot write $POSTGRES_DIR (is a parent of SERVICES_STATE_DIR closed to other users?)"
  fi
  log "creating a PostgreSQL cluster in $POSTGRES_DIR/data..."
  # C locale and UTF8: what FerretDB checks at connect. No fsync (-N, fsync=off): throwaway test data.
  if ! (cd "$POSTGRES_DIR" && "${AS_PG_USER[@]}" "$PG_BIN/initdb" -D "$POSTGRES_DIR/data" -U ferretdb \
    --auth=trust --encoding=UTF8 --locale=C -N) >"$POSTGRES_DIR/initdb.out" 2>&1; then
    show_log_tail "$POSTGRES_DIR/initdb.out"
    die "initdb failed"
  fi
  log "starting PostgreSQL on 127.0.0.1:$POSTGRES_PORT..."
  # plan_cache_mode: FerretDB sends prepared statements with the field name as a parameter
  # (_jsonb->$1 @> $2); only a plan made for the actual values can match the GIN twins' expressions.
  (cd "$POSTGRES_DIR" && exec nohup "${AS_PG_USER[@]}" "$PG_BIN/postgres" -D "$POSTGRES_DIR/data" \
    -c listen_addresses=127.0.0.1 -c port="$POSTGRES_PORT" -c unix_socket_directories="$POSTGRES_DIR" \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
    -c plan_cache_mode=force_custom_plan -c max_connections=400 \
    >"$POSTGRES_LOG" 2>&1 </dev/null) &
  echo $! >"$POSTGRES_PID"
}

# wait_postgres: until it accepts connections, then the event log's role and database, and (on the
# postgresql backend) the database FerretDB uses, with the GIN twins' trigger.
wait_postgres() {
  local deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$(<"$POSTGRES_PID")" 2>/dev/null; then
      show_log_tail "$POSTGRES_LOG"
      die "PostgreSQL exited during startup"
    fi
    if "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$POSTGRES_PORT"; then
      # pg_signal_backend: the tests' DROP DATABASE ... WITH (FORCE) must also end an autovacuum worker
      # busy in that database, whose process belongs to no role the event log's role is a member of.
      "$PG_BIN/psql" -q -X -h 127.0.0.1 -p "$POSTGRES_PORT" -U ferretdb -d postgres -v ON_ERROR_STOP=1 \
        -c 'CREATE ROLE event_log LOGIN CREATEDB' -c 'GRANT pg_signal_backend TO event_log' \
        -c 'CREATE DATABASE event_log OWNER event_log' >/dev/null \
        || die "could not create the event log's role and database"
      [[ $FERRETDB_BACKEND == postgresql ]] || return 0
      "$PG_BIN/psql" -q -X -h 127.0.0.1 -p "$POSTGRES_PORT" -U ferretdb -d postgres -v ON_ERROR_STOP=1 \
        -c 'CREATE DATABASE ferretdb' >/dev/null || die "could not create the ferretdb database"
      if [[ $POSTGRES_GIN_TWINS == true ]]; then
        "$PG_BIN/psql" -q -X -h 127.0.0.1 -p "$POSTGRES_PORT" -U ferretdb -d ferretdb -v ON_ERROR_STOP=1 \
          -c 'SET client_min_messages = warning' -f "$POSTGRES_INDEXES_SQL" >/dev/null \
          || die "could not apply $POSTGRES_INDEXES_SQL"
      else
        log "POSTGRES_GIN_TWINS=$POSTGRES_GIN_TWINS: FerretDB's equality filters will scan (measurements only)"
      fi
      log "PostgreSQL is up (pid $(<"$POSTGRES_PID")): 127.0.0.1:$POSTGRES_PORT"
      return 0
    fi
    sleep 0.25
  done
  show_log_tail "$POSTGRES_LOG"
  die "PostgreSQL did not accept connections on 127.0.0.1:$POSTGRES_PORT within ${START_TIMEOUT}s"
}

start_ferretdb() {
  local dir="$STATE_DIR/ferretdb"
  rm -rf "$dir"
  mkdir -p "$dir/data" "$dir/state"
  if port_open "$FERRETDB_PORT"; then
    die "port 127.0.0.1:$FERRETDB_PORT is already in use (set FERRETDB_PORT to another port)"
  fi
  local backend=(--handler=sqlite --sqlite-url="file:$dir/data/")
  if [[ $FERRETDB_BACKEND == postgresql ]]; then
    backend=(--handler=postgresql --postgresql-url="postgres://ferretdb@127.0.0.1:$POSTGRES_PORT/ferretdb")
  fi
  log "starting FerretDB ($FERRETDB_BACKEND backend) on 127.0.0.1:$FERRETDB_PORT..."
  nohup "$FERRETDB_BIN" \
    "${backend[@]}" \
    --state-dir="$dir/state" \
    --listen-addr="127.0.0.1:$FERRETDB_PORT" \
    --debug-addr=- \
    --telemetry=disable \
    --log-level=info \
    >"$FERRETDB_LOG" 2>&1 </dev/null &
  echo $! >"$FERRETDB_PID"
}

wait_ferretdb() {
  local deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    # Alive is enough here: until the forked shell has exec'd nohup and FerretDB, its command line is this
    # script's, which is_running's check of it would take for a recycled pid (a busy machine, right after
    # a stop, made a healthy start fail so).
    if ! kill -0 "$(<"$FERRETDB_PID")" 2>/dev/null; then
      show_log_tail "$FERRETDB_LOG"
      die "FerretDB exited during startup"
    fi
    if mongo_ping "$FERRETDB_PORT"; then
      log "FerretDB is up (pid $(<"$FERRETDB_PID")): mongodb://127.0.0.1:$FERRETDB_PORT/"
      return 0
    fi
    sleep 0.5
  done
  show_log_tail "$FERRETDB_LOG"
  die "FerretDB did not answer a ping on 127.0.0.1:$FERRETDB_PORT within ${START_TIMEOUT}s"
}

# kafka_props: the broker configuration for the current ports and state dir.
kafka_props() {
  cat <<EOF
# generated by scripts/services.sh
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKA_DATA_DIR
num.partitions=3
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=10
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.retention.hours=24
EOF
}

check_kafka_ports_free() {
  local p
  for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    if port_open "$p"; then
      die "port 127.0.0.1:$p is already in use (set KAFKA_PORT / KAFKA_CONTROLLER_PORT)"
    fi
  done
}

# Sets KAFKA_JVM_COMMON (java options shared by StorageTool and the broker);
# needs KAFKA_LIBS (ensure_kafka).
kafka_jvm_common() {
  KAFKA_JVM_COMMON=(-cp "$KAFKA_LIBS/*" -Djava.awt.headless=true
    "-Dlog4j.configuration=file:$KAFKA_LOG4J" "-Dkafka.logs.dir=$KAFKA_LOG_DIR")
}

# format_kafka_storage JAVA CLUSTER_ID: formats $KAFKA_DATA_DIR unless it
# already holds a formatted log dir (meta.properties), which is left untouched.
format_kafka_storage() {
  local java=$1 cluster_id=$2
  if [[ -f $KAFKA_DATA_DIR/meta.properties ]]; then
    cluster_id=$(sed -n 's/^cluster\.id=//p' "$KAFKA_DATA_DIR/meta.properties" | head -n 1)
    log "Kafka storage already formatted (cluster id ${cluster_id:-unknown}), keeping its data"
    return 0
  fi
  log "formatting Kafka storage (cluster id $cluster_id)..."
  if ! "$java" -Xmx256m -XX:TieredStopAtLevel=1 "${KAFKA_JVM_COMMON[@]}" -Dkafka.log.file=tools.log \
    kafka.tools.StorageTool format --ignore-formatted -t "$cluster_id" -c "$KAFKA_PROPS" \
    >"$KAFKA_DIR/format.out" 2>&1; then
    show_log_tail "$KAFKA_DIR/format.out" "$KAFKA_LOG_DIR/tools.log"
    die "Kafka StorageTool format failed"
  fi
}

# launch_kafka JAVA: starts the broker in the background with $KAFKA_PROPS.
launch_kafka() {
  local java=$1
  log "starting Kafka on 127.0.0.1:$KAFKA_PORT (controller 127.0.0.1:$KAFKA_CONTROLLER_PORT)..."
  # shellcheck disable=SC2086
  nohup "$java" $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    "${KAFKA_JVM_COMMON[@]}" -Dkafka.log.file=server.log \
    kafka.Kafka "$KAFKA_PROPS" \
    >>"$KAFKA_OUT" 2>&1 </dev/null &
  local pid=$! i
  echo "$pid" >"$KAFKA_PID"
  # Until the background child has exec'd java its command line is this
  # script's, and is_running (hence wait_kafka) would take it for a dead broker. Up to 20 s: on a
  # loaded 2-core machine the exec can take seconds.
  for ((i = 0; i < 400; i++)); do
    if is_running "$KAFKA_PID" kafka.Kafka || ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.05
  done
}

# start_kafka: fresh broker (wipes $KAFKA_DIR, new cluster id).
start_kafka() {
  local java cluster_id
  java=$(find_java)
  rm -rf "$KAFKA_DIR"
  mkdir -p "$KAFKA_DATA_DIR" "$KAFKA_LOG_DIR"
  check_kafka_ports_free
  kafka_props >"$KAFKA_PROPS"
  kafka_jvm_common
  cluster_id=$(random_cluster_id)
  format_kafka_storage "$java" "$cluster_id"
  launch_kafka "$java"
}

# restart_kafka: the broker again on the state left by `start` (same
# server.properties, data dir and cluster id); never wipes or reformats.
restart_kafka() {
  local java
  java=$(find_java)
  kafka_jvm_common
  # Only formats if `start` died between creating the dir and formatting it.
  format_kafka_storage "$java" "$(random_cluster_id)"
  launch_kafka "$java"
}

# server_log_size: current size in bytes of the broker log (0 if none), so a
# restart only looks at lines written after it.
server_log_size() {
  if [[ -f $KAFKA_SERVER_LOG ]]; then
    wc -c <"$KAFKA_SERVER_LOG" | tr -d ' '
  else
    echo 0
  fi
}

# wait_kafka [LOG_OFFSET]: waits for "Kafka Server started" in the broker log
# past byte LOG_OFFSET (default 0) and for an ApiVersions answer.
wait_kafka() {
  local from=$((${1:-0} + 1)) deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if has_exited "$KAFKA_PID" kafka.Kafka; then
      show_log_tail "$KAFKA_OUT" "$KAFKA_SERVER_LOG"
      log "Kafka (pid $(<"$KAFKA_PID")) exited during startup: $(exit_status_of "$(<"$KAFKA_PID")")"
      return 1
    fi
    # (the log rolled over at 50MB meanwhile: read the new file from its start)
    (($(server_log_size) + 1 >= from)) || from=1
    if tail -c "+$from" "$KAFKA_SERVER_LOG" 2>/dev/null | grep -q 'Kafka Server started' \
      && kafka_probe "$KAFKA_PORT"; then
      log "Kafka is up (pid $(<"$KAFKA_PID")): 127.0.0.1:$KAFKA_PORT"
      return 0
    fi
    sleep 1
  done
  show_log_tail "$KAFKA_OUT" "$KAFKA_SERVER_LOG"
  die "Kafka did not come up on 127.0.0.1:$KAFKA_PORT within ${START_TIMEOUT}s"
}

# ferretdb_backend: the backend the running FerretDB was started with (from its --handler flag).
ferretdb_backend() {
  tr '\0' '\n' <"/proc/$(<"$FERRETDB_PID")/cmdline" 2>/dev/null | sed -n 's/^--handler=//p'
}

# mongo_stand_up: FerretDB answers, on the backend asked for (and that backend's PostgreSQL runs).
mongo_stand_up() {
  is_running "$FERRETDB_PID" ferretdb && mongo_ping "$FERRETDB_PORT" || return 1
  [[ $(ferretdb_backend) == "$FERRETDB_BACKEND" ]] || return 1
  [[ $FERRETDB_BACKEND != postgresql ]] || is_running "$POSTGRES_PID" bin/postgres
}

# check_ports_free PORT...: dies naming the first port already taken.
check_ports_free() {
  local p
  for p in "$@"; do
    if port_open "$p"; then
      die "port 127.0.0.1:$p is already in use by another process (see FERRETDB_PORT, POSTGRES_PORT, KAFKA_PORT, KAFKA_CONTROLLER_PORT)"
    fi
  done
}

# prepare_mongo_stand: builds FerretDB if needed; finds PostgreSQL for that backend. Sets MONGO_STAND_PORTS.
prepare_mongo_stand() {
  mkdir -p "$CACHE_DIR" "$STATE_DIR"
  ensure_ferretdb
  MONGO_STAND_PORTS=("$FERRETDB_PORT")
  if [[ $FERRETDB_BACKEND == postgresql ]]; then
    find_postgres
    pg_user_prefix
    MONGO_STAND_PORTS+=("$POSTGRES_PORT")
  fi
}

cmd_start() {
  if mongo_stand_up && is_running "$KAFKA_PID" kafka.Kafka && kafka_probe "$KAFKA_PORT"; then
    log "already running (FerretDB pid $(<"$FERRETDB_PID") on $FERRETDB_BACKEND, Kafka pid $(<"$KAFKA_PID")); use 'stop' first for a clean start"
    return 0
  fi
  if is_running "$FERRETDB_PID" ferretdb || is_running "$KAFKA_PID" kafka.Kafka || is_running "$POSTGRES_PID" bin/postgres; then
    log "services only partly running, not answering or on another backend; restarting all"
  fi
  cmd_stop quiet

  prepare_mongo_stand
  # The event log's PostgreSQL, whichever backend FerretDB has.
  if [[ $FERRETDB_BACKEND != postgresql ]]; then
    find_postgres
    pg_user_prefix
    MONGO_STAND_PORTS+=("$POSTGRES_PORT")
  fi
  check_ports_free "${MONGO_STAND_PORTS[@]}" "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"
  ensure_kafka

  # If anything below fails (die exits), do not leave half of the services behind.
  trap 'rc=$?; if ((rc != 0)); then log "start failed, stopping what was started"; cmd_stop quiet; fi' EXIT
  start_postgres
  start_kafka
  wait_postgres
  start_ferretdb
  wait_ferretdb
  wait_kafka || die "Kafka exited during startup"
  trap - EXIT
  log "all services up; state in $STATE_DIR"
}

# ferretdb-start: only the MongoDB-wire stand (FerretDB and its backend), fresh; Kafka is not touched.
cmd_ferretdb_start() {
  if mongo_stand_up; then
    log "FerretDB already running (pid $(<"$FERRETDB_PID") on $FERRETDB_BACKEND); use 'ferretdb-stop' first for a clean start"
    return 0
  fi
  cmd_ferretdb_stop quiet || true
  prepare_mongo_stand
  check_ports_free "${MONGO_STAND_PORTS[@]}"
  trap 'rc=$?; if ((rc != 0)); then log "ferretdb-start failed, stopping what was started"; cmd_ferretdb_stop quiet; fi' EXIT
  if [[ $FERRETDB_BACKEND == postgresql ]]; then
    start_postgres
    wait_postgres
  fi
  start_ferretdb
  wait_ferretdb
  trap - EXIT
}

cmd_kafka_start() {
  if [[ ! -f $KAFKA_PROPS || ! -d $KAFKA_DATA_DIR ]]; then
    die "no Kafka state in $KAFKA_DIR; run '$0 start' first (kafka-start only restarts a broker stopped by kafka-stop)"
  fi
  # The data was written by a broker with these listeners; refuse to move it.
  if [[ $(<"$KAFKA_PROPS") != "$(kafka_props)" ]]; then
    die "$KAFKA_PROPS does not match the current settings (KAFKA_PORT=$KAFKA_PORT, KAFKA_CONTROLLER_PORT=$KAFKA_CONTROLLER_PORT, SERVICES_STATE_DIR=$STATE_DIR); use the same environment as for 'start', or run '$0 start' for a fresh broker"
  fi
  if is_running "$KAFKA_PID" kafka.Kafka; then
    if kafka_probe "$KAFKA_PORT"; then
      log "Kafka already running (pid $(<"$KAFKA_PID")): 127.0.0.1:$KAFKA_PORT"
      return 0
    fi
    die "Kafka process alive (pid $(<"$KAFKA_PID")) but not answering on 127.0.0.1:$KAFKA_PORT; use '$0 kafka-stop' first"
  fi
  rm -f "$KAFKA_PID"
  check_kafka_ports_free
  ensure_kafka
  mkdir -p "$KAFKA_LOG_DIR"

  local log_offset
  log_offset=$(server_log_size)
  # If it does not come up, do not leave a half-started broker behind (data is kept).
  trap 'rc=$?; if ((rc != 0)); then log "kafka-start failed, stopping Kafka"; stop_one Kafka "$KAFKA_PID" kafka.Kafka || true; fi' EXIT
  restart_kafka
  # A start that ends at once is tried once more (each end logged with its exit status): a broker was once
  # taken for dead while it was between nohup and java (has_exited), and another cause may be as rare.
  if ! wait_kafka "$log_offset"; then
    log "starting Kafka once more"
    log_offset=$(server_log_size)
    restart_kafka
    wait_kafka "$log_offset" || die "Kafka exited during startup, twice"
  fi
  trap - EXIT
}

# ------------------------------------------------------------------- stop --

# stop_one NAME PIDFILE PATTERN [SIGNAL]: SIGNAL (default TERM), then KILL after $STOP_TIMEOUT s.
stop_one() {
  local name=$1 pidfile=$2 pattern=$3 signal=${4:-TERM} pid i
  if ! is_running "$pidfile" "$pattern"; then
    rm -f "$pidfile"
    return 1
  fi
  pid=$(<"$pidfile")
  log "stopping $name (pid $pid)..."
  kill -"$signal" "$pid" 2>/dev/null || true
  for ((i = 0; i < STOP_TIMEOUT * 4; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name did not stop within ${STOP_TIMEOUT}s, sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
  fi
  rm -f "$pidfile"
  return 0
}

cmd_stop() {
  local quiet=${1:-} stopped=0
  # Kafka first: its shutdown is the slow one, FerretDB is independent.
  stop_one Kafka "$KAFKA_PID" kafka.Kafka && stopped=1
  cmd_ferretdb_stop quiet && stopped=1
  # The event log's PostgreSQL when FerretDB runs on SQLite (else ferretdb-stop stopped it).
  stop_one PostgreSQL "$POSTGRES_PID" bin/postgres INT && stopped=1
  if [[ -z $quiet ]]; then
    if ((stopped)); then log "stopped"; else log "nothing was running"; fi
  fi
}

# Stops FerretDB, then its PostgreSQL (whichever backend is configured now); returns 1 if neither ran.
cmd_ferretdb_stop() {
  local quiet=${1:-} stopped=1
  stop_one FerretDB "$FERRETDB_PID" ferretdb && stopped=0
  # INT: PostgreSQL's fast shutdown (TERM would wait for every client to disconnect).
  stop_one PostgreSQL "$POSTGRES_PID" bin/postgres INT && stopped=0
  if [[ -z $quiet ]] && ((stopped != 0)); then log "FerretDB was not running"; fi
  return "$stopped"
}

# Stops only Kafka; its data dir, logs and server.properties stay for kafka-start.
cmd_kafka_stop() {
  if stop_one Kafka "$KAFKA_PID" kafka.Kafka; then
    log "Kafka stopped; data kept in $KAFKA_DATA_DIR"
  else
    log "Kafka was not running"
  fi
}

# ---------------------------------------------------------------- varnish --

# varnish-start BACKEND_URL: Varnish on 127.0.0.1:$VARNISH_PORT in front of
# BACKEND_URL (http://host:port), with deploy/varnish/default.vcl; prints its URL.
cmd_varnish_start() {
  local backend=${1:-} host port vcl address i
  [[ $backend =~ ^http://([^/:]+):([0-9]+)/?$ ]] \
    || die "varnish-start takes the service's URL, http://HOST:PORT (got '${backend}')"
  host=${BASH_REMATCH[1]}
  port=${BASH_REMATCH[2]}
  PATH="$PATH:/usr/sbin" # where Debian puts varnishd, which a user's PATH may lack
  command -v varnishd >/dev/null 2>&1 \
    || die "varnishd not found (Debian: apt-get install varnish varnish-modules)"
  [[ -f $VARNISH_VCL ]] || die "missing $VARNISH_VCL"
  if is_running "$VARNISH_PID" varnishd; then
    log "Varnish already running (pid $(<"$VARNISH_PID")); stopping it first"
    stop_one Varnish "$VARNISH_PID" varnishd || true
  fi
  rm -rf "$VARNISH_DIR"
  mkdir -p "$VARNISH_DIR"
  # Started as root, varnishd reads the VCL and its working directory as the varnish user.
  chmod 755 "$VARNISH_DIR"
  # The same VCL, with the backend it is given.
  vcl="$VARNISH_DIR/default.vcl"
  sed -e "/^backend default {/,/^}/{s/\.host = \"[^\"]*\";/.host = \"$host\";/;s/\.port = \"[^\"]*\";/.port = \"$port\";/}" \
    "$VARNISH_VCL" >"$vcl"
  log "starting Varnish on 127.0.0.1:$VARNISH_PORT in front of $host:$port..."
  varnishd -a "127.0.0.1:$VARNISH_PORT" -f "$vcl" -n "$VARNISH_DIR/work" -s "malloc,$VARNISH_STORAGE" \
    -P "$VARNISH_PID" >"$VARNISH_DIR/varnishd.out" 2>&1 \
    || { show_log_tail "$VARNISH_DIR/varnishd.out"; die "varnishd did not start"; }
  for ((i = 0; i < START_TIMEOUT * 4; i++)); do
    address=$(varnishadm -n "$VARNISH_DIR/work" debug.listen_address 2>/dev/null | awk 'NF == 3 { print $2 ":" $3; exit }')
    [[ -n $address ]] && break
    sleep 0.25
  done
  [[ -n ${address:-} ]] || { stop_one Varnish "$VARNISH_PID" varnishd || true; die "Varnish did not report its address"; }
  log "Varnish is up (pid $(<"$VARNISH_PID")): http://$address/ (varnishstat -n $VARNISH_DIR/work)"
  echo "http://$address/"
}

cmd_varnish_stop() {
  if stop_one Varnish "$VARNISH_PID" varnishd; then
    log "Varnish stopped"
  else
    log "Varnish was not running"
  fi
}

# ----------------------------------------------------------------- status --

cmd_status() {
  local rc=0
  if is_running "$POSTGRES_PID" bin/postgres; then
    echo "postgresql: running (pid $(<"$POSTGRES_PID"), 127.0.0.1:$POSTGRES_PORT; the event log's, and FerretDB's on its postgresql backend)"
  else
    echo "postgresql: stopped"
    rc=1
  fi
  if is_running "$FERRETDB_PID" ferretdb && [[ $(ferretdb_backend) != "$FERRETDB_BACKEND" ]]; then
    echo "ferretdb: runs on $(ferretdb_backend), not on FERRETDB_BACKEND=$FERRETDB_BACKEND"
    rc=1
  fi
  if is_running "$FERRETDB_PID" ferretdb; then
    if mongo_ping "$FERRETDB_PORT"; then
      echo "ferretdb: running (pid $(<"$FERRETDB_PID"), mongodb://127.0.0.1:$FERRETDB_PORT/, $(ferretdb_backend) backend)"
    else
      echo "ferretdb: process alive (pid $(<"$FERRETDB_PID")) but not answering on 127.0.0.1:$FERRETDB_PORT"
      rc=1
    fi
  else
    echo "ferretdb: stopped"
    rc=1
  fi
  if is_running "$KAFKA_PID" kafka.Kafka; then
    if kafka_probe "$KAFKA_PORT"; then
      echo "kafka: running (pid $(<"$KAFKA_PID"), 127.0.0.1:$KAFKA_PORT)"
    else
      echo "kafka: process alive (pid $(<"$KAFKA_PID")) but not answering on 127.0.0.1:$KAFKA_PORT"
      rc=1
    fi
  else
    echo "kafka: stopped"
    rc=1
  fi
  return "$rc"
}

cmd_env() {
  echo "export MONGODB_URL=mongodb://127.0.0.1:$FERRETDB_PORT/"
  echo "export KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
  echo "export EVENT_LOG_URL=postgres://event_log@127.0.0.1:$POSTGRES_PORT/event_log"
}

usage() {
  cat >&2 <<EOF
usage: $0 start|stop|status|env|kafka-stop|kafka-start|ferretdb-start|ferretdb-stop|varnish-start URL|varnish-stop
  start        build/fetch (cached) and start FerretDB (on PostgreSQL, or SQLite with FERRETDB_BACKEND=sqlite)
               + Kafka + the event log's database on PostgreSQL, on fresh state; wait until they answer
  stop         stop them all (TERM, then KILL after ${STOP_TIMEOUT}s); safe when nothing runs
  status       show state; exit 0 only if all are up and answering
  env          print export lines: eval "\$($0 env)"
  kafka-stop   stop only Kafka (TERM, then KILL after ${STOP_TIMEOUT}s), keep its data; safe when stopped
  kafka-start  start Kafka again on the data kept since 'start' (same port, cluster id), wait until it answers
  ferretdb-start, ferretdb-stop
               only FerretDB and its backend (fresh state), as for bench/test-stands.ts; Kafka is not touched
  varnish-start URL
               start Varnish (deploy/varnish/default.vcl) on 127.0.0.1:\$VARNISH_PORT in front of the
               service at URL (http://host:port); prints Varnish's URL. FerretDB and Kafka are not touched
  varnish-stop stop that Varnish; safe when it does not run
EOF
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  kafka-stop) cmd_kafka_stop ;;
  kafka-start) cmd_kafka_start ;;
  ferretdb-start) cmd_ferretdb_start ;;
  ferretdb-stop) cmd_ferretdb_stop || true ;;
  varnish-start) cmd_varnish_start "${2:-}" ;;
  varnish-stop) cmd_varnish_stop ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac

# shellcheck shell=bash disable=SC2034  # sourced: the sourcing script uses these variables
# What scripts/services.sh (the integration servers on loopback) and scripts/stand.sh (the stand of hosts in
# network namespaces) share: building or fetching FerretDB and Kafka into the cache, finding Debian's
# PostgreSQL, and the probes that tell a server answers. Sourced, never run; the sourcing script defines
# log and die and sets LOG_LABEL (the prefix of its messages).
#
#   SERVICES_CACHE_DIR  where builds and downloads are cached, default $HOME/.cache/order-service-services

SERVERS_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${SERVICES_CACHE_DIR:-$HOME/.cache/order-service-services}"
KAFKA_POM="$SERVERS_SCRIPT_DIR/kafka/pom.xml"
KAFKA_LOG4J="$SERVERS_SCRIPT_DIR/kafka/log4j.properties"
POSTGRES_INDEXES_SQL="$SERVERS_SCRIPT_DIR/ferretdb-postgresql-indexes.sql"
FERRETDB_MODULE="github.com/FerretDB/FerretDB"
FERRETDB_VERSION="v1.24.2"
FERRETDB_BIN="$CACHE_DIR/ferretdb-$FERRETDB_VERSION/bin/ferretdb"

# is_running PIDFILE PATTERN: the pid in PIDFILE is alive and its command
# line contains PATTERN (guards against recycled pids).
is_running() {
  local pidfile=$1 pattern=$2 pid
  [[ -f $pidfile ]] || return 1
  pid=$(<"$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$pattern"
}

# has_exited PIDFILE PATTERN: whether the process the pidfile names has ended: gone, a zombie, or the pid
# now another program's. Not while it is between two execs (nohup, then java): its command line then reads
# empty for a moment, which is_running takes for "not running" (a start was once given up so).
has_exited() {
  local pidfile=$1 pattern=$2 pid cmdline state
  pid=$(<"$pidfile") || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 0
  [[ $state == Z ]] && return 0
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
  [[ -n $cmdline && $cmdline != *"$pattern"* ]]
}

# exit_status_of PID: how a background child of this shell ended ("exit status N", "killed by SIGKILL").
exit_status_of() {
  local status=0
  wait "$1" 2>/dev/null || status=$?
  if ((status == 127)); then
    echo "not a child of this shell, its status unknown"
  elif ((status > 128)); then
    echo "killed by SIG$(kill -l $((status - 128)))"
  else
    echo "exit status $status"
  fi
}

# mongo_ping PORT [HOST]: sends OP_MSG {ping: 1, $db: "admin"} and expects {ok: 1.0}.
mongo_ping() {
  local out
  # shellcheck disable=SC2016  # expanded by the inner bash
  out=$(timeout 5 bash -c '
    exec 3<>"/dev/tcp/$2/$1" || exit 1
    printf "\x33\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00\x00\x00\x00\x00\x00\x1e\x00\x00\x00\x10ping\x00\x01\x00\x00\x00\x02\$db\x00\x06\x00\x00\x00admin\x00\x00" >&3
    len=$(dd bs=1 count=4 <&3 2>/dev/null | od -An -tu4 | tr -d " ")
    [[ $len =~ ^[0-9]+$ ]] && (( len > 4 && len < 65536 )) || exit 1
    dd bs=1 count=$((len - 4)) <&3 2>/dev/null | od -An -tx1 | tr -d " \n"
  ' _ "$1" "${2:-127.0.0.1}" 2>/dev/null) || return 1
  # "ok" as a double 1.0: 0x01 'o' 'k' 0x00 00 00 00 00 00 00 f0 3f
  [[ $out == *016f6b00000000000000f03f* ]]
}

# kafka_probe PORT [HOST]: sends ApiVersions v0 (correlation id 42), expects error 0.
kafka_probe() {
  local out
  # shellcheck disable=SC2016  # expanded by the inner bash
  out=$(timeout 5 bash -c '
    exec 3<>"/dev/tcp/$2/$1" || exit 1
    printf "\x00\x00\x00\x0f\x00\x12\x00\x00\x00\x00\x00\x2a\x00\x05probe" >&3
    dd bs=1 count=10 <&3 2>/dev/null | od -An -tx1 | tr -d " \n"
  ' _ "$1" "${2:-127.0.0.1}" 2>/dev/null) || return 1
  # size(4 bytes) | correlation id 42 | error_code 0
  [[ ${out:8:12} == "0000002a0000" ]]
}

show_log_tail() {
  local f
  for f in "$@"; do
    [[ -s $f ]] || continue
    printf '[%s] ---- last lines of %s ----\n' "$LOG_LABEL" "$f" >&2
    tail -n 60 "$f" >&2
    printf '[%s] ---- end of %s ----\n' "$LOG_LABEL" "$f" >&2
  done
}

find_java() {
  if [[ -n ${JAVA_HOME:-} && -x $JAVA_HOME/bin/java ]]; then
    echo "$JAVA_HOME/bin/java"
  elif command -v java >/dev/null 2>&1; then
    command -v java
  else
    die "java not found (need Java 11+; set JAVA_HOME or put java on PATH)"
  fi
}

ensure_ferretdb() {
  if [[ -x $FERRETDB_BIN ]]; then
    return 0
  fi
  command -v go >/dev/null 2>&1 || die "go not found on PATH (needed to build FerretDB)"
  log "building FerretDB $FERRETDB_VERSION (first run only, takes a few minutes)..."

  local top="$CACHE_DIR/ferretdb-$FERRETDB_VERSION"
  local work="$top/build.$$"
  mkdir -p "$top/bin"
  rm -rf "$work"
  mkdir -p "$work"

  # `go install $FERRETDB_MODULE/cmd/ferretdb@$FERRETDB_VERSION` is not used on
  # purpose: the module as published lacks build/version/version.txt, and a
  # binary built from it panics at startup ("Invalid build/version/version.txt
  # file content"). So fetch the module source, add the version file, build.
  local json dir commit
  json=$(cd "$work" && GOFLAGS='' GO111MODULE=on go mod download -json "$FERRETDB_MODULE@$FERRETDB_VERSION") \
    || die "go mod download $FERRETDB_MODULE@$FERRETDB_VERSION failed"
  dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' | head -n 1)
  commit=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Hash": "\([0-9a-f]\{40\}\)",\{0,1\}$/\1/p' | head -n 1)
  [[ -n $dir && -f $dir/go.mod ]] || die "could not locate FerretDB module source (go mod download output: $json)"

  cp -R "$dir" "$work/src"
  chmod -R u+w "$work/src"
  echo "$FERRETDB_VERSION" >"$work/src/build/version/version.txt"
  [[ -z $commit ]] || echo "$commit" >"$work/src/build/version/commit.txt"

  (cd "$work/src" && GOFLAGS='' GO111MODULE=on CGO_ENABLED=0 \
    go build -buildvcs=false -trimpath -o "$work/ferretdb" ./cmd/ferretdb) \
    || die "building FerretDB failed"
  "$work/ferretdb" --version >/dev/null || die "the freshly built FerretDB does not run"

  mv -f "$work/ferretdb" "$FERRETDB_BIN"
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
  log "FerretDB built: $FERRETDB_BIN"
}

# Sets PG_BIN to the directory holding Debian's PostgreSQL server binaries.
find_postgres() {
  local dir
  if [[ -n ${POSTGRES_BIN_DIR:-} ]]; then
    PG_BIN=$POSTGRES_BIN_DIR
  else
    PG_BIN=
    # The newest major version installed (/usr/lib/postgresql/15/bin, 16/bin, ...).
    for dir in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V); do
      [[ -x $dir/postgres ]] && PG_BIN=$dir
    done
  fi
  [[ -n $PG_BIN && -x $PG_BIN/postgres && -x $PG_BIN/initdb && -x $PG_BIN/pg_isready && -x $PG_BIN/psql ]] \
    || die "PostgreSQL server binaries not found${PG_BIN:+ in $PG_BIN} (Debian: apt-get install postgresql; or set POSTGRES_BIN_DIR, or FERRETDB_BACKEND=sqlite)"
}

# PostgreSQL refuses to run as root: then the cluster belongs to Debian's `postgres` user.
# Sets AS_PG_USER to the command prefix that runs a program as the cluster's owner.
pg_user_prefix() {
  AS_PG_USER=()
  if [[ $(id -u) == 0 ]]; then
    id postgres >/dev/null 2>&1 || die "running as root, but there is no 'postgres' user to own the PostgreSQL cluster"
    AS_PG_USER=(setpriv --reuid=postgres --regid=postgres --init-groups --)
  fi
}

# Sets KAFKA_LIBS to a directory holding the broker's jars; resolved once per
# content of scripts/kafka/pom.xml.
ensure_kafka() {
  [[ -f $KAFKA_POM ]] || die "missing $KAFKA_POM"
  local hash
  hash=$(sha256sum "$KAFKA_POM" | cut -c1-16)
  KAFKA_LIBS="$CACHE_DIR/kafka-$hash/libs"
  if [[ -f $CACHE_DIR/kafka-$hash/.complete ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found on PATH (needed to fetch Kafka)"
  log "fetching Kafka jars from Maven Central (first run only)..."
  rm -rf "$KAFKA_LIBS.tmp"
  mkdir -p "$KAFKA_LIBS.tmp"
  # (sed strips the stray colour escapes Debian's mvn prints even in -B -q mode)
  mvn -B -q -Dstyle.color=never -f "$KAFKA_POM" dependency:copy-dependencies \
    -DoutputDirectory="$KAFKA_LIBS.tmp" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2 \
    || die "mvn dependency:copy-dependencies failed"
  compgen -G "$KAFKA_LIBS.tmp/kafka_2.13-*.jar" >/dev/null || die "kafka_2.13 jar missing after mvn"
  rm -rf "$KAFKA_LIBS"
  mv "$KAFKA_LIBS.tmp" "$KAFKA_LIBS"
  # keep the pom's target/ (if any) out of the repo
  rm -rf "$SERVERS_SCRIPT_DIR/kafka/target"
  touch "$CACHE_DIR/kafka-$hash/.complete"
  log "Kafka jars cached in $KAFKA_LIBS"
}

random_cluster_id() {
  # Kafka Uuid: 16 random bytes, URL-safe base64 without padding (22 chars).
  local id
  while :; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    [[ ${#id} -eq 22 && $id != -* && $id != AAAAAAAAAAAAAAAAAAAAAA && $id != AAAAAAAAAAAAAAAAAAAAAQ ]] && break
  done
  echo "$id"
}

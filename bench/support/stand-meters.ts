// What the stand of hosts (scripts/stand.sh) has spent so far, read from outside it: each process's CPU time
// (its whole process tree, from /proc), the read store's commands (FerretDB's own counters), the event log's
// rows and WAL, Kafka's offsets, and the bytes each host sent and received (its veth on the stand's bridge).
// Two readings apart give what happened between them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { Kafka, logLevel } from 'kafkajs';

export type StandEnv = {
  standId: string;
  stateDir: string;
  eventLogUrl: string;
  kafkaBrokers: string[];
  /** FerretDB's Prometheus metrics (its --debug-addr). */
  ferretdbMetricsUrl: string;
  hosts: string[];
};

export type Reading = {
  at: number;
  /** CPU ms per stand process (its tree: PostgreSQL's backends, nginx's workers). */
  cpuMs: Record<string, number>;
  /** FerretDB commands by name. */
  readStoreCommands: Record<string, number>;
  events: number;
  eventBytes: number;
  walBytes: number;
  /** Messages per Kafka topic (the sum of its partitions' high watermarks). */
  kafkaMessages: Record<string, number>;
  /** Bytes in and out of each host's interface. */
  hostBytes: Record<string, number>;
};

const clockTicksPerSecond = 100;

type ProcStat = { pid: number; ppid: number; ticks: number };

const procStats = (): ProcStat[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const fields = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ');
        // After the name: state ppid ... utime(12) stime(13) cutime(14) cstime(15), counted from state = 0.
        const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
        return [{ pid: Number(name), ppid: Number(fields[1]), ticks }];
      } catch {
        return []; // gone meanwhile
      }
    });

/** The CPU ms of each process named by a pid file in the stand's run/ dir, its descendants included. */
const cpuOfProcesses = (stateDir: string): Record<string, number> => {
  const stats = procStats();
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const treeTicks = (pid: number): number =>
    (stats.find((stat) => stat.pid === pid)?.ticks ?? 0) +
    (children.get(pid) ?? []).reduce((sum, child) => sum + treeTicks(child.pid), 0);
  const runDir = join(stateDir, 'run');
  return Object.fromEntries(
    readdirSync(runDir)
      .filter((file) => file.endsWith('.pid'))
      .map((file) => {
        const pid = Number(readFileSync(join(runDir, file), 'utf8').trim());
        return [file.replace(/\.pid$/, ''), (treeTicks(pid) * 1000) / clockTicksPerSecond];
      }),
  );
};

const readStoreCommands = async (metricsUrl: string): Promise<Record<string, number>> => {
  const text = await (await fetch(metricsUrl)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^ferretdb_client_requests_total\{command="([^"]+)"[^}]*\} (\d+)/gm)) {
    counts[match[1]!] = (counts[match[1]!] ?? 0) + Number(match[2]);
  }
  return counts;
};

const hostBytes = (standId: string, hosts: string[]) =>
  Object.fromEntries(
    hosts.map((host) => {
      const statistics = `/sys/class/net/st${standId}-${host}/statistics`;
      const bytes = (name: string) => Number(readFileSync(`${statistics}/${name}`, 'utf8'));
      return [host, bytes('rx_bytes') + bytes('tx_bytes')];
    }),
  );

export const standMeters = (env: StandEnv) => {
  const sql = postgres(env.eventLogUrl, { max: 1, onnotice: () => {} });
  const kafka = new Kafka({ brokers: env.kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  let connected = false;

  const kafkaMessages = async () => {
    if (!connected) await admin.connect();
    connected = true;
    const topics = (await admin.listTopics()).filter((topic) => !topic.startsWith('__'));
    const counts: Record<string, number> = {};
    for (const topic of topics) {
      const offsets = await admin.fetchTopicOffsets(topic);
      counts[topic] = offsets.reduce((sum, partition) => sum + Number(partition.high), 0);
    }
    return counts;
  };

  return {
    async read(): Promise<Reading> {
      const [log] = await sql<{ events: string; bytes: string; wal: string }[]>`
        SELECT (SELECT count(*) FROM event_log.events)::text AS events,
               pg_total_relation_size('event_log.events')::text AS bytes,
               pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS wal`;
      return {
        at: performance.now(),
        cpuMs: cpuOfProcesses(env.stateDir),
        readStoreCommands: await readStoreCommands(env.ferretdbMetricsUrl),
        events: Number(log!.events),
        eventBytes: Number(log!.bytes),
        walBytes: Number(log!.wal),
        kafkaMessages: await kafkaMessages(),
        hostBytes: hostBytes(env.standId, env.hosts),
      };
    },
    /** The log's head as a position (transaction id << 64 | serial), as the projections' checkpoints hold it. */
    async logHead(): Promise<bigint> {
      const [row] = await sql<{ tx: string; pos: string }[]>`
        SELECT transaction_id::text AS tx, position::text AS pos FROM event_log.events
        ORDER BY transaction_id DESC, position DESC LIMIT 1`;
      return row ? (BigInt(row.tx) << 64n) | BigInt(row.pos) : 0n;
    },
    /** Events after `position` (a packed position, as a checkpoint holds it), up to `until` when given. */
    async eventsBetween(
      position: bigint,
      until: bigint = (((1n << 64n) - 1n) << 64n) | ((1n << 63n) - 1n),
    ): Promise<number> {
      const split = (packed: bigint): [string, string] => [
        (packed >> 64n).toString(),
        (packed & ((1n << 64n) - 1n)).toString(),
      ];
      const [fromTx, fromPos] = split(position);
      const [toTx, toPos] = split(until);
      const [row] = await sql<{ count: string }[]>`
        SELECT count(*)::text AS count FROM event_log.events
        WHERE (transaction_id, position) > (${fromTx}::xid8, ${fromPos}::bigint)
          AND (transaction_id, position) <= (${toTx}::xid8, ${toPos}::bigint)`;
      return Number(row!.count);
    },
    /** Messages of `topic` that `group` has not committed yet. */
    async consumerLag(group: string, topic: string): Promise<number> {
      if (!connected) await admin.connect();
      connected = true;
      const [high, [committed]] = await Promise.all([
        admin.fetchTopicOffsets(topic),
        admin.fetchOffsets({ groupId: group, topics: [topic] }),
      ]);
      return high.reduce((lag, partition) => {
        const at = committed?.partitions.find((entry) => entry.partition === partition.partition);
        return lag + Number(partition.high) - Math.max(0, Number(at?.offset ?? 0));
      }, 0);
    },
    async close() {
      await sql.end();
      if (connected) await admin.disconnect();
    },
  };
};

export type StandMeters = ReturnType<typeof standMeters>;

/** What happened between two readings: every counter's difference. */
export const between = (before: Reading, after: Reading) => {
  const minus = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(Object.keys(b).map((key) => [key, (b[key] ?? 0) - (a[key] ?? 0)]));
  return {
    seconds: (after.at - before.at) / 1000,
    cpuMs: minus(before.cpuMs, after.cpuMs),
    readStoreCommands: minus(before.readStoreCommands, after.readStoreCommands),
    events: after.events - before.events,
    eventBytes: after.eventBytes - before.eventBytes,
    walBytes: after.walBytes - before.walBytes,
    kafkaMessages: minus(before.kafkaMessages, after.kafkaMessages),
    hostBytes: minus(before.hostBytes, after.hostBytes),
  };
};

export type Difference = ReturnType<typeof between>;

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { FaultTarget } from './fault-target.ts';

const stand = fileURLToPath(new URL('../../../scripts/stand.sh', import.meta.url));
const run = promisify(execFile);

/** The settings the figures name, when the stand's environment says them. */
const settingNames = [
  'KAFKA_SESSION_TIMEOUT_MS',
  'WEBHOOK_LEASE_MS',
  'WEBHOOK_TIMEOUT_MS',
  'EVENT_LOG_POOL_SIZE',
  'EVENT_LOG_STATEMENT_TIMEOUT_MS',
  'EVENT_LOG_POLL_INTERVAL_MS',
  'CONSISTENCY_TIMEOUT_MS',
  'READY_CHECK_TIMEOUT_MS',
  'WEBHOOK_RETRY_SCHEDULE',
];

/**
 * The settings the stand's processes run with, read from their own environment (/proc/PID/environ, by the
 * pid files in the stand's state dir): a dispatcher's, a command API's and the projections'.
 */
const runningSettings = (stateDir: string): Record<string, string> => {
  const settings: Record<string, string> = {};
  for (const process of ['disp1', 'cmd1', 'proj']) {
    const pid = readFileSync(join(stateDir, 'run', `${process}.pid`), 'utf8').trim();
    for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const [name, ...value] = entry.split('=');
      if (name && settingNames.includes(name)) settings[name] = value.join('=');
    }
  }
  return settings;
};

/** `NAME=value` lines (optionally `export`ed, the value optionally quoted) as a record. */
export const parseAssignments = (text: string): Record<string, string> => {
  const assignments: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!match) continue;
    const raw = match[2]!;
    assignments[match[1]!] = /^'.*'$|^".*"$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return assignments;
};

/**
 * The running stand of hosts (`scripts/stand.sh up`, with STAND_ID from the environment), as the fault
 * suite's target: its addresses from `scripts/stand.sh env`, its faults by `scripts/stand.sh <fault>`.
 */
export const standTarget = async (): Promise<FaultTarget> => {
  const { stdout } = await run(stand, ['env'], { timeout: 60_000 });
  const env = parseAssignments(stdout);
  const required = (name: string) => {
    const value = env[name];
    if (!value)
      throw new Error(`scripts/stand.sh env printed no ${name}: is the stand up (scripts/stand.sh up)?`);
    return value;
  };
  const adminNames = [
    'DATA_DIR',
    'MONGODB_URL',
    'MONGODB_DATABASE',
    'EVENT_LOG_URL',
    'PERSONAL_DATA_KEY_FILE',
  ];
  return {
    baseUrl: required('BASE_URL'),
    receiverUrl: required('RECEIVER_URL'),
    eventLogUrl: required('EVENT_LOG_URL'),
    mongodb: { url: required('MONGODB_URL'), database: env['MONGODB_DATABASE'] ?? 'order_service' },
    adminEnv: Object.fromEntries(
      Object.entries(env).filter(([name]) => adminNames.includes(name) || name.startsWith('PERSONAL_DATA')),
    ),
    settings: runningSettings(required('STAND_STATE_DIR')),
    logsDir: join(required('STAND_STATE_DIR'), 'logs'),
    async fault(...args) {
      await run(stand, args, { timeout: 180_000 });
    },
  };
};

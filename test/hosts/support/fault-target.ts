/**
 * What the fault suite runs against, however it was started: the service's address (a router in front of
 * its processes), a webhook receiver that lists what it got, the stores an auditor reads, and the faults
 * it can inject. The stand of hosts (scripts/stand.sh) is one; the load and the checker know nothing else.
 */
export type FaultTarget = {
  baseUrl: string;
  /** The receiver host: POSTs to any path under it are recorded, `GET /received?from=N` lists them. */
  receiverUrl: string;
  /** The event log (both hosts, read-write), read by the checker straight from PostgreSQL. */
  eventLogUrl: string;
  /** The read store, where the suite adds its users as the admin CLI would. */
  mongodb: { url: string; database: string };
  /** What `npm run admin` needs to reach the target's stores (projections:verify). */
  adminEnv: Record<string, string>;
  /** The settings the processes run with that decide how fast a fault heals: printed with the figures. */
  settings: Record<string, string>;
  /** Where the processes' logs are, one `<process>.log` each: searched for what a failed case missed. */
  logsDir?: string;
  /** Runs one fault subcommand (`kill cmd1`, `heal proj`, `failover`...). */
  fault(...args: string[]): Promise<void>;
};

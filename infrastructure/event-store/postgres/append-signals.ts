import postgres, { type Options, type Sql } from 'postgres';
import type { GlobalPosition } from '../event-store.ts';

const channel = 'event_log_appended';

/**
 * How the processes sharing a PostgreSQL log tell each other of appends. An append's own transaction does
 * not NOTIFY: PostgreSQL serialises the commits of notifying transactions on one lock, which would make
 * every append wait for every other's commit. Instead each process sends the latest position it appended,
 * at most one NOTIFY in flight at a time, after the append committed. Listeners are woken with that
 * position, so a subscription that cannot see it yet (an older transaction is still open) knows to look
 * again soon rather than at the slow poll.
 */
export const createAppendSignals = ({
  url,
  options,
  wake,
}: {
  url: string;
  options: Options<Record<string, never>>;
  /** Wakes this process's subscriptions. */
  wake: () => void;
}) => {
  let latest = 0n;
  let unsent: GlobalPosition | null = null;
  let sending = false;
  let listener: Sql | null = null;
  // A connection of its own: under load a NOTIFY on the appends' pool held one of its connections.
  let notifier: Sql | null = null;
  let closed = false;

  const learn = (position: GlobalPosition) => {
    if (position > latest) latest = position;
    wake();
  };

  const send = async () => {
    sending = true;
    while (unsent !== null && !closed) {
      const position = unsent;
      unsent = null;
      // Lost notifications cost only latency: the listeners' slow poll finds the events anyway.
      notifier ??= postgres(url, { ...options, max: 1 });
      await notifier`SELECT pg_notify(${channel}, ${position.toString()})`.catch(() => undefined);
    }
    sending = false;
  };

  /** LISTENs on a connection of its own, again after every reconnection, until closed. */
  const listenOnce = async () => {
    while (!closed) {
      try {
        await listener!`LISTEN event_log_appended`;
        // Whatever was appended while not listening: the subscriptions look now.
        wake();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };

  return {
    /** Called after an append of this process committed. */
    appended(position: GlobalPosition) {
      learn(position);
      unsent = position;
      if (!sending) void send();
    },
    /** Starts listening, once: called by every subscription. */
    listen() {
      if (listener || closed) return;
      // onnotify is the hook postgres.js's own listen() is built on; unlike listen(), a LISTEN that fails
      // after a reconnection is tried again here, not dropped.
      const onnotify = (_channel: string, payload: string) => {
        if (/^\d+$/.test(payload)) learn(BigInt(payload));
      };
      listener = postgres(url, {
        ...options,
        max: 1,
        idle_timeout: 0,
        max_lifetime: null,
        onclose: () => void listenOnce(),
        ...({ onnotify } as object),
      });
      void listenOnce();
    },
    /** The largest position this process appended or was told of. */
    latest: () => latest,
    async close() {
      closed = true;
      await Promise.all([listener?.end({ timeout: 1 }), notifier?.end({ timeout: 1 })]);
    },
  };
};

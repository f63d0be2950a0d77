import postgres from 'postgres';
import { clientOptions } from '../../../infrastructure/event-store/postgres/postgres-connection.ts';
import { orderStreamName } from '../../../domain/orders/order.ts';
import type { AcknowledgedWrite, LoadOrder, WriteKind } from './load.ts';

/** An order event as the log holds it, with the X-Request-Id of the write that appended it. */
export type LogEvent = {
  id: string;
  streamId: string;
  revision: number;
  type: string;
  requestId: string | null;
};

/** The one event each kind of write appends. */
const eventTypeOf: Record<WriteKind, string> = {
  place: 'OrderPlaced',
  confirm: 'OrderConfirmed',
  pay: 'PaymentReceived',
  ship: 'OrderShipped',
  deliver: 'OrderDelivered',
  cancel: 'OrderCancelled',
};

/**
 * The events of the log the load's writes appended, read straight from PostgreSQL (not through the
 * service's adapter, which is what is under test): by their X-Request-Id, in whatever stream (a placement
 * applied twice would be a second order), and every event of the load's orders.
 */
export const readLoadEvents = async (
  eventLogUrl: string,
  orders: readonly LoadOrder[],
): Promise<LogEvent[]> => {
  const streams = orders.map((order) => orderStreamName(order.id));
  const requestIds = orders.flatMap((order) => order.writes.map((write) => write.requestId));
  const sql = postgres(eventLogUrl, {
    ...clientOptions({ url: eventLogUrl, poolSize: 1, statementTimeoutMs: 60_000 }, 'fault-suite-checker'),
    // The primary, not a hot standby: a synchronous standby has a commit on disk before it can show it.
    target_session_attrs: 'primary',
  });
  try {
    const rows = await sql<
      { id: string; stream_id: string; revision: string; type: string; request_id: string | null }[]
    >`SELECT id, stream_id, revision::text, type, metadata->>'correlationId' AS request_id
        FROM event_log.events
       WHERE stream_id = ANY(string_to_array(${streams.join(',')}, ','))
          OR metadata->>'correlationId' = ANY(string_to_array(${requestIds.join(',')}, ','))`;
    return rows.map((row) => ({
      id: row.id,
      streamId: row.stream_id,
      revision: Number(row.revision),
      type: row.type,
      requestId: row.request_id,
    }));
  } finally {
    await sql.end();
  }
};

export type LogVerdict = {
  acknowledged: number;
  lost: AcknowledgedWrite[];
  duplicated: AcknowledgedWrite[];
  outOfOrder: AcknowledgedWrite[];
  /** Each acknowledged write's event, by request id: what webhooks are owed for. */
  eventOf: Map<string, LogEvent>;
};

/**
 * Every acknowledged write in the log once, as itself (its event's type, in its order's stream), and each
 * order's acknowledged writes at increasing revisions, in the order they were acknowledged.
 */
export const checkLog = (orders: readonly LoadOrder[], events: readonly LogEvent[]): LogVerdict => {
  const byRequest = new Map<string, LogEvent[]>();
  for (const event of events) {
    if (event.requestId === null) continue;
    byRequest.set(event.requestId, [...(byRequest.get(event.requestId) ?? []), event]);
  }
  const verdict: LogVerdict = {
    acknowledged: 0,
    lost: [],
    duplicated: [],
    outOfOrder: [],
    eventOf: new Map(),
  };
  for (const order of orders) {
    let lastRevision = -1;
    for (const write of order.writes) {
      verdict.acknowledged++;
      // Its events wherever they are (a placement appended twice is two orders), one in its order's stream.
      const found = (byRequest.get(write.requestId) ?? []).filter(
        (event) => event.type === eventTypeOf[write.kind],
      );
      const event = found.find(({ streamId }) => streamId === orderStreamName(order.id));
      if (!event) {
        verdict.lost.push(write);
        continue;
      }
      if (found.length > 1) verdict.duplicated.push(write);
      verdict.eventOf.set(write.requestId, event);
      if (event.revision <= lastRevision) verdict.outOfOrder.push(write);
      lastRevision = event.revision;
    }
  }
  return verdict;
};

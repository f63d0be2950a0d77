/**
 * The event log port. Streams are append-only sequences of events with a 0-based revision;
 * the whole log orders every event of every stream by a global position that only increases.
 */

/** A position in the whole log. bigint, because EventStoreDB positions exceed 2^53. */
export type GlobalPosition = bigint;

export type Actor = { userId: string; roles: readonly string[] };

export type EventMetadata = {
  /** Who acted; null for what the system does on its own (a scheduled job, a migration). */
  actor: Actor | null;
  /** The request this event came from (its request id). */
  correlationId: string;
  /** The message that caused this event: a command id or another event's id; null when none. */
  causationId: string | null;
  /** ISO 8601 UTC timestamp of when the fact happened, from the injected clock. */
  occurredAt: string;
  /** The version of the event's data (its type's schema); absent on events stored before versions: 1. */
  schemaVersion?: number;
};

export type EventToAppend = {
  /** A UUID chosen by the appender; consumers deduplicate by it. */
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
};

/**
 * An event as read. Readers look at it and never change it: an adapter may hand several readers the same
 * object (the node:sqlite log keeps recent events, frozen, for its followers) and may parse its metadata
 * only when first read. Every adapter guarantees that nothing one reader does to an event changes what
 * another reads (test/contracts/event-store.contract.ts).
 */
export type StreamEvent = Readonly<
  Omit<EventToAppend, 'data' | 'metadata'> & {
    data: Readonly<Record<string, unknown>>;
    metadata: Readonly<EventMetadata>;
    streamId: string;
    revision: number;
  }
>;

export type RecordedEvent = StreamEvent & { readonly position: GlobalPosition };

export const NO_STREAM = 'no-stream';
export type ExpectedRevision = typeof NO_STREAM | number;

export type AppendResult = {
  /** The revision of the stream's last event: the expected revision of the next append. */
  nextExpectedRevision: number;
  /** The global position of the last appended event. */
  position: GlobalPosition;
};

export type EventStore = {
  /** Appends atomically, all or nothing, if the stream is exactly at the expected revision. */
  appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: { expectedRevision: ExpectedRevision },
  ): Promise<AppendResult>;

  /** A stream's events in revision order; an empty array for a stream that does not exist. */
  readStream(
    streamId: string,
    options?: { fromRevision?: number; maxCount?: number },
  ): Promise<StreamEvent[]>;

  /**
   * Up to maxCount events of the whole log after a position (exclusive), in log order. A position this log
   * never issued and never will (see InvalidPositionError) is refused with that error; so is it by
   * readAllBackwards and subscribeToAll.
   */
  readAll(options: { after?: GlobalPosition; maxCount: number }): Promise<RecordedEvent[]>;

  /** Up to maxCount events of the whole log before a position (exclusive; from the end when absent), newest first. */
  readAllBackwards(options: { before?: GlobalPosition; maxCount: number }): Promise<RecordedEvent[]>;

  /**
   * Every event after a position (exclusive; from the start when absent): first those already stored,
   * then each new one as it is appended. Ends when the signal aborts or the consumer stops iterating.
   */
  subscribeToAll(options?: { after?: GlobalPosition; signal?: AbortSignal }): AsyncIterable<RecordedEvent>;

  /** The position of the last event in the log, or null while the log is empty. */
  headPosition(): Promise<GlobalPosition | null>;

  /** The largest position this log can hold: a position beyond it names nothing (400 where a client sent it). */
  readonly maxPosition: GlobalPosition;

  close(): Promise<void>;
};

/**
 * A position given to a read that this log never issued and never will, such as 5 on EventStoreDB (whose
 * packed positions are (commit, prepare) pairs, and no event's prepare position is past its commit
 * position): nothing was read. Where a client sent the position, a 400. An adapter whose every whole
 * number from 0 to maxPosition is a position to read from (node:sqlite: row ids; PostgreSQL: a bigint
 * sequence) never throws it.
 */
export class InvalidPositionError extends Error {
  readonly kind = 'invalid-position';
  readonly position: GlobalPosition;
  constructor(position: GlobalPosition) {
    super(`${position.toString()} is no position of this event log`);
    this.position = position;
  }
}

/** The stream was not at the expected revision: someone else appended first. Nothing was appended. */
export class WrongExpectedRevisionError extends Error {
  readonly kind = 'wrong-expected-revision';
  readonly streamId: string;
  readonly expectedRevision: ExpectedRevision;
  readonly actualRevision: ExpectedRevision;
  constructor(streamId: string, expectedRevision: ExpectedRevision, actualRevision: ExpectedRevision) {
    super(`stream ${streamId} is at revision ${actualRevision}, expected ${expectedRevision}`);
    this.streamId = streamId;
    this.expectedRevision = expectedRevision;
    this.actualRevision = actualRevision;
  }
}

/**
 * The log could not be reached, or did not answer in time (a lost connection, a failover under way, a
 * statement timeout). An append that meets it may or may not have been committed: a client retries with its
 * Idempotency-Key. The HTTP layer answers 503 with Retry-After.
 */
export class EventLogUnavailableError extends Error {
  readonly kind = 'event-log-unavailable';
}

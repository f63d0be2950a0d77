import {
  NO_STREAM,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type GlobalPosition,
} from '../event-store/event-store.ts';
import type { Decider } from '../../domain/shared/decider.ts';
import type { EventCodec } from '../../domain/shared/event-codec.ts';

export type Handled<Event, State, View = null> = {
  /** Every event of the stream after the command, the new ones last, as the current versions. */
  history: Event[];
  /** The handler's view of the stream after the command (its `view` fold); null without one, or no events. */
  view: View | null;
  /** What the command appended (none when it changed nothing). */
  appended: Event[];
  /** The state after the command. */
  state: State;
  /** Stream revision of the stream's last event; -1 when the stream has none. */
  revision: number;
  /** Log position of the last appended event: a Consistency-Token; null when nothing was appended. */
  position: GlobalPosition | null;
  /**
   * A log position at or after every event of the stream after the command, what its answer's
   * Consistency-Token names: the last appended event's; when nothing was appended, the log's head as read
   * after the stream (null while the log is empty; every adapter's head counts every committed event).
   */
  readAt: GlobalPosition | null;
};

export type HandleOptions<Event, State, View = null> = {
  metadata: EventMetadata;
  /**
   * Checked against the history read (and its view), before deciding; throws to refuse (an HTTP
   * precondition, who may act on the aggregate). Runs again on every retry, so a concurrent change the
   * caller has not seen fails it instead of being decided over.
   */
  precondition?: (history: readonly Event[], state: State, view: View | null) => void | Promise<void>;
  /** The stream cannot exist yet (its id was just chosen): the first attempt does not read it. */
  newStream?: boolean;
};

/** Every attempt lost the race to another writer of the same stream. */
export class ConcurrencyExhaustedError extends Error {
  readonly kind = 'concurrency-exhausted';
  readonly streamId: string;
  constructor(streamId: string, attempts: number) {
    super(`${streamId} changed concurrently on each of ${attempts} attempts`);
    this.streamId = streamId;
  }
}

/**
 * The one way an event-sourced aggregate changes: read its stream through the codec, replay it, check the
 * precondition, decide, and append at the revision read. When another writer appended first, read and
 * decide again: the decision then sees their events, so no history the decider forbids is ever written.
 */
export const createCommandHandler = <
  Command,
  Event extends { type: string; data: unknown },
  State,
  View = null,
>({
  eventStore,
  codec,
  decider,
  view,
  newId,
  seal = async (event) => event,
  maxAttempts = 5,
}: {
  eventStore: EventStore;
  codec: EventCodec<Event>;
  decider: Decider<Command, Event, State>;
  /**
   * A view of the stream folded in the same pass as the decision state (an order's details, say), for the
   * precondition and the command's answer: what the caller is shown, which the decision state need not hold.
   */
  view?: (view: View | null, event: Event) => View;
  /** Ids of the appended events. */
  newId: () => string;
  /**
   * Seals the personal fields of each new event (infrastructure/personal-data/seal-events.ts) before the
   * codec encodes it: the log, and everything that copies from it, holds them sealed only. Given the
   * stream's events before it (whose owner an event's personal data may be).
   */
  seal?: (event: Event, before: readonly Event[]) => Promise<Event>;
  maxAttempts?: number;
}) => {
  const readHistory = async (streamId: string) => {
    const stored = await eventStore.readStream(streamId);
    const history = stored.map((event) => {
      const decoded = codec.decode({ ...event, schemaVersion: event.metadata.schemaVersion });
      if (!decoded) throw new Error(`${streamId} holds a ${event.type}, which is not one of its events`);
      return decoded;
    });
    return { history, revision: stored.length - 1 };
  };

  const viewOf = (events: readonly Event[], from: View | null = null): View | null =>
    view ? events.reduce<View | null>(view, from) : null;

  return {
    async handle(
      streamId: string,
      command: Command,
      options: HandleOptions<Event, State, View>,
    ): Promise<Handled<Event, State, View>> {
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const { history, revision } =
          attempt === 1 && options.newStream ? { history: [], revision: -1 } : await readHistory(streamId);
        const state = history.reduce(decider.evolve, decider.initialState());
        const viewBefore = viewOf(history);
        await options.precondition?.(history, state, viewBefore);
        const decided = decider.decide(command, state);
        const events =
          decided.length === 0
            ? decided
            : await Promise.all(
                decided.map((event, index) => seal(event, [...history, ...decided.slice(0, index)])),
              );
        const after = events.reduce(decider.evolve, state);
        if (events.length === 0) {
          const readAt = await eventStore.headPosition();
          return { history, view: viewBefore, appended: [], state: after, revision, position: null, readAt };
        }
        try {
          const appended = await eventStore.appendToStream(
            streamId,
            events.map((event) => {
              const { type, data, schemaVersion } = codec.encode(event);
              return { id: newId(), type, data, metadata: { ...options.metadata, schemaVersion } };
            }),
            { expectedRevision: revision === -1 ? NO_STREAM : revision },
          );
          return {
            history: [...history, ...events],
            view: viewOf(events, viewBefore),
            appended: events,
            state: after,
            revision: appended.nextExpectedRevision,
            position: appended.position,
            readAt: appended.position,
          };
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError)) throw error;
        }
      }
      throw new ConcurrencyExhaustedError(streamId, maxAttempts);
    },
  };
};

export type CommandHandler<
  Command,
  Event extends { type: string; data: unknown },
  State,
  View = null,
> = ReturnType<typeof createCommandHandler<Command, Event, State, View>>;

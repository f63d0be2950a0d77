import { orderDecider } from '../domain/order/order-decider.ts';
import { orderFromHistory } from '../domain/order/order-events.ts';
import { orderStreamName, type Order, type OrderCommand, type PlacedOrder } from '../domain/order/order.ts';
import {
  NO_STREAM,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type GlobalPosition,
} from '../infrastructure/event-store/event-store.ts';

export type CommandResult = {
  order: PlacedOrder;
  /** Stream revision of the order's last event. */
  revision: number;
  /** Log position of the order's last event: the Consistency-Token of the answer. */
  position: GlobalPosition;
};

export type CommandOptions = {
  metadata: EventMetadata;
  /**
   * Checked against the state read, before deciding; throws to refuse (the HTTP layer's If-Match). Runs
   * again on every retry, so a concurrent change the caller has not seen fails it instead of being decided
   * over.
   */
  precondition?: (state: Order) => void;
};

/** Every retry lost the race to another writer of the same order. */
export class ConcurrencyExhaustedError extends Error {
  readonly kind = 'concurrency-exhausted';
  readonly orderId: string;
  constructor(orderId: string, attempts: number) {
    super(`order ${orderId} changed concurrently on each of ${attempts} attempts`);
    this.orderId = orderId;
  }
}

/**
 * The one way orders change: read the order's stream, replay it, decide, and append with the revision
 * read. When another writer appended first, read and decide again: the decision then sees their events,
 * so no history the state machine forbids is ever written.
 */
export const createOrderCommandHandler = ({
  eventStore,
  newId,
  maxAttempts = 5,
}: {
  eventStore: EventStore;
  newId: () => string;
  maxAttempts?: number;
}) => ({
  async handle(orderId: string, command: OrderCommand, options: CommandOptions): Promise<CommandResult> {
    const streamId = orderStreamName(orderId);
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      // A new order's id was just chosen: its stream cannot exist, so the first attempt skips the read
      // (were it there after all, the append fails on NO_STREAM and the retry reads it).
      const history =
        attempt === 1 && command.type === 'PlaceOrder' ? [] : await eventStore.readStream(streamId);
      const state = orderFromHistory(history);
      options.precondition?.(state);
      const events = orderDecider.decide(command, state);
      try {
        const appended = await eventStore.appendToStream(
          streamId,
          events.map((event) => ({
            id: newId(),
            type: event.type,
            data: event.data,
            metadata: options.metadata,
          })),
          { expectedRevision: history.length === 0 ? NO_STREAM : history.length - 1 },
        );
        const order = events.reduce(orderDecider.evolve, state);
        if (order.status === 'none') throw new Error(`${command.type} left no order`);
        return { order, revision: appended.nextExpectedRevision, position: appended.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
    throw new ConcurrencyExhaustedError(orderId, maxAttempts);
  },
});

export type OrderCommandHandler = ReturnType<typeof createOrderCommandHandler>;

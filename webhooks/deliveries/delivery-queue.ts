import { createHash } from 'node:crypto';

/**
 * The dispatcher's retry state: one delivery per (subscription, event), durable from the moment the
 * dispatcher accepts the event until the receiver took it, it was dead-lettered, or its subscription went.
 * Deliveries of one ordering key (an order) to one subscription go out one at a time, in sequence order.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'dead' | 'cancelled';

export type Delivery = {
  id: string;
  subscriptionId: string;
  /** The public event's id: the `webhook-id` header, the same on every attempt. */
  eventId: string;
  eventType: string;
  /** Deliveries with the same key go to a subscription in sequence order: the order id. */
  orderingKey: string;
  /** The event's place within its key: the order's stream revision. */
  sequence: number;
  /** The request body, fixed when the event was accepted: every attempt sends the same bytes. */
  body: string;
  status: DeliveryStatus;
  /** Attempts made so far, since an admin's last retry if there was one: what the retry schedule counts. */
  attempts: number;
  /**
   * Attempts made before an admin's last retry restarted the schedule (absent: none): the log numbers each
   * attempt of a delivery on from all of them, so a retried delivery's attempts never repeat a number.
   */
  earlierAttempts?: number;
  /** Epoch ms: when a pending delivery may be attempted. */
  nextAttemptAt: number;
  createdAt: number;
  /** The dispatcher instance holding it while an attempt is under way, and until when. */
  lease: { owner: string; until: number } | null;
};

export type NewDelivery = Omit<Delivery, 'status' | 'attempts' | 'earlierAttempts' | 'lease'>;

/** What an attempt leads to. */
export type Settlement =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: number }
  | { status: 'dead' }
  | { status: 'cancelled' };

/** A lease: who holds a delivery for its attempts, and until when (epoch ms). */
export type Lease = { owner: string; leaseUntil: number };

/** A (subscription, ordering key) line: its deliveries go out one at a time, in sequence order. */
export type Line = { subscriptionId: string; orderingKey: string };

type PendingKeys =
  'id' | 'eventId' | 'eventType' | 'orderingKey' | 'sequence' | 'nextAttemptAt' | 'createdAt';

/**
 * A delivery not yet settled, as an admin sees it: what it carries, how far it got, and the delivery at the
 * head of its line that it waits behind (null: it is the head, attempted when due).
 */
export type PendingDelivery = Pick<Delivery, PendingKeys> & {
  /** Attempts made so far, an admin's retries included: the next one is numbered after them. */
  attemptsMade: number;
  waitingBehind: string | null;
};

export type DeliveryQueue = {
  /**
   * Adds deliveries; one whose id is there already is left as it is (the same event accepted twice). With
   * `claim`, the deliveries added are held by that lease from the start, so that the instance that accepted
   * them delivers them without another round trip to claim them. Resolves to the ids added (with `claim`:
   * the ids now held by it); an id left out was there already, pending or settled.
   */
  enqueue(deliveries: readonly NewDelivery[], claim?: Lease): Promise<string[]>;
  get(id: string): Promise<Delivery | null>;
  /**
   * Pending deliveries that may be attempted now: due, not leased (or their lease ran out), and first of
   * their (subscription, ordering key) line among the pending ones; earliest due first.
   */
  due(options: { now: number; limit: number; excludeSubscriptions?: readonly string[] }): Promise<Delivery[]>;
  /** Takes a due delivery for one attempt; false when another instance holds it. */
  claim(id: string, options: { owner: string; now: number; leaseUntil: number }): Promise<boolean>;
  /**
   * Records the attempt's outcome and ends the lease; false when the lease was lost to another instance.
   * `held`: the owner's lease runs until `until` and it is `now`; while it has not run out, no other
   * instance can have taken the delivery, and an adapter may write without checking the lease again.
   */
  settle(
    id: string,
    owner: string,
    settlement: Settlement,
    held?: { until: number; now: number },
  ): Promise<boolean>;
  /**
   * settle for several deliveries in one write where the store allows (one round trip), each held by its
   * owner's unexpired lease as the delivery says (`delivery.lease`); says for each whether it was settled.
   */
  settleAll(
    settlements: readonly { delivery: Delivery; settlement: Settlement; now: number }[],
  ): Promise<boolean[]>;
  /**
   * Makes any delivery pending again, due now, with a fresh count of attempts for the retry schedule (an
   * admin's retry); the attempts made so far are added to `earlierAttempts`.
   */
  redeliver(id: string, now: number): Promise<boolean>;
  /**
   * The ids of a subscription's dead-lettered deliveries accepted at or after `since` (epoch ms), oldest
   * first, at most `limit`: what an admin's recovery delivers again.
   */
  deadSince(subscriptionId: string, since: number, limit: number): Promise<string[]>;
  /**
   * A subscription's pending deliveries, oldest accepted first, at most `limit`; `more` when there are
   * others after them. Each says which delivery heads its line when it is not the head itself.
   */
  pendingOf(subscriptionId: string, limit: number): Promise<{ deliveries: PendingDelivery[]; more: boolean }>;
  /** The earliest time a pending delivery falls due; null when none is pending. */
  nextDueAt(): Promise<number | null>;
  /** Ends the leases `owner` holds on these deliveries (a graceful stop, or a line handed back). */
  release(ids: readonly string[], owner: string): Promise<void>;
  /** The lines that have a pending delivery: what an instance taking over partitions must not overtake. */
  pendingLines(): Promise<Line[]>;
  /** Ends every lease: for a single dispatcher starting up after a crash. */
  releaseLeases(): Promise<void>;
};

/** A pending delivery as pendingOf gives it, with the head of its line (among those pending) named. */
export const asPendingDelivery = (
  delivery: Pick<Delivery, PendingKeys | 'attempts' | 'earlierAttempts'>,
  headOfLine: string,
): PendingDelivery => ({
  id: delivery.id,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  orderingKey: delivery.orderingKey,
  sequence: delivery.sequence,
  nextAttemptAt: delivery.nextAttemptAt,
  createdAt: delivery.createdAt,
  attemptsMade: delivery.attempts + (delivery.earlierAttempts ?? 0),
  waitingBehind: headOfLine === delivery.id ? null : headOfLine,
});
/** The same subscription and event always give the same delivery id: accepting an event twice adds nothing. */
export const deliveryIdFor = (subscriptionId: string, eventId: string): string => {
  const hex = createHash('sha256').update(`${subscriptionId}\n${eventId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 17), 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** The number the log gives a delivery's next attempt: 1 for its first, counting on across an admin's retries. */
export const nextAttemptNumber = (delivery: Pick<Delivery, 'attempts' | 'earlierAttempts'>): number =>
  (delivery.earlierAttempts ?? 0) + delivery.attempts + 1;

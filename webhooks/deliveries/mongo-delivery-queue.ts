import {
  MongoServerError,
  type Collection,
  type Db,
  type Filter,
  type OptionalUnlessRequiredId,
  type UpdateFilter,
} from 'mongodb';
import type { Delivery, DeliveryQueue, DeliveryStatus, Settlement } from './delivery-queue.ts';
import { duplicatesOfInsert } from '../../infrastructure/mongo/duplicate-keys.ts';
import { pendingOfIn } from './mongo-pending-deliveries.ts';

export type DeliveryDocument = Omit<Delivery, 'id'> & {
  _id: string;
  /** Leases granted so far: the number of the next claim. */
  claims: number;
};
/** One per lease granted, `${deliveryId}/${claim number}`: its unique _id is what makes a claim exclusive. */
type ClaimDocument = { _id: string; owner: string; until: number };
/** One per delivery enqueued or moved out: what keeps a settled delivery from being enqueued again. */
type AcceptedDocument = { _id: string };

const duplicateKey = 11000;
const isDuplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === duplicateKey;

/** Inserts what is not there yet; the ids that were there already. */
const insertNew = async <T extends { _id: string }>(collection: Collection<T>, documents: T[]) => {
  try {
    await collection.insertMany(documents as OptionalUnlessRequiredId<T>[], { ordered: false });
    return new Set<string>();
  } catch (error) {
    const duplicates = duplicatesOfInsert(error, documents.length);
    if (duplicates === null) throw error;
    return new Set([...duplicates].map((index) => documents[index]!._id));
  }
};

const toDelivery = ({ _id, claims: _claims, ...rest }: DeliveryDocument): Delivery => ({ id: _id, ...rest });
const lineOf = ({ subscriptionId, orderingKey }: Pick<DeliveryDocument, 'subscriptionId' | 'orderingKey'>) =>
  JSON.stringify([subscriptionId, orderingKey]);
const unleased = (now: number): Filter<DeliveryDocument> => ({
  $or: [{ lease: null }, { 'lease.until': { $lte: now } }],
});
const claimable = (delivery: DeliveryDocument, now: number) =>
  delivery.status === 'pending' &&
  delivery.nextAttemptAt <= now &&
  (delivery.lease === null || delivery.lease.until <= now);

/**
 * FerretDB names itself in buildInfo. It hands its SQLite backend a filter only when the filter is exactly
 * `{_id: <string>}` (then one SQL scan, without decoding documents); any other filter decodes and tests
 * every document of the collection, whatever its indexes.
 */
const isFerretDb = async (db: Db) => 'ferretdbVersion' in (await db.command({ buildInfo: 1 }));

/** What a conditional write requires of a document beside its _id: equalities, on dotted paths. */
type Condition = Record<string, string | number>;
const holds = (document: object, condition: Condition) =>
  Object.entries(condition).every(
    ([path, value]) =>
      path
        .split('.')
        .reduce<unknown>(
          (at, key) =>
            at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined,
          document,
        ) === value,
  );

/**
 * Writes to one delivery conditioned on its fields. On MongoDB the condition is in the filter: one atomic
 * step. On FerretDB, whose conditional writes are a read and then a write anyway, it is a read by _id (or
 * the document as just read, when given), the condition checked here, then the write by _id: the only
 * queries it answers without decoding every document of the collection.
 */
const conditionalWrites = (collection: Collection<DeliveryDocument>, guardInFilter: boolean) => {
  const filter = (_id: string, condition: Condition) =>
    (guardInFilter ? { _id, ...condition } : { _id }) as Filter<DeliveryDocument>;
  const passes = async (_id: string, condition: Condition, read?: DeliveryDocument) => {
    if (guardInFilter) return true;
    const document = read ?? (await collection.findOne({ _id }));
    return document !== null && holds(document, condition);
  };
  return {
    async updateOne(
      _id: string,
      condition: Condition,
      update: UpdateFilter<DeliveryDocument>,
      read?: DeliveryDocument,
    ) {
      if (!(await passes(_id, condition, read))) return false;
      return (await collection.updateOne(filter(_id, condition), update)).matchedCount === 1;
    },
    async deleteOne(_id: string, condition: Condition) {
      if (await passes(_id, condition)) await collection.deleteOne(filter(_id, condition));
    },
  };
};

/**
 * An instance moves the deliveries it settled out of the main collection by this many (three commands a
 * move: a few hundredths of a command a delivery)...
 */
const moveEvery = 100;
/** ...or this long after its last move, ms: the main collection, which settle scans on FerretDB, stays small. */
const moveAfterMs = 1000;
const finalStatuses: DeliveryStatus[] = ['delivered', 'dead', 'cancelled'];

/**
 * The retry state in MongoDB. A delivery's document is in the main collection while it is pending; once
 * delivered, dead-lettered or cancelled it moves to `_settled`, in batches, so that the queries of the hot
 * path (due, claim, settle) read only the deliveries in progress: FerretDB 1.24 (SQLite) runs every query
 * as a scan of the collection, whatever its indexes, and a lookup by `_id` alone as a cheaper SQL one.
 *
 * A claim is made exclusive by inserting a claim document with a unique _id rather than by a conditional
 * update alone: FerretDB (SQLite) reads and then rewrites a document without holding a lock in between,
 * so concurrent conditional updates all succeed. Likewise, `_accepted` (one document per delivery enqueued
 * or moved out) is what keeps a settled delivery from being enqueued again.
 */
export const createMongoDeliveryQueue = async (
  db: Db,
  { collection = 'webhook_deliveries' }: { collection?: string } = {},
): Promise<DeliveryQueue> => {
  const deliveries = db.collection<DeliveryDocument>(collection);
  const settled = db.collection<DeliveryDocument>(`${collection}_settled`);
  const accepted = db.collection<AcceptedDocument>(`${collection}_accepted`);
  const claims = db.collection<ClaimDocument>(`${collection}_claims`);
  const guardInFilter = !(await isFerretDb(db));
  const inProgress = conditionalWrites(deliveries, guardInFilter);
  const settledOnes = conditionalWrites(settled, guardInFilter);
  await deliveries.createIndex({ status: 1, nextAttemptAt: 1, sequence: 1 }, { name: 'due' });
  await settled.createIndex({ subscriptionId: 1, status: 1, createdAt: 1 }, { name: 'dead-since' });
  await deliveries.createIndex(
    { subscriptionId: 1, orderingKey: 1, status: 1, sequence: 1 },
    { name: 'line' },
  );
  await deliveries.createIndex(
    { subscriptionId: 1, status: 1, createdAt: 1, sequence: 1 },
    { name: 'pending-of' },
  );

  /**
   * The deliveries this instance knows to be in `_accepted` (it enqueued them): moving them out needs no
   * insert there. Only an optimisation: an id missing from it is inserted (again) on the way out. Each
   * insert of an id already there is a failed statement on FerretDB's PostgreSQL backend, which retries a
   * bulk insert that met a duplicate one document at a time: inserting every moved delivery again cost a
   * hundred failed statements a move, about a hundred and fifty a second at 50 orders/s x 3 subscribers.
   */
  const acceptedHere = new Set<string>();
  /** Past this many, forgotten (deliveries another instance settled and moved are never removed here). */
  const acceptedHereLimit = 100_000;

  /**
   * Moves settled deliveries out of the main collection: accepted (a delivery of an earlier version, or one
   * another instance enqueued, may not be), copied to `_settled`, then deleted unless changed meanwhile (an
   * admin's redelivery).
   */
  const moveOut = async (done: readonly DeliveryDocument[]) => {
    if (done.length === 0) return 0;
    const notKnownAccepted = done.filter(({ _id }) => !acceptedHere.has(_id));
    if (notKnownAccepted.length > 0) {
      await insertNew(
        accepted,
        notKnownAccepted.map(({ _id }) => ({ _id })),
      );
    }
    const there = await insertNew(settled, [...done]);
    for (const { _id, ...document } of done.filter(({ _id }) => there.has(_id))) {
      // Settled before and delivered again on request, or moved by another instance just now.
      await settled.replaceOne({ _id }, document);
    }
    const { deletedCount } = await deliveries.deleteMany({
      $or: done.map(({ _id, status, claims: claimed }) => ({ _id, status, claims: claimed })),
    });
    for (const { _id } of done) acceptedHere.delete(_id);
    return deletedCount;
  };
  // Left by an earlier version, or by an instance that stopped before it moved them.
  for (;;) {
    const done = await deliveries
      .find({ status: { $in: finalStatuses } })
      .limit(500)
      .toArray();
    if ((await moveOut(done)) === 0 || done.length < 500) break;
  }

  /**
   * What this instance settled and has not moved out yet: due() starts a move of them in the background
   * once there are enough or some have waited long enough, one move at a time. A failed move is retried
   * by the next, and its error thrown by the next due().
   */
  const toMove = new Map<string, DeliveryDocument>();
  let lastMove = Date.now();
  let moving = false;
  let moveFailure: { error: unknown } | null = null;
  const startMove = () => {
    if (moving || toMove.size === 0) return;
    if (toMove.size < moveEvery && Date.now() - lastMove < moveAfterMs) return;
    const batch = [...toMove.values()];
    moving = true;
    lastMove = Date.now();
    moveOut(batch)
      .then(() => {
        for (const done of batch) if (toMove.get(done._id) === done) toMove.delete(done._id);
      })
      .catch((error: unknown) => {
        moveFailure = { error };
      })
      .finally(() => {
        moving = false;
      });
  };

  /** The lowest sequence among the pending deliveries of each line, in one query. */
  const headsOf = async (lines: Map<string, DeliveryDocument>) => {
    const heads = new Map<string, number>();
    if (lines.size === 0) return heads;
    const pending = await deliveries
      .find(
        {
          status: 'pending',
          $or: [...lines.values()].map(({ subscriptionId, orderingKey }) => ({
            subscriptionId,
            orderingKey,
          })),
        },
        { projection: { subscriptionId: 1, orderingKey: 1, sequence: 1 } },
      )
      .toArray();
    for (const delivery of pending) {
      const line = lineOf(delivery);
      heads.set(line, Math.min(heads.get(line) ?? Number.POSITIVE_INFINITY, delivery.sequence));
    }
    // A candidate is pending, so its line has a head unless it was settled meanwhile.
    for (const line of lines.keys()) if (!heads.has(line)) heads.set(line, Number.NEGATIVE_INFINITY);
    return heads;
  };

  /** due() from the indexes (MongoDB): the earliest candidates, then the heads of their lines. */
  const dueFromIndexes = async (now: number, limit: number, excludeSubscriptions: readonly string[]) => {
    const filter: Filter<DeliveryDocument> = {
      status: 'pending',
      nextAttemptAt: { $lte: now },
      ...unleased(now),
    };
    if (excludeSubscriptions.length > 0) filter.subscriptionId = { $nin: [...excludeSubscriptions] };
    // Some candidates wait behind an earlier delivery of their line: read more than asked for, and read
    // on while the page is not full.
    const batchSize = Math.max(limit * 4, 20);
    const heads = new Map<string, number>();
    const found: Delivery[] = [];
    for (let skip = 0; found.length < limit; skip += batchSize) {
      const candidates = await deliveries
        .find(filter)
        .sort({ nextAttemptAt: 1, sequence: 1, _id: 1 })
        .skip(skip)
        .limit(batchSize)
        .toArray();
      const unknownLines = new Map<string, DeliveryDocument>();
      for (const candidate of candidates) {
        if (!heads.has(lineOf(candidate))) unknownLines.set(lineOf(candidate), candidate);
      }
      for (const [line, sequence] of await headsOf(unknownLines)) heads.set(line, sequence);
      for (const candidate of candidates) {
        if (found.length === limit) break;
        if (candidate.sequence <= heads.get(lineOf(candidate))!) found.push(toDelivery(candidate));
      }
      if (candidates.length < batchSize) break;
    }
    return found;
  };

  /**
   * due() from one read of every pending delivery (FerretDB, which scans the collection for any filter
   * but `_id`, and sorts in memory: one scan with the plainest filter is the cheapest). The same answer.
   */
  const dueFromOneScan = async (now: number, limit: number, excludeSubscriptions: readonly string[]) => {
    const pending = await deliveries.find({ status: 'pending' }, { batchSize: 10_000 }).toArray();
    const heads = new Map<string, number>();
    for (const delivery of pending) {
      const line = lineOf(delivery);
      heads.set(line, Math.min(heads.get(line) ?? Number.POSITIVE_INFINITY, delivery.sequence));
    }
    const excluded = new Set(excludeSubscriptions);
    return pending
      .filter(
        (delivery) =>
          claimable(delivery, now) &&
          !excluded.has(delivery.subscriptionId) &&
          delivery.sequence <= heads.get(lineOf(delivery))!,
      )
      .sort(
        (a, b) =>
          a.nextAttemptAt - b.nextAttemptAt ||
          a.sequence - b.sequence ||
          (a._id < b._id ? -1 : a._id > b._id ? 1 : 0),
      )
      .slice(0, limit)
      .map(toDelivery);
  };

  /**
   * The claim count of each delivery this instance holds a lease on, as it wrote it: what settleAll needs to
   * build the settled document without reading it.
   */
  const claimsHeld = new Map<string, number>();

  const claimOnce = async (
    id: string,
    { owner, now, leaseUntil }: { owner: string; now: number; leaseUntil: number },
  ): Promise<boolean | undefined> => {
    // By _id alone, checked here: the cheap query on FerretDB, and no less atomic than a filter on MongoDB.
    const delivery = await deliveries.findOne({ _id: id });
    if (!delivery || !claimable(delivery, now)) return false;
    const number = delivery.claims;
    try {
      await claims.insertOne({ _id: `${id}/${number}`, owner, until: leaseUntil });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const taken = await claims.findOne({ _id: `${id}/${number}` });
      // Its taker is recording it now, or died before it could: once that lease would have run out, the
      // number is skipped.
      if (taken === null || taken.until > now) return false;
      await inProgress.updateOne(id, { claims: number }, { $set: { claims: number + 1 } });
      return undefined;
    }
    const won = await inProgress.updateOne(
      id,
      { claims: number },
      { $set: { lease: { owner, until: leaseUntil }, claims: number + 1 } },
      delivery,
    );
    if (won) claimsHeld.set(id, number + 1);
    return won;
  };

  const queue: DeliveryQueue = {
    async enqueue(batch, claim) {
      if (batch.length === 0) return [];
      // Inserted with a lease, a delivery is claimed by its insert: the unique _id makes that exclusive.
      const documents = batch.map(({ id, ...delivery }) => ({
        _id: id,
        ...delivery,
        status: 'pending' as const,
        attempts: 0,
        lease: claim ? { owner: claim.owner, until: claim.leaseUntil } : null,
        claims: claim ? 1 : 0,
      }));
      const pendingAlready = await insertNew(deliveries, documents);
      const added = documents.filter(({ _id }) => !pendingAlready.has(_id)).map(({ _id }) => ({ _id }));
      if (added.length === 0) return [];
      // Accepted before and no longer in the main collection: settled. The copy just added goes (unless
      // claimed since).
      const settledAlready = await insertNew(accepted, added);
      // In `_accepted` now, inserted just now or found there.
      if (acceptedHere.size + added.length > acceptedHereLimit) acceptedHere.clear();
      for (const { _id } of added) acceptedHere.add(_id);
      for (const _id of settledAlready) await inProgress.deleteOne(_id, { claims: claim ? 1 : 0 });
      const taken = added.map(({ _id }) => _id).filter((_id) => !settledAlready.has(_id));
      if (claim) for (const _id of taken) claimsHeld.set(_id, 1);
      return taken;
    },

    async get(id) {
      const document = (await deliveries.findOne({ _id: id })) ?? (await settled.findOne({ _id: id }));
      return document ? toDelivery(document) : null;
    },

    async due({ now, limit, excludeSubscriptions = [] }) {
      if (moveFailure) {
        const { error } = moveFailure;
        moveFailure = null;
        throw error;
      }
      startMove();
      return guardInFilter
        ? dueFromIndexes(now, limit, excludeSubscriptions)
        : dueFromOneScan(now, limit, excludeSubscriptions);
    },

    async claim(id, options) {
      for (;;) {
        const claimed = await claimOnce(id, options);
        if (claimed !== undefined) return claimed;
      }
    },

    async settle(id, owner, settlement, held) {
      // One command. On MongoDB the lease is in the filter, served by _id. On FerretDB any filter but
      // `{_id}` decodes the whole main collection (every pending delivery, a backlog included): by _id alone
      // while the caller's lease has a second left (no one else can have claimed it), else read and check.
      const leaseHeld = held !== undefined && held.until - held.now > 1000;
      const condition = { 'lease.owner': owner };
      const write = async (update: UpdateFilter<DeliveryDocument>) => {
        if (guardInFilter) {
          return deliveries.findOneAndUpdate({ _id: id, ...condition }, update, { returnDocument: 'after' });
        }
        if (!leaseHeld) {
          const current = await deliveries.findOne({ _id: id });
          if (current === null || !holds(current, condition)) return null;
        }
        return deliveries.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' });
      };
      if (settlement.status === 'pending') {
        return (
          (await write({
            $set: { status: 'pending', lease: null, nextAttemptAt: settlement.nextAttemptAt },
            $inc: { attempts: 1 },
          })) !== null
        );
      }
      const done = await write({ $set: { status: settlement.status, lease: null }, $inc: { attempts: 1 } });
      claimsHeld.delete(id);
      if (!done) return false;
      toMove.set(id, done);
      startMove();
      return true;
    },

    async settleAll(items) {
      const update = (settlement: Settlement): UpdateFilter<DeliveryDocument> => ({
        $set:
          settlement.status === 'pending'
            ? { status: 'pending', lease: null, nextAttemptAt: settlement.nextAttemptAt }
            : { status: settlement.status, lease: null },
        $inc: { attempts: 1 },
      });
      // One bulk write for those whose lease is known to hold and whose claim count this instance wrote;
      // the others one by one.
      const bulk = items.filter(
        ({ delivery, now }) =>
          delivery.lease !== null && delivery.lease.until - now > 1000 && claimsHeld.has(delivery.id),
      );
      const results = new Map<string, boolean>();
      if (bulk.length > 0) {
        const filter = ({ id, lease }: Delivery): Filter<DeliveryDocument> =>
          guardInFilter ? { _id: id, 'lease.owner': lease!.owner } : { _id: id };
        const result = await deliveries.bulkWrite(
          bulk.map(({ delivery, settlement }) => ({
            updateOne: { filter: filter(delivery), update: update(settlement) },
          })),
          { ordered: false },
        );
        // All matched but on MongoDB when a lease was lost meanwhile: then each is read back.
        const lost =
          result.matchedCount === bulk.length
            ? new Set<string>()
            : new Set(
                (
                  await deliveries
                    .find({ _id: { $in: bulk.map(({ delivery }) => delivery.id) }, lease: { $ne: null } })
                    .project<{ _id: string }>({ _id: 1 })
                    .toArray()
                ).map(({ _id }) => _id),
              );
        for (const { delivery, settlement } of bulk) {
          const settledNow = !lost.has(delivery.id);
          results.set(delivery.id, settledNow);
          const claimsCount = claimsHeld.get(delivery.id)!;
          if (!settledNow || settlement.status === 'pending') continue;
          claimsHeld.delete(delivery.id);
          const { id: _id, ...rest } = delivery;
          toMove.set(_id, {
            _id,
            ...rest,
            status: settlement.status,
            attempts: delivery.attempts + 1,
            lease: null,
            claims: claimsCount,
          });
        }
        startMove();
      }
      for (const { delivery, settlement, now } of items) {
        if (results.has(delivery.id)) continue;
        const held = delivery.lease === null ? undefined : { until: delivery.lease.until, now };
        const owner = delivery.lease?.owner ?? '';
        results.set(delivery.id, await queue.settle(delivery.id, owner, settlement, held));
      }
      return items.map(({ delivery }) => results.get(delivery.id)!);
    },

    async release(ids, owner) {
      for (const id of ids) claimsHeld.delete(id);
      if (ids.length === 0) return;
      await deliveries.updateMany(
        { _id: { $in: [...ids] }, 'lease.owner': owner },
        { $set: { lease: null } },
      );
    },

    async pendingLines() {
      const pending = await deliveries
        .find({ status: 'pending' }, { projection: { subscriptionId: 1, orderingKey: 1 }, batchSize: 10_000 })
        .toArray();
      const lines = new Map(pending.map((line) => [lineOf(line), line]));
      return [...lines.values()].map(({ subscriptionId, orderingKey }) => ({ subscriptionId, orderingKey }));
    },

    async redeliver(id, now) {
      const again = { status: 'pending' as const, nextAttemptAt: now, attempts: 0, lease: null };
      // The attempts made so far move to earlierAttempts: the log's numbering goes on from them.
      const earlierOf = (delivery: Pick<DeliveryDocument, 'attempts' | 'earlierAttempts'>) =>
        (delivery.earlierAttempts ?? 0) + delivery.attempts;
      const pending = await deliveries.findOne({ _id: id });
      if (pending) {
        const reset = { ...again, earlierAttempts: earlierOf(pending) };
        // Unless attempted meanwhile: then read again.
        const updated = await deliveries.updateOne({ _id: id, attempts: pending.attempts }, { $set: reset });
        if (updated.matchedCount === 1) return true;
        return queue.redeliver(id, now);
      }
      const done = await settled.findOne({ _id: id });
      if (!done) return false;
      try {
        await deliveries.insertOne({ ...done, ...again, earlierAttempts: earlierOf(done) });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        await deliveries.updateOne({ _id: id }, { $set: again });
      }
      // Unless settled again meanwhile (a later claim).
      await settledOnes.deleteOne(id, { claims: done.claims });
      return true;
    },

    async deadSince(subscriptionId, since, limit) {
      // A dead delivery is in the main collection until this instance or another moves it out.
      const filter = { subscriptionId, status: 'dead' as const, createdAt: { $gte: since } };
      const oldestFirst = { createdAt: 1, _id: 1 } as const;
      const read = (from: typeof deliveries) =>
        from
          .find(filter, { projection: { createdAt: 1 } })
          .sort(oldestFirst)
          .limit(limit)
          .toArray();
      const found = new Map<string, number>();
      for (const { _id, createdAt } of [...(await read(settled)), ...(await read(deliveries))]) {
        found.set(_id, createdAt);
      }
      return [...found]
        .sort(([a, at], [b, bt]) => at - bt || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, limit)
        .map(([id]) => id);
    },

    pendingOf: pendingOfIn(deliveries),

    async nextDueAt() {
      const earliest = await deliveries.findOne(
        { status: 'pending', lease: null },
        { sort: { nextAttemptAt: 1 }, projection: { nextAttemptAt: 1 } },
      );
      return earliest?.nextAttemptAt ?? null;
    },

    async releaseLeases() {
      await deliveries.updateMany({ lease: { $ne: null } }, { $set: { lease: null } });
    },
  };
  return queue;
};

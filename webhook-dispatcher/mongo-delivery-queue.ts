import { MongoBulkWriteError, MongoServerError, type Db, type Filter } from 'mongodb';
import type { Delivery, DeliveryQueue } from './delivery-queue.ts';

type DeliveryDocument = Omit<Delivery, 'id'> & {
  _id: string;
  /** Leases granted so far: the number of the next claim. */
  claims: number;
};
/** One per lease granted, `${deliveryId}/${claim number}`: its unique _id is what makes a claim exclusive. */
type ClaimDocument = { _id: string; owner: string; until: number };

const duplicateKey = 11000;
const isDuplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === duplicateKey;
const onlyDuplicateKeys = (error: unknown) =>
  error instanceof MongoBulkWriteError &&
  error.writeConcernError === undefined &&
  error.writeErrors !== undefined &&
  (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]).every(
    (writeError) => writeError.code === duplicateKey,
  );

const toDelivery = ({ _id, claims: _claims, ...rest }: DeliveryDocument): Delivery => ({ id: _id, ...rest });
const lineOf = ({ subscriptionId, orderingKey }: DeliveryDocument) =>
  JSON.stringify([subscriptionId, orderingKey]);
const unleased = (now: number): Filter<DeliveryDocument> => ({
  $or: [{ lease: null }, { 'lease.until': { $lte: now } }],
});

/**
 * The retry state in MongoDB, one document per delivery. A claim is made exclusive by inserting a claim
 * document with a unique _id rather than by a conditional update alone: FerretDB (SQLite) reads and then
 * rewrites a document without holding a lock in between, so concurrent conditional updates all succeed.
 */
export const createMongoDeliveryQueue = async (
  db: Db,
  { collection = 'webhook_deliveries' }: { collection?: string } = {},
): Promise<DeliveryQueue> => {
  const deliveries = db.collection<DeliveryDocument>(collection);
  const claims = db.collection<ClaimDocument>(`${collection}_claims`);
  await deliveries.createIndex({ status: 1, nextAttemptAt: 1, sequence: 1 }, { name: 'due' });
  await deliveries.createIndex(
    { subscriptionId: 1, orderingKey: 1, status: 1, sequence: 1 },
    { name: 'line' },
  );

  /** The lowest sequence among the pending deliveries of each line. */
  const headsOf = async (lines: Map<string, DeliveryDocument>) => {
    const heads = new Map<string, number>();
    await Promise.all(
      [...lines].map(async ([line, { subscriptionId, orderingKey }]) => {
        const head = await deliveries.findOne(
          { subscriptionId, orderingKey, status: 'pending' },
          { sort: { sequence: 1 }, projection: { sequence: 1 } },
        );
        // The candidate itself is pending, so its line has a head unless it was settled meanwhile.
        heads.set(line, head?.sequence ?? Number.NEGATIVE_INFINITY);
      }),
    );
    return heads;
  };

  const claimOnce = async (
    id: string,
    { owner, now, leaseUntil }: { owner: string; now: number; leaseUntil: number },
  ): Promise<boolean | undefined> => {
    const delivery = await deliveries.findOne({
      _id: id,
      status: 'pending',
      nextAttemptAt: { $lte: now },
      ...unleased(now),
    });
    if (!delivery) return false;
    const number = delivery.claims;
    try {
      await claims.insertOne({ _id: `${id}/${number}`, owner, until: leaseUntil });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const taken = await claims.findOne({ _id: `${id}/${number}` });
      // Its taker is recording it now, or died before it could: once that lease would have run out, the
      // number is skipped.
      if (taken === null || taken.until > now) return false;
      await deliveries.updateOne({ _id: id, claims: number }, { $set: { claims: number + 1 } });
      return undefined;
    }
    const taken = await deliveries.updateOne(
      { _id: id, claims: number },
      { $set: { lease: { owner, until: leaseUntil }, claims: number + 1 } },
    );
    return taken.matchedCount === 1;
  };

  return {
    async enqueue(batch) {
      if (batch.length === 0) return;
      try {
        await deliveries.insertMany(
          batch.map(({ id, ...delivery }) => ({
            _id: id,
            ...delivery,
            status: 'pending',
            attempts: 0,
            lease: null,
            claims: 0,
          })),
          { ordered: false },
        );
      } catch (error) {
        if (!onlyDuplicateKeys(error)) throw error;
      }
    },

    async get(id) {
      const document = await deliveries.findOne({ _id: id });
      return document ? toDelivery(document) : null;
    },

    async due({ now, limit, excludeSubscriptions = [] }) {
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
    },

    async claim(id, options) {
      for (;;) {
        const claimed = await claimOnce(id, options);
        if (claimed !== undefined) return claimed;
      }
    },

    async settle(id, owner, settlement) {
      const result = await deliveries.updateOne(
        { _id: id, 'lease.owner': owner },
        {
          $set: {
            status: settlement.status,
            lease: null,
            ...(settlement.status === 'pending' ? { nextAttemptAt: settlement.nextAttemptAt } : {}),
          },
          $inc: { attempts: 1 },
        },
      );
      return result.matchedCount === 1;
    },

    async redeliver(id, now) {
      const result = await deliveries.updateOne(
        { _id: id },
        { $set: { status: 'pending', nextAttemptAt: now, attempts: 0, lease: null } },
      );
      return result.matchedCount === 1;
    },

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
};

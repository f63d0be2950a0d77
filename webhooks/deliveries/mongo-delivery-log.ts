import { MongoServerError, type Db, type Filter } from 'mongodb';
import { duplicatesOfInsert } from '../../infrastructure/mongo/duplicate-keys.ts';
import {
  deliveryStatsOf,
  statsOverAttempts,
  type DeliveryAttempt,
  type DeliveryLog,
  type DeliveryStats,
} from './delivery-log.ts';

type AttemptDocument = Omit<DeliveryAttempt, 'id'> & { _id: string };

const toAttempt = ({ _id, ...rest }: AttemptDocument): DeliveryAttempt => ({ id: _id, ...rest });
const duplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;
const newestFirst = { attemptedAt: -1, _id: -1 } as const;

/**
 * Subscriptions whose latest attempts are read at once, for stats. One MongoDB query cannot bound each
 * subscription's share of a list ($unionWith, $lookup with a pipeline and $topN would; FerretDB 1.24 has
 * none of them), and one that does not reads every attempt ever made: so one read per subscription, on
 * the `newest` index, of at most `statsOverAttempts` outcomes and times, a few in flight at a time.
 */
const statsReadsAtOnce = 8;

/** Delivery attempts in MongoDB, one document per attempt. */
export const createMongoDeliveryLog = async (
  db: Db,
  { collection = 'webhook_delivery_attempts' }: { collection?: string } = {},
): Promise<DeliveryLog> => {
  const attempts = db.collection<AttemptDocument>(collection);
  await attempts.createIndex({ subscriptionId: 1, attemptedAt: -1, _id: -1 }, { name: 'newest' });

  return {
    async record({ id: _id, ...attempt }) {
      try {
        await attempts.insertOne({ _id, ...attempt });
      } catch (error) {
        if (!duplicateKey(error)) throw error;
      }
    },

    async recordAll(batch) {
      if (batch.length === 0) return;
      try {
        await attempts.insertMany(
          batch.map(({ id: _id, ...attempt }) => ({ _id, ...attempt })),
          { ordered: false },
        );
      } catch (error) {
        if (duplicatesOfInsert(error, batch.length) === null) throw error;
      }
    },

    async list(subscriptionId, query) {
      // One more than asked for says whether there is more beyond the page.
      const probe = query.limit + 1;
      const of: Filter<AttemptDocument> = {
        subscriptionId,
        ...(query.outcome === undefined ? {} : { outcome: query.outcome }),
        ...(query.eventType === undefined ? {} : { eventType: query.eventType }),
      };
      if (query.kind === 'page') {
        const [total, documents] = await Promise.all([
          attempts.countDocuments(of),
          attempts.find(of).sort(newestFirst).skip(query.offset).limit(probe).toArray(),
        ]);
        return {
          attempts: documents.slice(0, query.limit).map(toAttempt),
          hasMore: documents.length > query.limit,
          total,
        };
      }
      // Toward the newer end, read upwards from the cursor, then give them back newest first.
      const backwards = query.before !== undefined;
      const cursor = query.before ?? query.after;
      const beyond = backwards ? '$gt' : '$lt';
      const filter: Filter<AttemptDocument> = cursor
        ? {
            ...of,
            $or: [
              { attemptedAt: { [beyond]: cursor.attemptedAt } },
              { attemptedAt: cursor.attemptedAt, _id: { [beyond]: cursor.id } },
            ],
          }
        : of;
      const direction = backwards ? 1 : -1;
      const documents = await attempts
        .find(filter)
        .sort({ attemptedAt: direction, _id: direction })
        .limit(probe)
        .toArray();
      const page = documents.slice(0, query.limit).map(toAttempt);
      return { attempts: backwards ? page.reverse() : page, hasMore: documents.length > query.limit };
    },

    async statsOf(subscriptionIds) {
      const statsOfOne = async (subscriptionId: string): Promise<DeliveryStats> => {
        const recent = await attempts
          .find({ subscriptionId }, { projection: { _id: 1, outcome: 1, attemptedAt: 1 } })
          .sort(newestFirst)
          .limit(statsOverAttempts)
          .toArray();
        const delivered = recent.filter((attempt) => attempt.outcome === 'delivered').length;
        return deliveryStatsOf(recent.length, delivered, recent[0] ?? null);
      };
      const result = new Map<string, DeliveryStats>();
      const unique = [...new Set(subscriptionIds)];
      for (let start = 0; start < unique.length; start += statsReadsAtOnce) {
        const wave = unique.slice(start, start + statsReadsAtOnce);
        const stats = await Promise.all(wave.map(statsOfOne));
        wave.forEach((subscriptionId, index) => result.set(subscriptionId, stats[index]!));
      }
      return result;
    },
  };
};

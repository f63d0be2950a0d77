import { MongoServerError, type AnyBulkWriteOperation, type Db, type Filter } from 'mongodb';
import type { RecordedEvent } from '../../infrastructure/event-store/event-store.ts';
import { idRangeStartingWith, type OrderReadModel } from './order-read-model.ts';
import { duplicateKeyErrors } from '../../infrastructure/mongo/duplicate-keys.ts';
import { nextOrderView } from './order-projection.ts';
import { isOrderStream, orderIdOf } from '../../domain/orders/order.ts';
import type { OrderView } from './order-projection.ts';

const mongoRange = ({ from, below }: { from: string; below: string }) => ({ $gte: from, $lt: below });

type OrderDocument = Omit<OrderView, 'id'> & { _id: string };

const liveCollection = 'order_views';

const toView = ({ _id, ...rest }: OrderDocument): OrderView => ({ id: _id, ...rest });
const duplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;
const namespaceNotFound = 26;

const dropIfExists = async (db: Db, name: string) => {
  try {
    await db.collection(name).drop();
  } catch (error) {
    if (!(error instanceof MongoServerError && error.code === namespaceNotFound)) throw error;
  }
};

/**
 * FerretDB names itself in buildInfo. It hands its SQLite backend a filter only when the filter is exactly
 * `{_id: <string>}` (then one SQL scan, without decoding documents); any other filter, `{_id, revision}` and
 * `{_id: {$in}}` included, decodes and tests every document of the collection. Its conditional writes are
 * a read and then a write, not one atomic step, so a write guarded by a read of `_id` just made promises
 * there what a guard in the filter would.
 */
const isFerretDb = async (db: Db) => 'ferretdbVersion' in (await db.command({ buildInfo: 1 }));

/** Up to this many orders are read one `findOne({_id})` each (in parallel); more, with one `$in`. */
const readOneByOneUpTo = 8;

/**
 * Orders in MongoDB, one document each. Idempotent without transactions (FerretDB has none): a new order is
 * an insert (a duplicate means it was applied), a later event a replace conditioned on the revision read.
 */
export const createMongoOrderReadModel = async (
  db: Db,
  { collection = liveCollection }: { collection?: string } = {},
): Promise<OrderReadModel> => {
  const orders = db.collection<OrderDocument>(collection);
  await orders.createIndex({ createdAt: -1, _id: -1 }, { name: 'listing' });
  await orders.createIndex({ customerId: 1, createdAt: -1, _id: -1 }, { name: 'customer' });
  await orders.createIndex({ status: 1, createdAt: -1, _id: -1 }, { name: 'status' });
  // Equality, sort, range: walked in the listing's order, the amount read off the index, not the document.
  await orders.createIndex(
    { 'total.currency': 1, createdAt: -1, _id: -1, 'total.amountMinor': 1 },
    { name: 'total' },
  );
  // On MongoDB the revision guard is in the replace's filter (one atomic step, from the _id index); on
  // FerretDB the replace is by _id alone, guarded by the revision just read by _id.
  const guardInFilter = !(await isFerretDb(db));
  const replaceFilter = (_id: string, readRevision: number): Filter<OrderDocument> =>
    guardInFilter ? { _id, revision: readRevision } : { _id };

  const read = async (id: string) => {
    const document = await orders.findOne({ _id: id });
    return document ? toView(document) : null;
  };

  const readAll = async (ids: readonly string[]) => {
    const documents =
      ids.length <= readOneByOneUpTo
        ? await Promise.all(ids.map((_id) => orders.findOne({ _id })))
        : await orders.find({ _id: { $in: [...ids] } }).toArray();
    const stored = new Map<string, OrderView>();
    for (const document of documents) if (document) stored.set(document._id, toView(document));
    return stored;
  };

  const applyOneByOne = async (events: readonly RecordedEvent[]) => {
    const touched = new Map<string, OrderView | null>();
    for (const event of events) {
      if (!isOrderStream(event.streamId)) continue;
      const id = orderIdOf(event.streamId);
      const current = touched.has(id) ? touched.get(id)! : await read(id);
      const next = nextOrderView(current, event);
      if (!next) continue;
      const { id: _id, ...document } = next;
      if (current === null) {
        try {
          await orders.insertOne({ _id, ...document });
        } catch (error) {
          if (!duplicateKey(error)) throw error;
          touched.set(id, await read(id));
          continue;
        }
      } else {
        const result = await orders.replaceOne(replaceFilter(_id, current.revision), document);
        if (result.matchedCount === 0) {
          // Another process applied it first: carry on from what is stored now.
          touched.set(id, await read(id));
          continue;
        }
      }
      touched.set(id, next);
    }
  };

  /**
   * The batch in two round trips: the touched orders read, then every change written at once. With
   * `presumeNew`, an order whose first event here is its first event of all (revision 0) is not read: it
   * is taken to be absent, and its insert says otherwise if it is not (a replayed batch). Says whether
   * every write found the order as read; when one did not, some writes may have been made.
   */
  const applyBatch = async (events: readonly RecordedEvent[], presumeNew: boolean): Promise<boolean> => {
    const firstRevisions = new Map<string, number>();
    for (const event of events) {
      const id = orderIdOf(event.streamId);
      if (!firstRevisions.has(id)) firstRevisions.set(id, event.revision);
    }
    const stored = await readAll(
      [...firstRevisions].filter(([, first]) => !presumeNew || first !== 0).map(([id]) => id),
    );
    const changed = new Map<string, OrderView>();
    try {
      for (const event of events) {
        const id = orderIdOf(event.streamId);
        const next = nextOrderView(changed.get(id) ?? stored.get(id) ?? null, event);
        if (next) changed.set(id, next);
      }
    } catch (error) {
      // A replayed batch can look like a gap from nothing (revisions 0 and 2): read and fold again.
      if (presumeNew) return false;
      throw error;
    }
    if (changed.size === 0) return true;
    const writes: AnyBulkWriteOperation<OrderDocument>[] = [...changed.values()].map(
      ({ id: _id, ...document }) => {
        const before = stored.get(_id);
        return before === undefined
          ? { insertOne: { document: { _id, ...document } } }
          : { replaceOne: { filter: replaceFilter(_id, before.revision), replacement: document } };
      },
    );
    const replaces = writes.length - writes.filter((write) => 'insertOne' in write).length;
    try {
      const result = await orders.bulkWrite(writes, { ordered: false });
      return result.matchedCount === replaces;
    } catch (error) {
      // Another projector inserted one first: the batch is applied again, every order read.
      if (duplicateKeyErrors(error) === null) throw error;
      return false;
    }
  };

  return {
    async applyEvents(events) {
      // The common case in one or two round trips: the orders the batch places are not read, the others
      // are, then every change is written at once. When a write finds the order elsewhere than presumed
      // or read (a replayed batch, or another projector got there first), the batch is applied again with
      // every order read, and then, if need be, one event at a time; the revision guard makes it harmless.
      const orderEvents = events.filter((event) => isOrderStream(event.streamId));
      if (orderEvents.length === 0) return;
      if (await applyBatch(orderEvents, true)) return;
      if (await applyBatch(orderEvents, false)) return;
      await applyOneByOne(orderEvents);
    },

    getOrder: read,
    // The view itself: reading it costs the round trip that asking whether it changed would.
    getOrderIfChanged: read,

    async listOrders(query) {
      const filter: Filter<OrderDocument> = {};
      if (query.customerId !== undefined) filter.customerId = query.customerId;
      if (query.status !== undefined) filter.status = query.status;
      // The id index's keys, read for the ones ending so (hex digits only: checked where the query is parsed).
      if (query.idEndsWith !== undefined || query.idStartsWith !== undefined) {
        filter._id = {
          ...(query.idEndsWith === undefined ? {} : { $regex: `${query.idEndsWith}$` }),
          ...(query.idStartsWith === undefined ? {} : mongoRange(idRangeStartingWith(query.idStartsWith))),
        };
      }
      if (query.totalWithin !== undefined) {
        const { currency, atLeastMinor, atMostMinor } = query.totalWithin;
        filter['total.currency'] = currency;
        filter['total.amountMinor'] = {
          ...(atLeastMinor === undefined ? {} : { $gte: atLeastMinor }),
          ...(atMostMinor === undefined ? {} : { $lte: atMostMinor }),
        };
      }
      if (query.placedFrom !== undefined || query.placedBefore !== undefined) {
        filter.createdAt = {
          ...(query.placedFrom === undefined ? {} : { $gte: query.placedFrom }),
          ...(query.placedBefore === undefined ? {} : { $lt: query.placedBefore }),
        };
      }
      if (query.kind === 'page') {
        const [total, documents] = await Promise.all([
          // All orders: the collection's count, from its metadata (counting matches would scan it).
          Object.keys(filter).length === 0 ? orders.estimatedDocumentCount() : orders.countDocuments(filter),
          orders
            .find(filter)
            .sort({ createdAt: -1, _id: -1 })
            .skip(query.offset)
            .limit(query.limit)
            .toArray(),
        ]);
        return { orders: documents.map(toView), total, hasMore: query.offset + documents.length < total };
      }
      const backwards = query.before !== undefined;
      const cursor = query.before ?? query.after;
      const keyset: Filter<OrderDocument> = cursor
        ? {
            $or: [
              { createdAt: { [backwards ? '$gt' : '$lt']: cursor.createdAt } },
              { createdAt: cursor.createdAt, _id: { [backwards ? '$gt' : '$lt']: cursor.id } },
            ],
          }
        : {};
      const direction = backwards ? 1 : -1;
      const documents = await orders
        .find({ ...filter, ...keyset })
        .sort({ createdAt: direction, _id: direction })
        .limit(query.limit + 1)
        .toArray();
      const page = documents.slice(0, query.limit).map(toView);
      return { orders: backwards ? page.reverse() : page, hasMore: documents.length > query.limit };
    },

    async clear() {
      await orders.deleteMany({});
    },
  };
};

/**
 * A scratch collection (for projections:rebuild and :verify), and the swap: every rebuilt order replaces the
 * live one, then live orders the rebuild does not have are deleted. Readers see orders change one by one,
 * never an empty store. (renameCollection with dropTarget would be atomic on MongoDB, but FerretDB lacks it.)
 */
export const mongoScratchOrderReadModel = async (db: Db, scratch = `${liveCollection}_rebuild`) => {
  await dropIfExists(db, scratch);
  const rebuilt = db.collection<OrderDocument>(scratch);
  const live = db.collection<OrderDocument>(liveCollection);
  const batchSize = 500;
  return {
    model: await createMongoOrderReadModel(db, { collection: scratch }),
    /** Its indexes exist from the start. */
    async loaded() {},
    async promote() {
      // The ids copied, so that pruning needs no query per live order.
      const rebuiltIds = new Set<string>();
      let batch: OrderDocument[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await live.bulkWrite(
          batch.map((document) => ({
            replaceOne: { filter: { _id: document._id }, replacement: document, upsert: true },
          })),
          { ordered: false },
        );
        batch = [];
      };
      for await (const document of rebuilt.find()) {
        rebuiltIds.add(document._id);
        batch.push(document);
        if (batch.length >= batchSize) await flush();
      }
      await flush();
      let stale: string[] = [];
      const removeStale = async () => {
        if (stale.length > 0) await live.deleteMany({ _id: { $in: stale } });
        stale = [];
      };
      for await (const { _id } of live.find({}, { projection: { _id: 1 } })) {
        if (!rebuiltIds.has(_id)) stale.push(_id);
        if (stale.length >= batchSize) await removeStale();
      }
      await removeStale();
      await dropIfExists(db, scratch);
    },
    async discard() {
      await dropIfExists(db, scratch);
    },
  };
};

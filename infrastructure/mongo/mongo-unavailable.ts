/**
 * The driver's errors that say MongoDB cannot be reached now (no server selectable, a connection lost or
 * timed out), as opposed to a request it refused. By name, so that processes without MongoDB never load
 * the driver for this check; an error's `cause` is looked at too.
 */
const unreachableNames = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
]);

export const isMongoUnreachable = (error: unknown): boolean => {
  for (let current = error, depth = 0; current instanceof Error && depth < 3; depth++) {
    if (unreachableNames.has(current.name)) return true;
    current = current.cause;
  }
  return false;
};

/** How long an operation waits for a MongoDB server to select, unless MONGODB_URL says otherwise. */
export const defaultServerSelectionTimeoutMs = 5_000;

/** The driver's options for a URL: a short server selection, so that an outage answers 503 soon. */
export const mongoClientDefaults = (url: string): { serverSelectionTimeoutMS?: number } => {
  const query = url.split('?')[1] ?? '';
  const named = new URLSearchParams(query);
  const given = [...named.keys()].some((key) => key.toLowerCase() === 'serverselectiontimeoutms');
  return given ? {} : { serverSelectionTimeoutMS: defaultServerSelectionTimeoutMs };
};

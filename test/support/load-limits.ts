/**
 * Per-user write limits out of the way, for load and fault suites that drive one account (or a few) far
 * harder than any shopper: they measure the service under that load, not the limit that would refuse it
 * (60 orders a minute for a customer by default). Every such suite sets these explicitly.
 */
export const loadTestWriteLimits: Record<string, string> = {
  USER_WRITE_LIMIT_ORDERS: '10000000',
  USER_WRITE_LIMIT_ADDRESSES: '10000000',
  USER_WRITE_LIMIT_SESSIONS: '10000000',
  STAFF_WRITE_LIMIT_ORDERS: '10000000',
  STAFF_WRITE_LIMIT_ADDRESSES: '10000000',
  STAFF_WRITE_LIMIT_SESSIONS: '10000000',
};

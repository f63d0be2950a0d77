/** How the console writes amounts, times and ids. */

/** @param {{ amount: number, currency: string } | null | undefined} money */
export const formatMoney = (money) => {
  if (!money) return '';
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: money.currency }).format(money.amount);
  } catch {
    return `${money.amount} ${money.currency}`;
  }
};

const dateTime = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

/** @param {string | null | undefined} iso */
export const formatTime = (iso) => (iso ? dateTime.format(new Date(iso)) : '');

/**
 * The last eight characters of an id: enough to tell orders apart in a list (the first ones of a UUIDv7
 * are its time, the same for orders of the same minute); the full id is beside it for screen readers.
 *
 * @param {string} id
 */
export const shortId = (id) => id.slice(-8);

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The order id of a stream of the log (`order-<id>`), or null for another stream. */
/** @param {string} streamId */
export const orderIdOfStream = (streamId) => (streamId.startsWith('order-') ? streamId.slice(6) : null);

/** The subscription id of a stream of the log (`webhook-subscription-<id>`), or null. */
/** @param {string} streamId */
export const subscriptionIdOfStream = (streamId) =>
  streamId.startsWith('webhook-subscription-') ? streamId.slice('webhook-subscription-'.length) : null;

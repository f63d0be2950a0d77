/**
 * Events as people say them: "Payment of €49.95 received (reference bank-42)", not `amountMinor 4995`.
 * The log keeps money in minor units; here it is written in its currency. Each event's data is read as
 * stored, in any of its versions: a field an older version lacks is left out of the sentence.
 */
import { formatMoney } from './format.js';

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Money as the log stores it (`{ amountMinor, currency }`), in its currency: 4995 EUR is €49.95.
 *
 * @param {unknown} money
 */
export const moneyInWords = (money) => {
  if (!isObject(money) || typeof money['amountMinor'] !== 'number' || typeof money['currency'] !== 'string')
    return '';
  const currency = money['currency'];
  let digits = 2;
  try {
    digits =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
  } catch {
    // An unknown currency code: two digits, as most have.
  }
  return formatMoney({ amount: money['amountMinor'] / 10 ** digits, currency });
};

/** @param {unknown} text */
const quoted = (text) => (typeof text === 'string' && text !== '' ? `“${text}”` : '');

/** @type {Record<string, (data: Record<string, unknown>) => string>} */
const sentences = {
  OrderPlaced: (data) => {
    const items = Array.isArray(data['items']) ? data['items'] : [];
    const count = items.reduce(
      (sum, item) => sum + (isObject(item) && typeof item['quantity'] === 'number' ? item['quantity'] : 0),
      0,
    );
    return `Order placed: ${count} ${count === 1 ? 'item' : 'items'}, total ${moneyInWords(data['total'])}.`;
  },
  OrderConfirmed: () => 'Order confirmed.',
  OrderShipped: (data) => {
    const carrier = typeof data['carrier'] === 'string' ? ` with ${data['carrier']}` : '';
    const tracking =
      typeof data['trackingNumber'] === 'string' ? `, tracking number ${data['trackingNumber']}` : '';
    return `Order shipped${carrier}${tracking}.`;
  },
  OrderDelivered: () => 'Order delivered.',
  OrderCancelled: (data) =>
    data['reason'] ? `Order cancelled: ${quoted(data['reason'])}.` : 'Order cancelled, no reason given.',
  PaymentReceived: (data) =>
    `Payment of ${moneyInWords(data['amount'])} received${
      typeof data['reference'] === 'string' ? ` (reference ${data['reference']})` : ''
    }.`,
  WebhookSubscriptionRegistered: (data) =>
    `Webhook subscription registered${typeof data['url'] === 'string' ? ` for ${data['url']}` : ''}.`,
  WebhookSubscriptionChanged: (data) => {
    const changes = isObject(data['changes']) ? Object.keys(data['changes']) : [];
    return changes.length > 0
      ? `Webhook subscription changed: ${changes.join(', ')}.`
      : 'Webhook subscription changed.';
  },
  WebhookSecretRotated: () => 'Webhook signing secret rotated.',
  WebhookSubscriptionDisabled: (data) =>
    // A reason is a sentence of its own, its full stop included ("The receiver answered 410 Gone.").
    `Webhook subscription disabled${typeof data['reason'] === 'string' ? `: ${data['reason'].replace(/\.$/, '')}` : ''}.`,
  WebhookSubscriptionRemoved: () => 'Webhook subscription removed.',
  WebhookTestRequested: () => 'Test event requested.',
  WebhookRedeliveryRequested: () => 'A delivery was asked for again.',
};

/**
 * One event of the log in a sentence; an event type this console does not know yet by its name.
 *
 * @param {{ type: string, data: Record<string, unknown> }} event
 */
export const eventInWords = ({ type, data }) => sentences[type]?.(isObject(data) ? data : {}) ?? `${type}.`;

/**
 * The words for a delivery's outcome, the same on the Health view (the metric's labels) and on the
 * webhook pages (each attempt's outcome): `succeeded` is said `delivered`.
 *
 * @param {string} outcome
 */
export const outcomeInWords = (outcome) => (outcome === 'succeeded' ? 'delivered' : outcome);

/** The shipping address's fields, as labels. */
export const addressLabels = /** @type {Record<string, string>} */ ({
  street: 'Street',
  city: 'City',
  postalCode: 'Postal code',
  country: 'Country',
});

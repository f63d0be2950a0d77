/**
 * What an answer that is not a success means, in words for the person at the console: the problem's own
 * `detail` sentence where the API gives one ("You cannot ship a pending order."), and what to do next.
 *
 * @typedef {import('../types.js').Problem} Problem
 */

/** The words of the forms' fields for the API's field paths; any other path as the API names it. */
const fieldLabels = /** @type {Record<string, string>} */ ({
  'amount.amount': 'Amount',
  'amount.currency': 'Currency',
  reference: 'Payment reference',
  carrier: 'Carrier',
  trackingNumber: 'Tracking number',
  reason: 'Reason',
  url: 'URL',
  eventTypes: 'Events',
  description: 'Description',
});

/**
 * @param {number} status
 * @param {Problem | null} problem
 * @returns {{ title: string, detail: string, hints: string[] }}
 */
export const problemInWords = (status, problem) => {
  const errors = problem?.errors ?? [];
  // A refusal by the order's rules says its field errors again as its detail: shown once, as the hints.
  const restatesErrors =
    errors.length > 0 &&
    problem?.detail === errors.map(({ field, message }) => `${field}: ${message}`).join('; ');
  const detail = restatesErrors ? '' : (problem?.detail ?? '');
  const fieldErrors = errors.map(({ field, message }) => `${fieldLabels[field] ?? field}: ${message}`);
  switch (status) {
    case 0:
      return {
        title: 'The service did not answer',
        detail: 'The request did not reach the service, or its answer did not arrive.',
        hints: ['Check that the service runs, then try again.'],
      };
    case 400:
      return {
        title: 'The request was refused',
        detail: detail || 'Something in it is not valid.',
        hints: fieldErrors,
      };
    case 401:
      return {
        title: 'Not signed in',
        detail: detail || 'The service no longer accepts your sign-in.',
        hints: [],
      };
    case 403:
      return {
        title: 'Not allowed for your role',
        detail: detail || 'None of your roles may do this.',
        hints: [],
      };
    case 404:
      return { title: 'Not found', detail: detail || 'There is nothing at this address.', hints: [] };
    case 409:
      return {
        title: problem?.currentStatus
          ? `Not possible while the order is ${problem.currentStatus}`
          : 'Not possible now',
        detail: detail || 'The request conflicts with the current state.',
        hints: [],
      };
    case 412:
      return {
        title: 'Changed by someone else',
        detail:
          'The order changed since you opened it, so nothing was done. It is shown again as it is now: check it, then act again if you still mean to.',
        hints: [],
      };
    case 429:
    case 503:
      return {
        title: status === 429 ? 'Too many requests' : 'The service is busy',
        detail: detail || 'Try again in a few seconds.',
        hints: [],
      };
    default:
      return {
        title: `The service answered ${status}`,
        detail: detail || 'Something went wrong on the service’s side.',
        hints: [],
      };
  }
};

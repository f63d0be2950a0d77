/**
 * A subscription's deliveries not settled yet (admins): scheduled, retrying, and those waiting behind a
 * failing delivery of the same order, which have no attempt to show in the table of attempts.
 *
 * @typedef {import('../types.js').PendingDelivery} PendingDelivery
 * @typedef {import('../types.js').PendingDeliveryList} PendingDeliveryList
 */
import { html } from '../html.js';
import { Loading, ProblemMessage, Time, useLoad } from '../components.js';
import { shortId } from '../lib/format.js';

/** What each state means, in the words of the row. */
const stateHints = {
  scheduled: 'not attempted yet, or its first attempt is under way',
  retrying: 'an attempt failed; retried at the time shown',
  waiting: 'sent once the delivery ahead of it is delivered or dead-lettered',
  held: 'the subscription is disabled: cancelled at its turn, unless it is enabled again first',
};

/**
 * Read again whenever `after` changes (the attempts were read again: a test, a retry, the live follow),
 * and by its Read again button: the queue moves on its own.
 * @param {{ api: import('../api.js').Api, id: string, after: unknown }} props
 */
export const PendingDeliveries = ({ api, id, after }) => {
  const pending = useLoad(
    async () =>
      /** @type {PendingDeliveryList} */ (
        (await api.get(`/webhooks/${encodeURIComponent(id)}/deliveries/pending`)).body
      ),
    [id, after],
  );
  return html`<section class="card" aria-labelledby="pending-heading">
    <h2 id="pending-heading">Waiting to be delivered</h2>
    <div class="toolbar">
      <p class="lead">Oldest first. The queue moves on its own; read it again to see where it is.</p>
      <button type="button" class="secondary" disabled=${pending.loading} onClick=${() => void pending.reload()}>
        Read again
      </button>
    </div>
    <${ProblemMessage} error=${pending.error} context="The pending deliveries could not be read" />
    ${pending.loading && !pending.data ? html`<${Loading} label="Loading the pending deliveries…" />` : null}
    ${pending.data ? html`<${PendingTable} list=${pending.data} />` : null}
  </section>`;
};

/**
 * The delivery one waits behind, as the table names it: its event (the delivery ahead is pending too, so
 * usually in the list), else its id.
 * @param {{ ahead: string, list: PendingDeliveryList }} props
 */
const DeliveryAhead = ({ ahead, list }) => {
  const found = list.data.find((delivery) => delivery.deliveryId === ahead);
  return found
    ? html`after ${found.eventType} <code title=${found.eventId}>${shortId(found.eventId)}</code>`
    : html`after delivery <code title=${ahead}>${shortId(ahead)}</code>`;
};

/** @param {{ list: PendingDeliveryList }} props */
const PendingTable = ({ list }) => {
  if (list.data.length === 0) {
    return html`<p class="empty">Nothing waiting: every delivery accepted so far was settled.</p>`;
  }
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Pending deliveries">
    <table class="pending">
      <caption class="visually-hidden">Deliveries not settled yet, oldest first</caption>
      <thead>
        <tr>
          <th scope="col">Accepted</th>
          <th scope="col">Event</th>
          <th scope="col">Order</th>
          <th scope="col">State</th>
          <th scope="col" class="number">Attempts</th>
          <th scope="col">Next attempt</th>
        </tr>
      </thead>
      <tbody>
        ${list.data.map(
          (delivery) => html`<tr data-delivery=${delivery.deliveryId} data-state=${delivery.state}>
            <td><${Time} iso=${delivery.acceptedAt} /></td>
            <td>${delivery.eventType} <code title=${delivery.eventId}>${shortId(delivery.eventId)}</code></td>
            <td><code title=${delivery.orderingKey}>${shortId(delivery.orderingKey)}</code></td>
            <td>
              <span class=${`badge pending-${delivery.state}`}>${delivery.state}</span>
              <p class="hint">${stateHints[delivery.state]}</p>
            </td>
            <td class="number">${delivery.attemptsMade}</td>
            <td>${
              delivery.waitingBehind !== null
                ? html`<${DeliveryAhead} ahead=${delivery.waitingBehind} list=${list} />`
                : delivery.nextAttemptAt
                  ? html`<${Time} iso=${delivery.nextAttemptAt} />`
                  : null
            }</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>
  ${list.meta.more ? html`<p class="hint">The oldest ${list.meta.limit} are shown; more are waiting.</p>` : null}`;
};

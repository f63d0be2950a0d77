/**
 * Webhook subscriptions (admins): each with its state, events and why it was disabled (GET /webhooks).
 *
 * @typedef {import('../types.js').Subscription} Subscription
 * @typedef {import('./orders.js').ViewProps} ViewProps
 */
import { html } from '../html.js';
import { useEffect } from '../vendor/hooks.js';
import { Loading, ProblemMessage, Time, ViewHeading, useLoad } from '../components.js';
import { href } from '../router.js';

/** @param {{ subscription: Subscription }} props */
export const SubscriptionState = ({ subscription }) =>
  subscription.active
    ? html`<span class="badge state-active">active</span>`
    : html`<span class="badge state-disabled">disabled</span>`;

/** @param {ViewProps} props */
export const WebhooksView = ({ api }) => {
  useEffect(() => {
    document.title = 'Webhooks · Order console';
  }, []);
  const subscriptions = useLoad(
    async () => /** @type {Subscription[]} */ ((await api.get('/webhooks')).body),
    [],
  );
  return html`<section aria-labelledby="view-heading">
    <${ViewHeading}>Webhooks</${ViewHeading}>
    <p class="lead">Subscribers and what they receive. Open one for its delivery attempts, retries and secret.</p>
    <${ProblemMessage} error=${subscriptions.error} context="The subscriptions could not be read" />
    ${subscriptions.loading && !subscriptions.data ? html`<${Loading} label="Loading the subscriptions…" />` : null}
    ${
      subscriptions.data && subscriptions.data.length === 0
        ? html`<p class="empty">No subscription yet. An admin registers one with <code>POST /webhooks</code> (see <a href="/docs">the API reference</a>).</p>`
        : null
    }
    ${
      subscriptions.data && subscriptions.data.length > 0
        ? html`<div class="table-wrap" tabindex="0"><table>
          <caption class="visually-hidden">Webhook subscriptions</caption>
          <thead><tr><th scope="col">Receiver</th><th scope="col">State</th><th scope="col">Events</th><th scope="col">Description</th><th scope="col">Registered</th></tr></thead>
          <tbody>
            ${subscriptions.data.map(
              (subscription) => html`<tr>
                <th scope="row"><a href=${href(`/webhooks/${subscription.id}`)}>${subscription.url}</a></th>
                <td>
                  <${SubscriptionState} subscription=${subscription} />
                  ${subscription.disabledReason ? html`<p class="hint">${subscription.disabledReason}</p>` : null}
                </td>
                <td>${subscription.events.join(', ')}</td>
                <td>${subscription.description ?? html`<span class="muted">—</span>`}</td>
                <td><${Time} iso=${subscription.createdAt} /></td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
        : null
    }
  </section>`;
};

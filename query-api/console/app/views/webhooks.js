/**
 * Webhook subscriptions (admins): each with its state, events, why it was disabled, and how its recent
 * deliveries went (the last outcome, and the share delivered of its last attempts, as the API's
 * `deliveryStats` say), so that a failing one stands out; and registering a new one (POST /webhooks), whose
 * secret is shown once.
 *
 * @typedef {import('../types.js').Subscription} Subscription
 * @typedef {import('../types.js').DeliveryStats} DeliveryStats
 * @typedef {import('./orders.js').ViewProps} ViewProps
 */
import { html } from '../html.js';
import { useState } from '../vendor/hooks.js';
import { Loading, ProblemMessage, Time, ViewHeading, useAction, useLoad, useTitle } from '../components.js';
import { href } from '../router.js';
import { webhookEventKinds } from '../lib/vocabulary.js';

/** @param {{ subscription: Subscription }} props */
export const SubscriptionState = ({ subscription }) =>
  subscription.active
    ? html`<span class="badge state-active">active</span>`
    : html`<span class="badge state-disabled">disabled</span>`;

/**
 * Whether a subscription's latest deliveries did not all go through: its row stands out.
 *
 * @param {DeliveryStats} stats
 */
export const isFailing = (stats) => stats.successRate !== null && stats.successRate < 1;

/** @param {ViewProps} props */
export const WebhooksView = ({ api }) => {
  useTitle('Webhooks');
  // Each with how its latest deliveries went (deliveryStats), in the one answer.
  const subscriptions = useLoad(
    async () => /** @type {Subscription[]} */ ((await api.get('/webhooks')).body),
    [],
  );
  return html`<section aria-labelledby="view-heading">
    <${ViewHeading}>Webhooks</${ViewHeading}>
    <p class="lead">Subscribers and what they receive. Open one for its delivery attempts, retries, secret and settings.</p>
    <${RegisterForm} api=${api} registered=${() => subscriptions.reload()} />
    <${ProblemMessage} error=${subscriptions.error} context="The subscriptions could not be read" />
    ${subscriptions.loading && !subscriptions.data ? html`<${Loading} label="Loading the subscriptions…" />` : null}
    ${subscriptions.data && subscriptions.data.length === 0 ? html`<p class="empty">No subscription yet.</p>` : null}
    ${
      subscriptions.data && subscriptions.data.length > 0
        ? html`<div class="table-wrap" tabindex="0"><table class="subscriptions">
          <caption class="visually-hidden">Webhook subscriptions, with how their latest deliveries went</caption>
          <thead><tr><th scope="col">Receiver</th><th scope="col">State</th><th scope="col">Last outcome</th><th scope="col" class="number">Delivered</th><th scope="col">Events</th><th scope="col">Description</th><th scope="col">Registered</th></tr></thead>
          <tbody>
            ${subscriptions.data.map(
              (
                subscription,
              ) => html`<tr data-subscription=${subscription.id} class=${isFailing(subscription.deliveryStats) ? 'has-errors' : ''}>
                <th scope="row"><a href=${href(`/webhooks/${subscription.id}`)}>${subscription.url}</a></th>
                <td>
                  <${SubscriptionState} subscription=${subscription} />
                  ${subscription.disabledReason ? html`<p class="hint">${subscription.disabledReason}</p>` : null}
                </td>
                <td class="last-outcome">${
                  subscription.deliveryStats.lastOutcome && subscription.deliveryStats.lastAttemptAt
                    ? html`<span class=${`badge outcome-${subscription.deliveryStats.lastOutcome}`}>${subscription.deliveryStats.lastOutcome}</span> <${Time} iso=${subscription.deliveryStats.lastAttemptAt} />`
                    : html`<span class="muted">no attempt yet</span>`
                }</td>
                <td class="number success-rate">${
                  subscription.deliveryStats.successRate !== null
                    ? html`${Math.round(subscription.deliveryStats.successRate * 100)} %<span class="hint"> of the last ${subscription.deliveryStats.attempts}</span>`
                    : html`<span class="muted">—</span>`
                }</td>
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

/**
 * The fields of a subscription (URL, events, description), for registering one and for changing one.
 *
 * @param {{ idPrefix: string, initial: { url: string, events: string[], description: string }, busy: boolean, submitLabel: string, onSubmit: (fields: { url: string, events: string[], description: string }) => void }} props
 */
export const SubscriptionFields = ({ idPrefix, initial, busy, submitLabel, onSubmit }) => {
  const [url, setUrl] = useState(initial.url);
  const [events, setEvents] = useState(initial.events);
  const [description, setDescription] = useState(initial.description);
  return html`<form
    class="inline-form subscription-form"
    onSubmit=${(/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      onSubmit({ url: url.trim(), events, description: description.trim() });
    }}
  >
    <label for=${`${idPrefix}-url`}>Receiver URL</label>
    <input id=${`${idPrefix}-url`} type="url" required maxlength="2048" value=${url} onInput=${(/** @type {InputEvent} */ e) => setUrl(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
    <fieldset>
      <legend>Events</legend>
      ${webhookEventKinds.map(
        (kind) => html`<label class="check"><input
          type="checkbox"
          checked=${events.includes(kind)}
          onChange=${(/** @type {Event} */ e) =>
            setEvents(
              /** @type {HTMLInputElement} */ (e.currentTarget).checked
                ? [...events, kind]
                : events.filter((chosen) => chosen !== kind),
            )}
        /> ${kind}</label>`,
      )}
    </fieldset>
    <label for=${`${idPrefix}-description`}>Description (optional)</label>
    <input id=${`${idPrefix}-description`} maxlength="500" value=${description} onInput=${(/** @type {InputEvent} */ e) => setDescription(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
    <button type="submit" disabled=${busy || events.length === 0}>${submitLabel}</button>
  </form>`;
};

/** @param {{ api: import('../api.js').Api, registered: () => void }} props */
const RegisterForm = ({ api, registered }) => {
  const register = useAction(
    /** @param {{ url: string, events: string[], description: string }} fields */
    async ({ url, events, description }) => {
      const answer = await api.command('/webhooks', {
        body: { url, events, ...(description ? { description } : {}) },
      });
      registered();
      return /** @type {{ id: string, secret: string }} */ (answer.body);
    },
  );
  return html`<details class="card register">
    <summary>Register a subscription</summary>
    <${SubscriptionFields}
      idPrefix="register"
      initial=${{ url: '', events: [...webhookEventKinds], description: '' }}
      busy=${register.busy}
      submitLabel="Register"
      onSubmit=${register.run}
    />
    ${
      register.done
        ? html`<div class="secret" role="status" tabindex="-1" ref=${register.outcome}>
          <p><strong>Registered.</strong> Its signing secret, shown only now: give it to the receiver.</p>
          <p><code class="secret-value">${register.done.secret}</code></p>
          <p><a href=${href(`/webhooks/${register.done.id}`)}>Open the subscription</a></p>
        </div>`
        : null
    }
    <${ProblemMessage} error=${register.error} context="Not registered" outcome=${register.outcome} />
  </details>`;
};

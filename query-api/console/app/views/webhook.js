/**
 * One webhook subscription (admins): its state, the delivery attempts with what the receiver answered,
 * a chart of their outcomes over time, and the buttons: send a test event, retry a delivery, rotate the
 * secret. After a test or a retry the view follows the log of attempts until the new one shows.
 *
 * @typedef {import('../types.js').Subscription} Subscription
 * @typedef {import('../types.js').DeliveryAttempt} DeliveryAttempt
 * @typedef {import('../types.js').CursorPage<DeliveryAttempt>} AttemptPage
 * @typedef {import('./orders.js').ViewProps} ViewProps
 */
import { html } from '../html.js';
import { useEffect, useState } from '../vendor/hooks.js';
import {
  Loading,
  Pager,
  ProblemMessage,
  Time,
  ViewHeading,
  asProblem,
  useAction,
  useLoad,
  useTitle,
} from '../components.js';
import { href, navigate } from '../router.js';
import { shortId } from '../lib/format.js';
import { OutcomeChart } from '../charts.js';
import { SubscriptionFields, SubscriptionState } from './webhooks.js';
import { testEventTypes } from '../lib/vocabulary.js';
import { PendingDeliveries } from './pending-deliveries.js';

const perPage = '50';
/** How long the view waits for the attempt a test or retry asked for, reading the log every second. */
const followMs = 30_000;

/** What a receiver's answer can come to, for the attempts' outcome filter. */
const outcomes = ['delivered', 'failed', 'timeout', 'network-error', 'refused', 'gone', 'cancelled'];

/** @param {string | null} link @param {string} id */
const viewLink = (link, id) => (link === null ? null : `#/webhooks/${id}?${link.split('?')[1] ?? ''}`);

/** @param {ViewProps} props */
export const WebhookView = ({ api, route }) => {
  const id = route.params['id'] ?? '';
  const cursor = route.query.get('cursor') ?? '';
  const outcome = route.query.get('outcome') ?? '';
  const eventType = route.query.get('eventType') ?? '';
  /** @param {Record<string, string>} changes */
  const filterBy = (changes) => navigate(href(`/webhooks/${id}`, { outcome, eventType, ...changes }));
  useTitle(`Webhook ${shortId(id)}`);
  const subscription = useLoad(
    async () => /** @type {Subscription} */ ((await api.get(`/webhooks/${encodeURIComponent(id)}`)).body),
    [id],
  );
  const attempts = useLoad(
    async () =>
      /** @type {AttemptPage} */ (
        (
          await api.get(
            `/webhooks/${encodeURIComponent(id)}/deliveries?${new URLSearchParams({
              cursor,
              perPage,
              ...(outcome ? { outcome } : {}),
              ...(eventType ? { eventType } : {}),
            })}`,
          )
        ).body
      ),
    [id, cursor, outcome, eventType],
  );

  // After a test or retry: read the attempts every second until one for it, newer than those shown, arrives.
  const [following, setFollowing] = useState(
    /** @type {{ newest: string | null, what: string, matches: (attempt: DeliveryAttempt) => boolean } | null} */ (
      null
    ),
  );
  const [arrived, setArrived] = useState(/** @type {DeliveryAttempt | null} */ (null));
  useEffect(() => {
    if (!following) return;
    const until = Date.now() + followMs;
    const timer = setInterval(async () => {
      const page = await attempts.reload();
      const newer = (page?.data ?? []).filter(
        (attempt) =>
          (following.newest === null || attempt.id > following.newest) && following.matches(attempt),
      );
      // Attempts come newest first: the first one made for the request is the last of these.
      const first = newer.at(-1);
      if (first) {
        setArrived(first);
        setFollowing(null);
        // Its answer may have changed the subscription: a 410 disables it.
        subscription.reload();
      } else if (Date.now() > until) {
        setFollowing(null);
      }
    }, 1000);
    return () => clearInterval(timer);
  }, [following]);

  /** @param {string} what @param {(attempt: DeliveryAttempt) => boolean} matches */
  const follow = (what, matches) => {
    setArrived(null);
    setFollowing({ newest: attempts.data?.data[0]?.id ?? null, what, matches });
  };

  // The subscription's actions (test, enable, and the settings' changes) say only the latest one's outcome.
  const [latest, setLatest] = useState('');
  // Of any type the service publishes, whether the subscription takes it or not (an example order's).
  const [testType, setTestType] = useState('webhook.test');
  const test = useAction(async () => {
    const eventType = testType;
    await api.command(`/webhooks/${id}/test`, { body: { eventType } });
    follow(`the test event (${eventType})`, (attempt) => attempt.eventType === eventType);
    return `A test event of ${eventType} was requested.`;
  });
  // PATCH {active: true}: the receiver is expected back (after a 410, or an admin's stop).
  const enable = useAction(async () => {
    await api.command(`/webhooks/${id}`, { method: 'PATCH', body: { active: true } });
    await subscription.reload();
    return 'Enabled: new events are delivered again. Retry a delivery that ended while it was disabled to send it.';
  });
  const retry = useAction(
    /** @param {DeliveryAttempt} attempt */
    async (attempt) => {
      await api.command(`/webhooks/${id}/deliveries/${attempt.deliveryId}/retry`);
      follow(`the ${attempt.eventType} event`, (next) => next.deliveryId === attempt.deliveryId);
      return `Delivery of ${attempt.eventType} (${shortId(attempt.eventId)}) requested again.`;
    },
  );
  const [recoverSince, setRecoverSince] = useState('');
  // Svix's "recover": every dead-lettered delivery since the time given (the browser's local time).
  const recover = useAction(async () => {
    const answer = await api.command(`/webhooks/${id}/deliveries/recover`, {
      body: { since: new Date(recoverSince).toISOString() },
    });
    const { scheduled, more } = /** @type {{ scheduled: number, more: boolean }} */ (answer.body);
    await attempts.reload();
    if (scheduled === 0) return 'No dead-lettered delivery since then: nothing to recover.';
    const what = scheduled === 1 ? '1 failed delivery' : `${scheduled} failed deliveries`;
    return `${what} requested again.${more ? ' More are left: recover again for the rest.' : ''}`;
  });

  return html`<section aria-labelledby="view-heading">
    <p class="breadcrumb"><a href=${href('/webhooks')}>Webhooks</a></p>
    <${ViewHeading}>Webhook <code>${shortId(id)}</code></${ViewHeading}>
    <${ProblemMessage} error=${subscription.error} context="The subscription could not be read" />
    ${subscription.loading && !subscription.data ? html`<${Loading} label="Loading the subscription…" />` : null}
    ${
      subscription.data
        ? html`<div class="detail-grid">
          <section class="card" aria-labelledby="subscription-heading">
            <h2 id="subscription-heading">Subscription</h2>
            <dl class="facts">
              <div><dt>Receiver</dt><dd><code>${subscription.data.url}</code></dd></div>
              <div><dt>State</dt><dd><${SubscriptionState} subscription=${subscription.data} /></dd></div>
              ${
                subscription.data.disabledReason
                  ? html`<div><dt>Disabled because</dt><dd>${subscription.data.disabledReason}</dd></div>`
                  : null
              }
              <div><dt>Events</dt><dd>${subscription.data.events.join(', ')}</dd></div>
              <div><dt>Description</dt><dd>${subscription.data.description ?? html`<span class="muted">—</span>`}</dd></div>
              <div><dt>Registered</dt><dd><${Time} iso=${subscription.data.createdAt} /></dd></div>
              <div><dt>Last change</dt><dd><${Time} iso=${subscription.data.updatedAt} /></dd></div>
              <div><dt>Id</dt><dd><code>${subscription.data.id}</code></dd></div>
            </dl>
          </section>
          <section class="card" aria-labelledby="webhook-actions-heading">
            <h2 id="webhook-actions-heading">Actions</h2>
            ${
              subscription.data.active
                ? html`<div class="button-row inline-form">
                  <label for="test-event-type">Test event of</label>
                  <select
                    id="test-event-type"
                    value=${testType}
                    onChange=${(/** @type {Event} */ event) =>
                      setTestType(/** @type {HTMLSelectElement} */ (event.currentTarget).value)}
                  >
                    ${testEventTypes.map((name) => html`<option value=${name}>${name}</option>`)}
                  </select>
                  <button type="button" onClick=${() => (setLatest('test'), test.run())} disabled=${test.busy}>Send a test event</button>
                </div>
                <p class="hint">An order’s type sends the fixed example order, marked <code>"test": true</code>, whether the subscription takes that type or not.</p>`
                : html`<p class="hint">A disabled subscription receives nothing, a test event included: enable it first.</p>
                  <div class="button-row">
                    <button type="button" onClick=${() => (setLatest('enable'), enable.run())} disabled=${enable.busy}>Enable again</button>
                  </div>`
            }
            <div aria-live="polite">
              ${test.done && latest === 'test' ? html`<p class="success" role="status" tabindex="-1" ref=${test.outcome}>${test.done}</p>` : null}
              ${enable.done && latest === 'enable' ? html`<p class="success" role="status" tabindex="-1" ref=${enable.outcome}>${enable.done}</p>` : null}
            </div>
            <${ProblemMessage} error=${latest === 'test' ? test.error : null} context="No test sent" outcome=${test.outcome} />
            <${ProblemMessage} error=${latest === 'enable' ? enable.error : null} context="Not enabled" outcome=${enable.outcome} />
            <${Settings}
              api=${api}
              subscription=${subscription.data}
              changed=${() => subscription.reload()}
              acting=${() => setLatest('settings')}
              saysOutcome=${latest === 'settings'}
            />
            <${RotateSecret} api=${api} id=${id} />
          </section>
        </div>`
        : null
    }
    <section class="card" aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Delivery attempts</h2>
      <div class="toolbar">
        <div class="inline-form">
          <label for="outcome-filter">Outcome</label>
          <select
            id="outcome-filter"
            value=${outcome}
            onChange=${(/** @type {Event} */ event) =>
              filterBy({ outcome: /** @type {HTMLSelectElement} */ (event.currentTarget).value })}
          >
            <option value="">Any outcome</option>
            ${outcomes.map((name) => html`<option value=${name}>${name}</option>`)}
          </select>
          <label for="event-type-filter">Event type</label>
          <select
            id="event-type-filter"
            value=${eventType}
            onChange=${(/** @type {Event} */ event) =>
              filterBy({ eventType: /** @type {HTMLSelectElement} */ (event.currentTarget).value })}
          >
            <option value="">Any event type</option>
            ${testEventTypes.map((name) => html`<option value=${name}>${name}</option>`)}
          </select>
        </div>
      </div>
      <div aria-live="polite">
        ${retry.done ? html`<p class="success" role="status" tabindex="-1" ref=${retry.outcome}>${retry.done}</p>` : null}
        ${following ? html`<p class="loading" role="status">Waiting for the attempt to deliver ${following.what}…</p>` : null}
        ${
          arrived
            ? html`<p class="success" role="status">New attempt: ${arrived.eventType}, attempt ${arrived.attempt}, ${arrived.outcome}${arrived.statusCode !== null ? ` (${arrived.statusCode})` : ''}.</p>`
            : null
        }
      </div>
      <form class="inline-form" onSubmit=${(/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        if (recoverSince) recover.run();
      }}>
        <label for="recover-since">Recover every failed delivery since</label>
        <input id="recover-since" type="datetime-local" required value=${recoverSince} onInput=${(/** @type {InputEvent} */ e) => setRecoverSince(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
        <button type="submit" class="secondary" disabled=${recover.busy}>Recover</button>
      </form>
      <div aria-live="polite">${recover.done ? html`<p class="success" role="status" tabindex="-1" ref=${recover.outcome}>${recover.done}</p>` : null}</div>
      <${ProblemMessage} error=${recover.error} context="Nothing recovered" outcome=${recover.outcome} />
      <${ProblemMessage} error=${retry.error} context="No retry" outcome=${retry.outcome} />
      <${ProblemMessage} error=${attempts.error} context="The attempts could not be read" />
      ${attempts.loading && !attempts.data ? html`<${Loading} label="Loading the attempts…" />` : null}
      ${
        attempts.data
          ? html`<${OutcomeChart} attempts=${attempts.data.data} id="outcomes" />
            <${AttemptTable} attempts=${attempts.data.data} filtered=${Boolean(outcome || eventType)} firstPage=${cursor === ''} onRetry=${retry.run} busy=${retry.busy} />
            <${Pager} label="Pages of attempts" prev=${viewLink(attempts.data.links.prev, id)} next=${viewLink(attempts.data.links.next, id)} />`
          : null
      }
    </section>
    <${PendingDeliveries} api=${api} id=${id} after=${attempts.data} />
  </section>`;
};

/**
 * @param {{ attempts: DeliveryAttempt[], filtered: boolean, firstPage: boolean, onRetry: (attempt: DeliveryAttempt) => void, busy: boolean }} props
 */
const AttemptTable = ({ attempts, filtered, firstPage, onRetry, busy }) => {
  if (attempts.length === 0) {
    return html`<p class="empty">${filtered ? 'No delivery attempt matches the filters.' : 'No delivery attempt yet.'}</p>`;
  }
  // Only the first page of the whole log holds each delivery's newest attempt: filtered, or further on, a
  // newer one may be hidden, and what an attempt planned next is not what comes.
  const knowsNewest = firstPage && !filtered;
  // The newest attempt shown of each delivery carries its retry button (attempts come newest first).
  const newestOfDelivery = new Set();
  const seen = new Set();
  for (const attempt of attempts) {
    if (seen.has(attempt.deliveryId)) continue;
    seen.add(attempt.deliveryId);
    newestOfDelivery.add(attempt.id);
  }
  return html`<div class="table-wrap" tabindex="0">
    <table class="attempts">
      <caption class="visually-hidden">Delivery attempts, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Attempted</th>
          <th scope="col">Event</th>
          <th scope="col" class="number">Attempt</th>
          <th scope="col">Outcome</th>
          <th scope="col" class="number">Status</th>
          <th scope="col" class="number">Duration</th>
          <th scope="col">Next attempt</th>
          <th scope="col">Request</th>
          <th scope="col">Response</th>
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${attempts.map(
          (attempt) => html`<tr data-attempt=${attempt.id} data-delivery=${attempt.deliveryId}>
            <td><${Time} iso=${attempt.attemptedAt} /></td>
            <td>${attempt.eventType} <code title=${attempt.eventId}>${shortId(attempt.eventId)}</code></td>
            <td class="number">${attempt.attempt}</td>
            <td>
              <span class=${`badge outcome-${attempt.outcome}`}>${attempt.outcome}</span>
              ${attempt.deadLettered ? html` <span class="badge dead-lettered">dead-lettered</span>` : null}
              ${attempt.outcome === 'gone' ? html`<p class="hint">Not retried: the subscription was disabled.</p>` : null}
            </td>
            <td class="number">${attempt.statusCode ?? html`<span class="muted">—</span>`}</td>
            <td class="number">${attempt.durationMs === null ? html`<span class="muted">—</span>` : `${attempt.durationMs} ms`}</td>
            <td>${
              // Only the newest attempt of a delivery says what comes next: a later one replaced the others' plans.
              !knowsNewest
                ? html`<span class="muted" title="A newer attempt of this delivery may be filtered out or on another page: the first page of all attempts says what comes next.">not shown here</span>`
                : !newestOfDelivery.has(attempt.id)
                  ? html`<span class="muted">replaced</span>`
                  : attempt.nextAttemptAt
                    ? html`<${Time} iso=${attempt.nextAttemptAt} />`
                    : html`<span class="muted">none</span>`
            }</td>
            <td><${RequestSent} attempt=${attempt} /></td>
            <td>
              ${attempt.error ? html`<p class="hint">${attempt.error}</p>` : null}
              ${
                attempt.responseBody !== null
                  ? html`<details>
                    <summary>Body<span class="visually-hidden"> of the answer to attempt ${attempt.attempt}</span>${attempt.responseBodyTruncated ? ' (first 64 kB)' : ''}</summary>
                    <pre>${attempt.responseBody}</pre>
                  </details>`
                  : null
              }
            </td>
            <td>
              ${
                newestOfDelivery.has(attempt.id)
                  ? html`<button type="button" class="secondary small" disabled=${busy} onClick=${() => onRetry(attempt)}>
                    Retry<span class="visually-hidden"> delivery of ${attempt.eventType} ${shortId(attempt.eventId)}</span>
                  </button>`
                  : null
              }
            </td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
};

/**
 * What an attempt sent: its headers (the signature cut short by the API) and its body, as the receiver got
 * it but with a customer's erased fields as the API reads them now. Absent from an attempt that sent
 * nothing (cancelled) and from those recorded before requests were kept.
 * @param {{ attempt: import('../types.js').DeliveryAttempt }} props
 */
const RequestSent = ({ attempt }) => {
  if (!attempt.request)
    return html`<span class="muted">${attempt.outcome === 'cancelled' ? 'nothing sent' : 'not kept'}</span>`;
  const { headers, body } = attempt.request;
  return html`<details class="request-sent">
    <summary>Sent<span class="visually-hidden"> with attempt ${attempt.attempt} of ${attempt.eventType}</span></summary>
    <dl class="headers">
      ${Object.entries(headers).map(([name, value]) => html`<dt>${name}</dt><dd><code>${value}</code></dd>`)}
    </dl>
    <pre tabindex="0" aria-label=${`Body sent with attempt ${attempt.attempt}`}>${JSON.stringify(body, null, 2)}</pre>
  </details>`;
};

/** Rotating the signing secret: asked twice, and the new secret shown once. @param {{ api: import('../api.js').Api, id: string }} props */
const RotateSecret = ({ api, id }) => {
  const [asking, setAsking] = useState(false);
  const rotate = useAction(async () => {
    const answer = await api.command(`/webhooks/${id}/rotate-secret`);
    setAsking(false);
    return /** @type {{ secret: string, previousSecretExpiresAt: string }} */ (answer.body);
  });
  return html`<div class="rotate">
    ${
      asking
        ? html`<div class="confirm-box" role="group" aria-labelledby="rotate-question">
          <p id="rotate-question">Rotate the signing secret? The receiver must switch to the new one; the old one keeps signing beside it for 24 hours.</p>
          <div class="button-row">
            <button type="button" class="danger" onClick=${() => rotate.run()} disabled=${rotate.busy}>Rotate now</button>
            <button type="button" class="secondary" onClick=${() => setAsking(false)}>Keep the secret</button>
          </div>
        </div>`
        : html`<button type="button" class="secondary" onClick=${() => setAsking(true)}>Rotate the secret…</button>`
    }
    ${
      rotate.done
        ? html`<div class="secret" role="status" tabindex="-1" ref=${rotate.outcome}>
          <p><strong>The new secret</strong>, shown only now: give it to the receiver.</p>
          <p><code class="secret-value">${rotate.done.secret}</code></p>
          <p class="hint">The previous one keeps signing until <${Time} iso=${rotate.done.previousSecretExpiresAt} />.</p>
        </div>`
        : null
    }
    <${ProblemMessage} error=${rotate.error ? asProblem(rotate.error) : null} context="The secret was not rotated" outcome=${rotate.outcome} />
  </div>`;
};

/**
 * Changing the subscription (PATCH: URL, events, description; stopping it), and removing it (DELETE), asked
 * twice, saying what cannot be undone. `acting` tells the view a change starts; `saysOutcome` whether its
 * outcome is still the latest word of the subscription's actions.
 *
 * @param {{ api: import('../api.js').Api, subscription: Subscription, changed: () => void, acting: () => void, saysOutcome: boolean }} props
 */
const Settings = ({ api, subscription, changed, acting, saysOutcome }) => {
  const [removing, setRemoving] = useState(false);
  const change = useAction(
    /** @param {Record<string, unknown>} changes @param {string} done */
    async (changes, done) => {
      acting();
      await api.command(`/webhooks/${subscription.id}`, { method: 'PATCH', body: changes });
      changed();
      return done;
    },
  );
  const remove = useAction(async () => {
    await api.command(`/webhooks/${subscription.id}`, { method: 'DELETE' });
    navigate(href('/webhooks'));
    return 'Removed.';
  });
  return html`<div class="settings">
    <details>
      <summary>Change the URL, events or description</summary>
      <${SubscriptionFields}
        idPrefix="change"
        initial=${{ url: subscription.url, events: subscription.events, description: subscription.description ?? '' }}
        busy=${change.busy}
        submitLabel="Save the changes"
        onSubmit=${(/** @type {{ url: string, events: string[], description: string }} */ fields) =>
          change.run({ ...fields, description: fields.description || null }, 'Saved.')}
      />
    </details>
    <div class="button-row">
      ${
        subscription.active
          ? html`<button type="button" class="secondary" disabled=${change.busy} onClick=${() => change.run({ active: false }, 'Disabled: nothing is delivered until it is enabled again.')}>Disable</button>`
          : null
      }
      ${
        removing
          ? null
          : html`<button type="button" class="danger" onClick=${() => setRemoving(true)}>Remove the subscription…</button>`
      }
    </div>
    ${
      removing
        ? html`<div class="confirm-box" role="group" aria-labelledby="remove-question">
          <p id="remove-question">Remove this subscription? It receives nothing more, its deliveries under way end, and it cannot be restored: a new one would have a new id and secret.</p>
          <div class="button-row">
            <button type="button" class="danger" disabled=${remove.busy} onClick=${() => remove.run()}>Remove</button>
            <button type="button" class="secondary" onClick=${() => setRemoving(false)}>Keep it</button>
          </div>
        </div>`
        : null
    }
    <div aria-live="polite">${change.done && saysOutcome ? html`<p class="success" role="status" tabindex="-1" ref=${change.outcome}>${change.done}</p>` : null}</div>
    <${ProblemMessage} error=${saysOutcome ? change.error : null} context="Not changed" outcome=${change.outcome} />
    <${ProblemMessage} error=${remove.error} context="Not removed" outcome=${remove.outcome} />
  </div>`;
};

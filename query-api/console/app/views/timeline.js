/**
 * The timeline of an order: every event of its stream as stored (GET /orders/{id}/events), the state
 * after each (GET /orders/{id}?revision=N, for staff, auditors and admins), and what changed from one
 * state to the next, highlighted. Values erased under the privacy rules ("[erased]") show as such.
 *
 * @typedef {import('../types.js').Order} Order
 * @typedef {import('../types.js').StoredEvent} StoredEvent
 * @typedef {import('./orders.js').ViewProps} ViewProps
 * @typedef {import('../lib/state-diff.js').Change} Change
 */
import { html } from '../html.js';
import {
  ErasedBadge,
  JsonValue,
  Loading,
  ProblemMessage,
  Time,
  ViewHeading,
  useLoad,
  useTitle,
} from '../components.js';
import { href } from '../router.js';
import { shortId } from '../lib/format.js';
import { eventInWords } from '../lib/sentences.js';
import { may } from '../lib/permissions.js';
import { changedPaths, containsErased, diffStates } from '../lib/state-diff.js';

/** A value in a change's cell: short JSON, or the erased badge. @param {{ value: unknown }} props */
const Value = ({ value }) => {
  if (value === undefined) return html`<span class="muted">—</span>`;
  if (value === '[erased]') return html`<${ErasedBadge} />`;
  return html`<code>${JSON.stringify(value)}</code>`;
};

/** @param {ViewProps} props */
export const TimelineView = ({ api, user, route }) => {
  const id = route.params['id'] ?? '';
  const withStates = may(user, 'getOrderAtRevision');
  useTitle(`Timeline of order ${shortId(id)}`);
  const timeline = useLoad(async () => {
    const path = `/orders/${encodeURIComponent(id)}`;
    /** @type {StoredEvent[]} */
    const events = (await api.get(`${path}/events`)).body;
    /** @type {(Order | null)[]} */
    const states = withStates
      ? await Promise.all(
          events.map(
            async (event) =>
              /** @type {Order} */ ((await api.get(`${path}?revision=${event.revision}`)).body),
          ),
        )
      : events.map(() => null);
    return { events, states };
  }, [id]);

  return html`<section aria-labelledby="view-heading">
    <p class="breadcrumb"><a href=${href('/orders')}>Orders</a> › <a href=${href(`/orders/${id}`)}>Order <code>${shortId(id)}</code></a></p>
    <${ViewHeading}>Timeline of order <code>${shortId(id)}</code></${ViewHeading}>
    <p class="lead">
      Every event of the order’s stream as the log stores it, oldest first${
        withStates ? ', with the order’s state after each and what changed (highlighted)' : ''
      }.
      ${withStates ? null : ' The states after each event are shown to staff, auditors and admins.'}
    </p>
    <${ProblemMessage} error=${timeline.error} context="The timeline could not be read" />
    ${timeline.loading && !timeline.data ? html`<${Loading} label="Loading the timeline…" />` : null}
    ${
      timeline.data
        ? html`<ol class="timeline">
          ${timeline.data.events.map((event, index) => {
            const state = timeline.data?.states[index] ?? null;
            const previous = index > 0 ? (timeline.data?.states[index - 1] ?? null) : null;
            return html`<${TimelineEntry} key=${event.id} event=${event} state=${state} previous=${previous} first=${index === 0} />`;
          })}
        </ol>`
        : null
    }
  </section>`;
};

/**
 * One event: its parts in reading order, which is also the grid's and so the tab order: what changed and
 * the state after it side by side, then the event's data below them.
 *
 * @param {{ event: StoredEvent, state: Order | null, previous: Order | null, first: boolean }} props
 */
const TimelineEntry = ({ event, state, previous, first }) => {
  const changes = state && !first ? diffStates(previous, state) : [];
  const highlighted = changedPaths(changes);
  const headingId = `event-${event.revision}`;
  const erased = containsErased(event.data) || (state !== null && containsErased(state));
  return html`<li class="timeline-entry" data-revision=${event.revision} aria-labelledby=${headingId}>
    <article class="card">
      <header class="entry-header">
        <h2 id=${headingId}>
          <span class="revision">#${event.revision}</span> ${event.type}
          ${erased ? html` <${ErasedBadge} />` : null}
        </h2>
        <p class="sentence">${eventInWords(event)}</p>
        <dl class="entry-facts">
          <div><dt>Time</dt><dd><${Time} iso=${event.occurredAt} /></dd></div>
          <div><dt>Revision</dt><dd>${event.revision}</dd></div>
          <div><dt>Version of ${event.type}</dt><dd>${event.version}</dd></div>
          ${event.position !== undefined ? html`<div><dt>Position</dt><dd>${event.position}</dd></div>` : null}
          <div><dt>Actor</dt><dd>${event.actor === null ? 'the system' : html`${event.actor.roles.join(', ')}${event.actor.userId ? html` <code>${event.actor.userId}</code>` : null}`}</dd></div>
          <div><dt>Correlation id</dt><dd><code>${event.correlationId}</code></dd></div>
          <div><dt>Event id</dt><dd><code>${event.id}</code></dd></div>
        </dl>
      </header>
      <div class=${state ? 'entry-body with-state' : 'entry-body'}>
      ${
        state
          ? html`<section class="changes" aria-label=${`What changed with event ${event.revision}`}>
            <h3>${first ? 'The order as placed' : 'What changed'}</h3>
            ${
              first
                ? html`<p class="hint">The first event: every field below is new.</p>`
                : changes.length === 0
                  ? html`<p class="empty">Nothing in the order’s state changed.</p>`
                  : html`<table class="diff">
                    <thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
                    <tbody>
                      ${changes.map(
                        (change) => html`<tr class=${`change-${change.kind}`} data-path=${change.path}>
                          <th scope="row"><code>${change.path}</code></th>
                          <td><del><${Value} value=${change.before} /></del></td>
                          <td><ins><${Value} value=${change.after} /></ins></td>
                        </tr>`,
                      )}
                    </tbody>
                  </table>`
            }
          </section>`
          : null
      }
      ${
        state
          ? html`<details class="state" open=${!first && changes.length > 0}>
            <summary>State after this event${first ? '' : ' (changes highlighted)'}</summary>
            <${JsonValue} value=${state} changed=${first ? undefined : highlighted} />
          </details>`
          : null
      }
      <details class="event-data" open=${!state}>
        <summary>Event data, as stored</summary>
        <${JsonValue} value=${event.data} />
      </details>
      </div>
    </article>
  </li>`;
};

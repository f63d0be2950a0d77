/**
 * The audit log: the whole event log newest first (GET /audit/events?newest=true), with positions, a jump
 * to a position, filters by event type, stream, acting user and correlation id (read forward through the
 * log), a link from each event to its order's timeline, and the hash-chained export built here from the
 * same pages (lib/audit-export.js).
 *
 * @typedef {import('../types.js').StoredEvent} StoredEvent
 * @typedef {import('../types.js').CursorPage<StoredEvent>} AuditPage
 * @typedef {import('./orders.js').ViewProps} ViewProps
 */
import { html } from '../html.js';
import { useEffect, useState } from '../vendor/hooks.js';
import {
  JsonValue,
  Loading,
  Pager,
  ProblemMessage,
  Time,
  ViewHeading,
  useAction,
  useLoad,
  useTitle,
} from '../components.js';
import { href, navigate } from '../router.js';
import { orderIdOfStream, shortId, subscriptionIdOfStream } from '../lib/format.js';
import { may } from '../lib/permissions.js';
import { buildAuditExport } from '../lib/audit-export.js';
import { eventInWords } from '../lib/sentences.js';
import { eventTypes } from '../lib/vocabulary.js';

const pageSize = 50;
/** A filtered view reads up to this many pages of 1,000 events for one page of matches. */
const scanPages = 20;

/** What the log can be narrowed to, each a query parameter of the view. */
const filterNames = /** @type {const} */ (['type', 'stream', 'actor', 'correlation']);

/** The span of time the log is narrowed to, query parameters of the view and of the API alike. */
const spanNames = /** @type {const} */ (['from', 'until']);

/** The console's link for a link of the API's envelope (`/audit/events?after=...`). @param {string | null} link */
const viewLink = (link) => {
  if (link === null) return null;
  const query = new URLSearchParams(link.split('?')[1] ?? '');
  return href('/audit', {
    after: query.get('after'),
    before: query.get('before'),
    from: query.get('from'),
    until: query.get('until'),
  });
};

/** An instant as a datetime-local field shows it, in the browser's time zone. @param {string} iso */
const localInput = (iso) => {
  if (!iso) return '';
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** A datetime-local field's value as an instant, or '' when empty. @param {string} local */
const instantOf = (local) => (local ? new Date(local).toISOString() : '');

/**
 * Whether an event is one the filters ask for: its type, its stream (a stream id, or an order's or a
 * subscription's id), the user who acted, its correlation id.
 *
 * @param {StoredEvent} event
 * @param {Record<string, string>} filters
 */
const matchesFilters = (event, { type, stream, actor, correlation }) =>
  (!type || event.type === type) &&
  (!stream || event.streamId === stream || event.streamId.endsWith(`-${stream}`)) &&
  (!actor || event.actor?.userId === actor) &&
  (!correlation || event.correlationId === correlation);

/** @param {ViewProps} props */
export const AuditView = ({ api, user, route }) => {
  const after = route.query.get('after');
  const before = route.query.get('before');
  const filters = Object.fromEntries(filterNames.map((name) => [name, route.query.get(name) ?? '']));
  const filtered = filterNames.some((name) => filters[name]);
  const span = Object.fromEntries(spanNames.map((name) => [name, route.query.get(name) ?? '']));
  const spanQuery = Object.fromEntries(Object.entries(span).filter(([, value]) => value));
  useTitle('Audit log');
  const log = useLoad(async () => {
    if (!filtered) {
      // Newest first: the latest page unless a position was asked for; "Next" goes to older events.
      const query = new URLSearchParams({
        limit: String(pageSize),
        ...(after ? { after } : before ? { before } : { newest: 'true' }),
        ...spanQuery,
      });
      const page = /** @type {AuditPage} */ ((await api.get(`/audit/events?${query}`)).body);
      return {
        events: [...page.data].reverse(),
        prev: viewLink(page.links.next),
        next: viewLink(page.links.prev),
        scanned: page.data.length,
      };
    }
    // The API pages the whole log; a filter reads forward, in log order, until a page of matches (or the end).
    /** @type {StoredEvent[]} */
    const matches = [];
    let position = after;
    let scanned = 0;
    let more = true;
    for (let pages = 0; pages < scanPages && matches.length < pageSize && more; pages++) {
      const query = new URLSearchParams({
        limit: '1000',
        ...(position ? { after: position } : {}),
        ...spanQuery,
      });
      const page = /** @type {AuditPage} */ ((await api.get(`/audit/events?${query}`)).body);
      for (const event of page.data) {
        scanned++;
        position = event.position ?? position;
        if (matchesFilters(event, filters)) matches.push(event);
        if (matches.length === pageSize) break;
      }
      more = page.links.next !== null && page.data.length > 0;
      if (matches.length === pageSize) more = true;
    }
    return {
      events: matches,
      prev: null,
      next: more ? href('/audit', { after: position, ...filters, ...span }) : null,
      scanned,
    };
  }, [after, before, ...filterNames.map((name) => filters[name]), span['from'], span['until']]);

  /** @param {Partial<Record<string, string>>} changes */
  const filterBy = (changes) => navigate(href('/audit', { ...filters, ...span, ...changes }));
  const [from, setFrom] = useState(localInput(span['from'] ?? ''));
  const [until, setUntil] = useState(localInput(span['until'] ?? ''));
  const [position, setPosition] = useState('');
  const [stream, setStream] = useState(filters['stream'] ?? '');
  const [actor, setActor] = useState(filters['actor'] ?? '');
  // The view stays while the address changes (a link, Back): each field follows its own part of it.
  useEffect(() => setFrom(localInput(span['from'] ?? '')), [span['from']]);
  useEffect(() => setUntil(localInput(span['until'] ?? '')), [span['until']]);
  useEffect(() => setStream(filters['stream'] ?? ''), [filters['stream']]);
  useEffect(() => setActor(filters['actor'] ?? ''), [filters['actor']]);

  return html`<section aria-labelledby="view-heading">
    <${ViewHeading}>Audit log</${ViewHeading}>
    <p class="lead">Every event of every stream, newest first, with their positions; narrowed by a filter, in the order the log stored them.</p>
    <div class="toolbar">
      <div class="inline-form">
        <label for="type-filter">Event type</label>
        <select
          id="type-filter"
          value=${filters['type']}
          onChange=${(/** @type {Event} */ event) =>
            filterBy({ type: /** @type {HTMLSelectElement} */ (event.currentTarget).value })}
        >
          <option value="">Any type</option>
          ${eventTypes.map((name) => html`<option value=${name}>${name}</option>`)}
        </select>
      </div>
      <form class="inline-form" onSubmit=${(/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        filterBy({ stream: stream.trim(), actor: actor.trim() });
      }}>
        <label for="stream-filter">Stream or order id</label>
        <input id="stream-filter" value=${stream} spellcheck="false" onInput=${(/** @type {InputEvent} */ e) => setStream(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
        <label for="actor-filter">Acting user id</label>
        <input id="actor-filter" value=${actor} spellcheck="false" onInput=${(/** @type {InputEvent} */ e) => setActor(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
        <button type="submit" class="secondary">Filter</button>
      </form>
      <form class="inline-form" onSubmit=${(/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        filterBy({ from: instantOf(from), until: instantOf(until) });
      }}>
        <label for="from-filter">Recorded from</label>
        <input id="from-filter" type="datetime-local" value=${from} onInput=${(/** @type {InputEvent} */ e) => setFrom(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
        <label for="until-filter">until</label>
        <input id="until-filter" type="datetime-local" value=${until} onInput=${(/** @type {InputEvent} */ e) => setUntil(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
        <button type="submit" class="secondary">Show this time</button>
      </form>
      <form class="inline-form" onSubmit=${(/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        if (/^\d+$/.test(position.trim()))
          navigate(href('/audit', { before: String(BigInt(position.trim()) + 1n) }));
      }}>
        <label for="position-jump">Go to position</label>
        <input id="position-jump" inputmode="numeric" value=${position} onInput=${(/** @type {InputEvent} */ e) => setPosition(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
        <button type="submit" class="secondary">Go</button>
      </form>
      <p class="toolbar-links"><a href=${href('/audit')}>Newest first</a> · <a href=${href('/audit', { after: '0', ...filters, ...span })}>From the start of the log</a></p>
    </div>
    ${
      filters['correlation']
        ? html`<p class="filter-note" role="status">The events of correlation id <code>${filters['correlation']}</code>: one request and what it caused. <a href=${href('/audit')}>Show every event</a></p>`
        : null
    }
    <${ExportPanel} api=${api} />
    <${ProblemMessage} error=${log.error} context="The log could not be read" />
    ${log.loading && !log.data ? html`<${Loading} label="Reading the log…" />` : null}
    ${
      log.data
        ? html`${filtered ? html`<p class="hint" role="status">${log.data.events.length} matching events among ${log.data.scanned} read.</p>` : null}
          <${AuditTable} events=${log.data.events} showWebhooks=${may(user, 'getWebhook')} />
          <${Pager} label="Pages of the log" prev=${log.data.prev} next=${log.data.next} />`
        : null
    }
  </section>`;
};

/** @param {{ events: StoredEvent[], showWebhooks: boolean }} props */
const AuditTable = ({ events, showWebhooks }) => {
  if (events.length === 0) return html`<p class="empty">No events here.</p>`;
  return html`<div class="table-wrap" tabindex="0">
    <table class="audit">
      <caption class="visually-hidden">Events of the log, in log order</caption>
      <thead>
        <tr>
          <th scope="col" class="number">Position</th>
          <th scope="col">Time</th>
          <th scope="col">Type</th>
          <th scope="col">Stream</th>
          <th scope="col" class="number">Version</th>
          <th scope="col">Actor</th>
          <th scope="col">What happened</th>
          <th scope="col">Data</th>
        </tr>
      </thead>
      <tbody>
        ${events.map((event) => {
          const orderId = orderIdOfStream(event.streamId);
          const subscriptionId = subscriptionIdOfStream(event.streamId);
          return html`<tr data-position=${event.position}>
            <td class="number">${event.position}</td>
            <td><${Time} iso=${event.occurredAt} /></td>
            <td>${event.type}</td>
            <td>
              ${
                orderId
                  ? html`<a href=${href(`/orders/${orderId}/timeline`)}>Order <code>${shortId(orderId)}</code><span class="visually-hidden">: its timeline</span></a>`
                  : subscriptionId && showWebhooks
                    ? html`<a href=${href(`/webhooks/${subscriptionId}`)}>Webhook <code>${shortId(subscriptionId)}</code></a>`
                    : html`<code>${event.streamId}</code>`
              }
            </td>
            <td class="number">${event.revision}</td>
            <td>${event.actor === null ? 'the system' : html`${event.actor.roles.join(', ')}${event.actor.userId ? html` <code title=${event.actor.userId}>${shortId(event.actor.userId)}</code>` : null}`}</td>
            <td>${eventInWords(event)}</td>
            <td>
              <details>
                <summary>Data<span class="visually-hidden"> of event ${event.position}</span></summary>
                <${JsonValue} value=${event.data} />
                <p class="hint">Correlation id <a href=${href('/audit', { correlation: event.correlationId })}><code>${event.correlationId}</code><span class="visually-hidden">: every event of it</span></a></p>
              </details>
            </td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
};

/** @param {{ api: import('../api.js').Api }} props */
const ExportPanel = ({ api }) => {
  const [progress, setProgress] = useState(/** @type {number | null} */ (null));
  const exported = useAction(async () => {
    setProgress(0);
    try {
      const exportedAt = new Date().toISOString();
      const built = await buildAuditExport({
        exportedAt,
        readPage: async (after) =>
          (
            await api.get(
              `/audit/events?${new URLSearchParams({ limit: '1000', ...(after ? { after } : {}) })}`,
            )
          ).body,
        onProgress: setProgress,
      });
      const url = URL.createObjectURL(new Blob(built.lines, { type: 'application/x-ndjson' }));
      return { ...built, url, name: `order-events-${exportedAt.replace(/[:.]/g, '-')}.ndjson` };
    } finally {
      setProgress(null);
    }
  });
  const result = exported.done;
  useEffect(
    () => () => {
      if (result) URL.revokeObjectURL(result.url);
    },
    [result],
  );
  const available = typeof crypto !== 'undefined' && crypto.subtle !== undefined;

  return html`<section class="card export" aria-labelledby="export-heading">
    <h2 id="export-heading">Export</h2>
    <p>
      The whole log as a hash-chained file, in the format of <code>npm run admin -- events:export</code>;
      ${' '}<code>npm run admin -- events:verify-export FILE</code> verifies it.
    </p>
    ${
      available
        ? html`<button type="button" onClick=${() => exported.run()} disabled=${exported.busy}>Export the log</button>`
        : html`<p class="problem">The export needs WebCrypto, which browsers give pages served over HTTPS or from localhost only.</p>`
    }
    <div aria-live="polite">
      ${progress !== null ? html`<p class="loading" role="status">Read ${progress} events…</p>` : null}
      ${
        result
          ? html`<div class="export-result" role="status" tabindex="-1" ref=${exported.outcome}>
            <p><strong>Exported ${result.events} events</strong>${result.lastPosition ? ` up to position ${result.lastPosition}` : ''}.</p>
            <p>Final hash: <code class="final-hash">${result.finalHash}</code></p>
            <p><a class="button" href=${result.url} download=${result.name}>Download ${result.name}</a></p>
            <p class="hint">
              This file is the log as the API shows it: without causation ids${
                result.withheldSecrets > 0
                  ? `, and with the ${result.withheldSecrets} webhook secrets the API never shows withheld`
                  : ''
              }. So it verifies, but its final hash is not the one <code>events:export</code> prints for the same log.
            </p>
          </div>`
          : null
      }
    </div>
    <${ProblemMessage} error=${exported.error} context="The export failed" outcome=${exported.outcome} />
  </section>`;
};

/**
 * The health of the process serving the console, refreshed every 5 seconds: its readiness checks
 * (GET /ready), and from GET /metrics the read models' and the relay's lag, requests and errors per route,
 * webhook deliveries by outcome, and load shedding. Neither endpoint needs a token, but only those who work
 * the service (staff, auditors, admins) see more than readiness here.
 *
 * In the distributed mode the relay runs in the projections process and the deliveries in the webhook
 * dispatcher: where the query API serving the console was told where those are, it serves their metrics
 * as GET /metrics?process={name} (the page names them), and the view takes the relay's lag and the
 * delivery counts from there, or says that the process is not reachable.
 *
 * @typedef {import('../lib/prometheus.js').Sample} Sample
 * @typedef {import('../types.js').Readiness} Readiness
 * @typedef {import('./orders.js').ViewProps} ViewProps
 */
import { html } from '../html.js';
import { useEffect, useRef, useState } from '../vendor/hooks.js';
import { Loading, ProblemMessage, ViewHeading, asProblem, useTitle } from '../components.js';
import { Sparkline } from '../charts.js';
import { parsePrometheusText, requestsByRoute, singleValue, valuesByLabel } from '../lib/prometheus.js';
import { deliveryOutcomes as outcomes } from '../lib/vocabulary.js';
import { outcomeInWords } from '../lib/sentences.js';

const refreshMs = 5_000;
const keptReadings = 30;

/**
 * Another process's metrics, through this one: its samples, or why there are none.
 *
 * @typedef {{ reachable: true, samples: Sample[] } | { reachable: false, detail: string }} OtherReading
 * @typedef {{ at: number, readiness: { status: number, body: Readiness }, samples: Sample[], others: Record<string, OtherReading> }} Reading
 */

/** What the view calls the processes whose metrics the query API may serve, and what it reads there. */
const processNames = /** @type {Record<string, string>} */ ({
  projections: 'Projections (read models, relay to the bus)',
  'webhook-dispatcher': 'Webhook dispatcher',
});

/**
 * @param {import('../api.js').Api} api
 * @param {string} name
 * @returns {Promise<[string, OtherReading]>}
 */
const readOther = async (api, name) => {
  try {
    const { status, body } = await api.probe(`/metrics?process=${encodeURIComponent(name)}`);
    if (status === 200) return [name, { reachable: true, samples: parsePrometheusText(String(body ?? '')) }];
    const detail =
      typeof body === 'object' && typeof body?.detail === 'string' ? body.detail : `Answered ${status}.`;
    return [name, { reachable: false, detail }];
  } catch {
    return [name, { reachable: false, detail: 'This process did not answer for it.' }];
  }
};

/** @param {{ value: number | null | undefined }} props */
const Count = ({ value }) =>
  value === null || value === undefined
    ? html`<span class="muted">not reported here</span>`
    : Number.isNaN(value)
      ? html`<span class="muted">unknown</span>`
      : html`${Math.round(value).toLocaleString('en')}`;

/** @param {ViewProps} props */
export const HealthView = ({ api, user }) => {
  const [reading, setReading] = useState(/** @type {Reading | null} */ (null));
  const [previous, setPrevious] = useState(/** @type {Reading | null} */ (null));
  const [rates, setRates] = useState(/** @type {number[]} */ ([]));
  const [error, setError] = useState(/** @type {import('../api.js').ApiProblem | null} */ (null));
  const [paused, setPaused] = useState(false);
  const last = useRef(/** @type {Reading | null} */ (null));
  useTitle('Health');

  useEffect(() => {
    if (paused) return;
    let stopped = false;
    const read = async () => {
      try {
        const [readiness, metrics, others] = await Promise.all([
          api.probe('/ready'),
          api.probe('/metrics'),
          Promise.all(api.processes.map((name) => readOther(api, name))),
        ]);
        if (stopped) return;
        /** @type {Reading} */
        const next = {
          at: Date.now(),
          readiness,
          samples: parsePrometheusText(String(metrics.body ?? '')),
          others: Object.fromEntries(others),
        };
        const before = last.current;
        if (before) {
          const total = (/** @type {Reading} */ r) =>
            requestsByRoute(r.samples).reduce((sum, route) => sum + route.requests, 0);
          const rate = Math.max(0, (total(next) - total(before)) / ((next.at - before.at) / 1000));
          setRates((values) => [...values, rate].slice(-keptReadings));
        }
        setPrevious(before);
        last.current = next;
        setReading(next);
        setError(null);
      } catch (failure) {
        if (!stopped) setError(asProblem(failure));
      }
    };
    void read();
    const timer = setInterval(read, refreshMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [paused]);

  return html`<section aria-labelledby="view-heading">
    <${ViewHeading}>Health</${ViewHeading}>
    <div class="toolbar">
      <p class="lead">
        This process, from <code>/ready</code> and <code>/metrics</code>${
          api.processes.length > 0
            ? html`, and the metrics of ${api.processes.map((name, index) => html`${index > 0 ? ' and ' : ''}<code>${name}</code>`)} through it`
            : null
        },
        ${paused ? ' paused' : ` refreshed every ${refreshMs / 1000} seconds`}${
          reading
            ? html`; last read at <time datetime=${new Date(reading.at).toISOString()}>${new Date(reading.at).toLocaleTimeString('en-GB')}</time>`
            : null
        }.
      </p>
      <button type="button" class="secondary" aria-pressed=${paused ? 'true' : 'false'} onClick=${() => setPaused(!paused)}>
        ${paused ? 'Resume refreshing' : 'Pause refreshing'}
      </button>
    </div>
    <${ProblemMessage} error=${error} context="Health could not be read" />
    ${reading ? html`<${Readings} reading=${reading} previous=${previous} rates=${rates} operator=${isOperator(user)} />` : html`<${Loading} label="Reading the health…" />`}
  </section>`;
};

/**
 * Whether the user works the service (staff, auditors, admins): they see its lag, traffic, deliveries and
 * routes; a customer sees whether it is ready, and nothing of how others use it.
 *
 * @param {import('../types.js').CurrentUser} user
 */
const isOperator = (user) => user.roles.some((role) => role !== 'customer');

/** @param {{ reading: Reading, previous: Reading | null, rates: number[], operator: boolean }} props */
const Readings = ({ reading, previous, rates, operator }) => {
  const { samples, readiness, others } = reading;
  const checks = Object.entries(readiness.body?.checks ?? {});
  const ready = readiness.status === 200;
  const readinessCard = html`<section class="card" aria-labelledby="ready-heading">
      <h2 id="ready-heading">Readiness: <span class=${`badge ${ready ? 'state-active' : 'state-disabled'}`}>${ready ? 'ready' : 'not ready'}</span></h2>
      <div class="table-wrap" tabindex="0" role="region" aria-label="Readiness checks"><table class="compact">
        <caption class="visually-hidden">Readiness checks</caption>
        <thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead>
        <tbody>
          ${checks.map(
            ([name, check]) => html`<tr>
              <th scope="row">${name}</th>
              <td><span class=${`badge ${check.status === 'ok' ? 'state-active' : 'state-disabled'}`}>${check.status}</span></td>
              <td>${check.detail ?? ''}</td>
            </tr>`,
          )}
        </tbody>
      </table></div>
    </section>`;
  if (!operator) return html`<div class="detail-grid">${readinessCard}</div>`;
  const lags = valuesByLabel(samples, 'projection_lag_events', 'projection');
  // The relay's lag and the delivery counts: this process's where it runs them (the embedded process),
  // else the projections process's and the webhook dispatcher's, through this one (the query API).
  const ownRelayLag = singleValue(samples, 'kafka_relay_lag_events');
  const projections = ownRelayLag === null ? others['projections'] : undefined;
  const relayLag =
    ownRelayLag ??
    (projections?.reachable ? singleValue(projections.samples, 'kafka_relay_lag_events') : null);
  const ownDeliveries = valuesByLabel(samples, 'webhook_deliveries_total', 'outcome');
  const dispatcher = Object.keys(ownDeliveries).length === 0 ? others['webhook-dispatcher'] : undefined;
  const deliveries = dispatcher?.reachable
    ? valuesByLabel(dispatcher.samples, 'webhook_deliveries_total', 'outcome')
    : ownDeliveries;
  const shed = valuesByLabel(samples, 'http_requests_shed_total', 'reason');
  const inFlight = singleValue(samples, 'http_requests_in_flight');
  const routes = requestsByRoute(samples);
  const before = new Map(
    (previous ? requestsByRoute(previous.samples) : []).map((route) => [
      `${route.method} ${route.route}`,
      route,
    ]),
  );
  const seconds = previous ? (reading.at - previous.at) / 1000 : 0;
  const notReachable = html`<span class="muted">not reachable</span>`;

  return html`<div class="detail-grid">
    ${readinessCard}
    <section class="card" aria-labelledby="lag-heading">
      <h2 id="lag-heading">Lag</h2>
      <p class="hint">Events between each follower’s checkpoint and the head of the log.</p>
      <table class="compact">
        <caption class="visually-hidden">Lag of the read models and the relay, in events</caption>
        <thead><tr><th scope="col">Follower</th><th scope="col" class="number">Events behind</th></tr></thead>
        <tbody>
          ${Object.entries(lags).map(([name, value]) => html`<tr><th scope="row">read model: ${name}</th><td class="number"><${Count} value=${value} /></td></tr>`)}
          <tr>
            <th scope="row">relay to the bus${projections ? ' (projections process)' : ''}</th>
            <td class="number">${projections && !projections.reachable ? notReachable : html`<${Count} value=${relayLag} />`}</td>
          </tr>
        </tbody>
      </table>
      ${
        relayLag === null && !projections
          ? html`<p class="hint">The relay runs in the projections process in the distributed mode: its lag is on that process’s <code>/metrics</code>, which this process shows when told where it is (<code>CONSOLE_PROJECTIONS_URL</code>).</p>`
          : null
      }
    </section>
    <section class="card" aria-labelledby="traffic-heading">
      <h2 id="traffic-heading">Traffic</h2>
      <dl class="facts">
        <div><dt>Requests per second</dt><dd>${rates.length > 0 ? (rates.at(-1) ?? 0).toFixed(1) : html`<span class="muted">after the next reading</span>`}</dd></div>
        <div><dt>Requests in flight</dt><dd><${Count} value=${inFlight} /></dd></div>
        ${Object.entries(shed).map(([reason, value]) => html`<div><dt>Refused (${reason})</dt><dd><${Count} value=${value} /></dd></div>`)}
      </dl>
      ${rates.length > 1 ? html`<${Sparkline} values=${rates} label="Requests per second" unit="requests per second" />` : null}
    </section>
    <section class="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Webhook deliveries</h2>
      ${
        dispatcher && !dispatcher.reachable
          ? html`<p class="hint">The webhook dispatcher, which counts its attempts, is not reachable: its counts are not shown.</p>`
          : Object.keys(deliveries).length === 0
            ? dispatcher
              ? html`<p class="hint">None counted yet by the webhook dispatcher since it started.</p>`
              : html`<p class="hint">None counted here: the process that delivers webhooks counts its attempts (the embedded process, once it made one; in the distributed mode the webhook dispatcher, on its own <code>/metrics</code>, which this process shows when told where it is: <code>CONSOLE_WEBHOOK_DISPATCHER_URL</code>).</p>`
            : html`${dispatcher ? html`<p class="hint">Counted by the webhook dispatcher, read through this process.</p>` : null}
              <table class="compact">
              <caption class="visually-hidden">Delivery attempts since the process started, by outcome</caption>
              <thead><tr><th scope="col">Outcome</th><th scope="col" class="number">Attempts</th></tr></thead>
              <tbody>
                ${[...outcomes, ...Object.keys(deliveries).filter((name) => !outcomes.includes(name))]
                  .filter((outcome) => deliveries[outcome] !== undefined)
                  .map(
                    (outcome) =>
                      html`<tr><th scope="row">${outcomeInWords(outcome)}</th><td class="number"><${Count} value=${deliveries[outcome]} /></td></tr>`,
                  )}
              </tbody>
            </table>`
      }
    </section>
    ${
      Object.keys(others).length > 0
        ? html`<section class="card" aria-labelledby="processes-heading">
            <h2 id="processes-heading">Other processes</h2>
            <p class="hint">Their <code>/metrics</code>, read through this process at each refresh.</p>
            <table class="compact">
              <caption class="visually-hidden">The other processes whose metrics this one serves</caption>
              <thead><tr><th scope="col">Process</th><th scope="col">Metrics</th></tr></thead>
              <tbody>
                ${Object.entries(others).map(
                  ([name, other]) => html`<tr data-process=${name}>
                    <th scope="row">${processNames[name] ?? name}</th>
                    <td>${
                      other.reachable
                        ? html`<span class="badge state-active">reachable</span>`
                        : html`<span class="badge state-disabled">not reachable</span> ${other.detail}`
                    }</td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </section>`
        : null
    }
    <section class="card wide" aria-labelledby="routes-heading">
      <h2 id="routes-heading">Requests per route</h2>
      <p class="hint">Since the process started; the rate is over the last ${seconds ? `${seconds.toFixed(0)} seconds` : 'reading'}.</p>
      <div class="table-wrap" tabindex="0"><table class="routes">
        <caption class="visually-hidden">Requests and errors by route, busiest first</caption>
        <thead>
          <tr>
            <th scope="col">Method</th><th scope="col">Route</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Per second</th>
            <th scope="col" class="number">4xx</th><th scope="col" class="number">5xx</th><th scope="col" class="number">Mean time</th>
          </tr>
        </thead>
        <tbody>
          ${routes.map((route) => {
            const earlier = before.get(`${route.method} ${route.route}`);
            const rate = seconds > 0 ? (route.requests - (earlier?.requests ?? 0)) / seconds : null;
            return html`<tr class=${route.serverErrors > 0 ? 'has-errors' : ''}>
              <td>${route.method}</td>
              <th scope="row"><code>${route.route}</code></th>
              <td class="number">${route.requests}</td>
              <td class="number">${rate === null ? '' : rate.toFixed(2)}</td>
              <td class="number">${route.clientErrors}</td>
              <td class="number">${route.serverErrors}</td>
              <td class="number">${route.requests > 0 ? `${((route.seconds / route.requests) * 1000).toFixed(1)} ms` : ''}</td>
            </tr>`;
          })}
        </tbody>
      </table></div>
    </section>
  </div>`;
};

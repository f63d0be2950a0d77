/**
 * The health of the process serving the console, refreshed every 5 seconds: its readiness checks
 * (GET /ready), and from GET /metrics the read models' and the relay's lag, requests and errors per route,
 * webhook deliveries by outcome, and load shedding. Everyone may see it: neither endpoint needs a token.
 *
 * @typedef {import('../lib/prometheus.js').Sample} Sample
 * @typedef {import('../types.js').Readiness} Readiness
 * @typedef {import('./orders.js').ViewProps} ViewProps
 */
import { html } from '../html.js';
import { useEffect, useRef, useState } from '../vendor/hooks.js';
import { Loading, ProblemMessage, ViewHeading, asProblem } from '../components.js';
import { Sparkline } from '../charts.js';
import { parsePrometheusText, requestsByRoute, singleValue, valuesByLabel } from '../lib/prometheus.js';
import { deliveryOutcomes as outcomes } from '../lib/vocabulary.js';

const refreshMs = 5_000;
const keptReadings = 30;

/**
 * @typedef {{ at: number, readiness: { status: number, body: Readiness }, samples: Sample[] }} Reading
 */

/** @param {{ value: number | null | undefined }} props */
const Count = ({ value }) =>
  value === null || value === undefined
    ? html`<span class="muted">not reported here</span>`
    : Number.isNaN(value)
      ? html`<span class="muted">unknown</span>`
      : html`${Math.round(value).toLocaleString('en')}`;

/** @param {ViewProps} props */
export const HealthView = ({ api }) => {
  const [reading, setReading] = useState(/** @type {Reading | null} */ (null));
  const [previous, setPrevious] = useState(/** @type {Reading | null} */ (null));
  const [rates, setRates] = useState(/** @type {number[]} */ ([]));
  const [error, setError] = useState(/** @type {import('../api.js').ApiProblem | null} */ (null));
  const [paused, setPaused] = useState(false);
  const last = useRef(/** @type {Reading | null} */ (null));
  useEffect(() => {
    document.title = 'Health · Order console';
  }, []);

  useEffect(() => {
    if (paused) return;
    let stopped = false;
    const read = async () => {
      try {
        const [readiness, metrics] = await Promise.all([api.probe('/ready'), api.probe('/metrics')]);
        if (stopped) return;
        /** @type {Reading} */
        const next = { at: Date.now(), readiness, samples: parsePrometheusText(String(metrics.body ?? '')) };
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
        This process, from <code>/ready</code> and <code>/metrics</code>,
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
    ${reading ? html`<${Readings} reading=${reading} previous=${previous} rates=${rates} />` : html`<${Loading} label="Reading the health…" />`}
  </section>`;
};

/** @param {{ reading: Reading, previous: Reading | null, rates: number[] }} props */
const Readings = ({ reading, previous, rates }) => {
  const { samples, readiness } = reading;
  const checks = Object.entries(readiness.body?.checks ?? {});
  const ready = readiness.status === 200;
  const lags = valuesByLabel(samples, 'projection_lag_events', 'projection');
  const relayLag = singleValue(samples, 'kafka_relay_lag_events');
  const deliveries = valuesByLabel(samples, 'webhook_deliveries_total', 'outcome');
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

  return html`<div class="detail-grid">
    <section class="card" aria-labelledby="ready-heading">
      <h2 id="ready-heading">Readiness: <span class=${`badge ${ready ? 'state-active' : 'state-disabled'}`}>${ready ? 'ready' : 'not ready'}</span></h2>
      <table class="compact">
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
      </table>
    </section>
    <section class="card" aria-labelledby="lag-heading">
      <h2 id="lag-heading">Lag</h2>
      <p class="hint">Events between each follower’s checkpoint and the head of the log.</p>
      <table class="compact">
        <caption class="visually-hidden">Lag of the read models and the relay, in events</caption>
        <thead><tr><th scope="col">Follower</th><th scope="col" class="number">Events behind</th></tr></thead>
        <tbody>
          ${Object.entries(lags).map(([name, value]) => html`<tr><th scope="row">read model: ${name}</th><td class="number"><${Count} value=${value} /></td></tr>`)}
          <tr><th scope="row">relay to the bus</th><td class="number"><${Count} value=${relayLag} /></td></tr>
        </tbody>
      </table>
      ${relayLag === null ? html`<p class="hint">The relay runs in the projections process in the distributed mode: its lag is on that process’s <code>/metrics</code>.</p>` : null}
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
        Object.keys(deliveries).length === 0
          ? html`<p class="hint">None counted here: the process that delivers webhooks counts its attempts (the embedded process, once it made one; in the distributed mode the webhook dispatcher, on its own <code>/metrics</code>).</p>`
          : html`<table class="compact">
            <caption class="visually-hidden">Delivery attempts since the process started, by outcome</caption>
            <thead><tr><th scope="col">Outcome</th><th scope="col" class="number">Attempts</th></tr></thead>
            <tbody>
              ${[...outcomes, ...Object.keys(deliveries).filter((name) => !outcomes.includes(name))]
                .filter((outcome) => deliveries[outcome] !== undefined)
                .map(
                  (outcome) =>
                    html`<tr><th scope="row">${outcome}</th><td class="number"><${Count} value=${deliveries[outcome]} /></td></tr>`,
                )}
            </tbody>
          </table>`
      }
    </section>
    <section class="card wide" aria-labelledby="routes-heading">
      <h2 id="routes-heading">Requests per route</h2>
      <p class="hint">Since the process started; the rate is over the last ${seconds ? `${seconds.toFixed(0)} seconds` : 'reading'}.</p>
      <div class="table-wrap"><table class="routes">
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

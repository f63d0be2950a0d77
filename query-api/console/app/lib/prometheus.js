/**
 * The Prometheus text format (what GET /metrics answers), read into samples, and the few summaries the
 * health view shows. Metric names are the service's: infrastructure/metrics/http-metrics.ts,
 * infrastructure/event-sourcing/projection-metrics.ts, webhook-dispatcher/delivery-metrics.ts, load-shedding.ts.
 *
 * @typedef {{ name: string, labels: Record<string, string>, value: number }} Sample
 */

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const labelPair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/y;

/** @param {string} text */
const unescape = (text) => text.replace(/\\(.)/g, (_, character) => (character === 'n' ? '\n' : character));

/** @param {string} text @returns {number} */
const parseValue = (text) => {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
};

/**
 * @param {string} text
 * @returns {Sample[]}
 */
export const parsePrometheusText = (text) => {
  /** @type {Sample[]} */
  const samples = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = sampleLine.exec(line);
    if (!match) continue;
    const [, name = '', labelText = '', value = ''] = match;
    /** @type {Record<string, string>} */
    const labels = {};
    labelPair.lastIndex = 0;
    while (labelPair.lastIndex < labelText.length) {
      const pair = labelPair.exec(labelText);
      if (!pair) break;
      labels[pair[1] ?? ''] = unescape(pair[2] ?? '');
    }
    samples.push({ name, labels, value: parseValue(value) });
  }
  return samples;
};

/**
 * @typedef {{ method: string, route: string, requests: number, clientErrors: number, serverErrors: number, seconds: number }} RouteStats
 */

/**
 * Requests per route (method and route pattern) from http_request_duration_seconds: how many, how many
 * answered 4xx and 5xx, and the time they took in all. Busiest first.
 *
 * @param {Sample[]} samples
 * @returns {RouteStats[]}
 */
export const requestsByRoute = (samples) => {
  /** @type {Map<string, RouteStats>} */
  const routes = new Map();
  for (const { name, labels, value } of samples) {
    const count = name === 'http_request_duration_seconds_count';
    if (!count && name !== 'http_request_duration_seconds_sum') continue;
    const method = labels['method'] ?? '';
    const route = labels['route'] ?? '';
    const key = `${method} ${route}`;
    const stats = routes.get(key) ?? {
      method,
      route,
      requests: 0,
      clientErrors: 0,
      serverErrors: 0,
      seconds: 0,
    };
    if (count) {
      const status = Number(labels['status']);
      stats.requests += value;
      if (status >= 400 && status < 500) stats.clientErrors += value;
      if (status >= 500) stats.serverErrors += value;
    } else {
      stats.seconds += value;
    }
    routes.set(key, stats);
  }
  return [...routes.values()].sort((a, b) => b.requests - a.requests || a.route.localeCompare(b.route));
};

/**
 * The values of one metric by one of its labels (`projection_lag_events` by `projection`); an empty
 * object when the process does not report it.
 *
 * @param {Sample[]} samples
 * @param {string} metric
 * @param {string} label
 * @returns {Record<string, number>}
 */
export const valuesByLabel = (samples, metric, label) =>
  Object.fromEntries(
    samples.filter(({ name }) => name === metric).map(({ labels, value }) => [labels[label] ?? '', value]),
  );

/**
 * The value of a metric without labels, or null when the process does not report it.
 *
 * @param {Sample[]} samples
 * @param {string} metric
 * @returns {number | null}
 */
export const singleValue = (samples, metric) => samples.find(({ name }) => name === metric)?.value ?? null;

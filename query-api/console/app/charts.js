/**
 * Two small charts drawn as SVG by the console itself: delivery outcomes over time (stacked bars) and a
 * line of one number over the last refreshes. Each is an image with a text description for screen readers,
 * and its numbers are in a table beside it.
 */
import { html } from './html.js';
import { bucketAttempts, describeSpan, integerTicks } from './lib/buckets.js';
import { deliveryOutcomes } from './lib/vocabulary.js';

const outcomes = deliveryOutcomes;

const width = 640;
const height = 200;
const margin = { top: 10, right: 10, bottom: 28, left: 36 };

/** @param {number} time */
const clock = (time) => new Date(time).toISOString().slice(11, 19);

/** The fewest slots the plot is divided into, however few spans of time there are. */
const minSlots = 12;
/** How wide a time label is, in the chart's units, at its largest (18 px on a phone): labels never touch. */
const labelWidth = 100;

/**
 * @param {{ attempts: import('./types.js').DeliveryAttempt[], id: string }} props
 */
export const OutcomeChart = ({ attempts, id }) => {
  const { size, buckets } = bucketAttempts(attempts);
  // Nothing to draw: the attempts' table beside it says so, in its words (none yet, or none matching).
  if (buckets.length === 0) return null;
  const totals = buckets.map((bucket) => Object.values(bucket.counts).reduce((sum, count) => sum + count, 0));
  const ticks = integerTicks(Math.max(...totals));
  const top = ticks.at(-1) ?? 1;
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  // Never wider than a twelfth of the plot: one span of time is a bar, not the whole plot.
  const slot = plotWidth / Math.max(buckets.length, minSlots);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (/** @type {number} */ value) => margin.top + plotHeight - (value / top) * plotHeight;
  const byOutcome = Object.fromEntries(
    outcomes.map((outcome) => [outcome, attempts.filter((attempt) => attempt.outcome === outcome).length]),
  );
  const summary = outcomes
    .filter((outcome) => (byOutcome[outcome] ?? 0) > 0)
    .map((outcome) => `${byOutcome[outcome]} ${outcome}`)
    .join(', ');
  const description = `${attempts.length} attempts from ${clock(buckets[0]?.from ?? 0)} to ${clock((buckets.at(-1)?.from ?? 0) + size)} UTC, in spans of ${describeSpan(size)}: ${summary}.`;
  const labelEvery = Math.max(Math.ceil(buckets.length / 6), Math.ceil(labelWidth / slot));
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-labelledby=${`${id}-title ${id}-desc`} class="outcome-chart">
      <title id=${`${id}-title`}>Delivery outcomes over time</title>
      <desc id=${`${id}-desc`}>${description}</desc>
      ${ticks.map(
        (tick) => html`<g class="grid">
          <line x1=${margin.left} x2=${width - margin.right} y1=${y(tick)} y2=${y(tick)} />
          <text x=${margin.left - 6} y=${y(tick) + 4} text-anchor="end">${tick}</text>
        </g>`,
      )}
      ${buckets.map((bucket, index) => {
        let base = 0;
        const x = margin.left + index * slot + (slot - barWidth) / 2;
        return html`<g>
          ${outcomes.map((outcome) => {
            const count = bucket.counts[outcome] ?? 0;
            if (count === 0) return null;
            const rect = html`<rect class=${`bar outcome-${outcome}`} x=${x} width=${barWidth} y=${y(base + count)} height=${y(base) - y(base + count)} />`;
            base += count;
            return rect;
          })}
          ${
            index % labelEvery === 0
              ? html`<text class="axis-label" x=${x + barWidth / 2} y=${height - 8} text-anchor="middle">${clock(bucket.from)}</text>`
              : null
          }
        </g>`;
      })}
    </svg>
    <figcaption>
      <ul class="legend">
        ${outcomes
          .filter((outcome) => (byOutcome[outcome] ?? 0) > 0)
          .map(
            (outcome) =>
              html`<li><span class=${`swatch outcome-${outcome}`} aria-hidden="true"></span>${outcome} (${byOutcome[outcome]})</li>`,
          )}
      </ul>
      <details>
        <summary>The chart’s numbers</summary>
        <div class="table-wrap" tabindex="0"><table class="compact">
          <thead>
            <tr><th scope="col">From (UTC)</th>${outcomes.map((outcome) => html`<th scope="col" class="number">${outcome}</th>`)}<th scope="col" class="number">dead-lettered</th></tr>
          </thead>
          <tbody>
            ${buckets.map(
              (bucket) => html`<tr>
                <th scope="row">${clock(bucket.from)}</th>
                ${outcomes.map((outcome) => html`<td class="number">${bucket.counts[outcome] ?? 0}</td>`)}
                <td class="number">${bucket.deadLettered}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>
      </details>
    </figcaption>
  </figure>`;
};

/**
 * A line of the last values of one number (requests per second at each refresh).
 *
 * @param {{ values: number[], label: string, unit: string }} props
 */
export const Sparkline = ({ values, label, unit }) => {
  const w = 240;
  const h = 48;
  const top = Math.max(1, ...values);
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const points = values
    .map((value, index) => `${(index * step).toFixed(1)},${(h - 4 - (value / top) * (h - 8)).toFixed(1)}`)
    .join(' ');
  const last = values.at(-1) ?? 0;
  return html`<svg class="sparkline" viewBox=${`0 0 ${w} ${h}`} role="img" aria-label=${`${label}: ${last.toFixed(1)} ${unit} now, at most ${top.toFixed(1)} over the last ${values.length} readings`}>
    <polyline points=${points} />
  </svg>`;
};

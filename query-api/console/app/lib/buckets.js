/**
 * Delivery attempts counted by outcome in equal spans of time, for the chart of a subscription's
 * outcomes: at most `maxBuckets` spans of a round length (a second up to a week).
 *
 * @typedef {{ from: number, counts: Record<string, number>, deadLettered: number }} Bucket
 */

const spans = [1, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 86_400, 7 * 86_400].map(
  (seconds) => seconds * 1000,
);

/**
 * @param {{ attemptedAt: string, outcome: string, deadLettered: boolean }[]} attempts
 * @param {number} [maxBuckets]
 * @returns {{ size: number, buckets: Bucket[] }}
 */
export const bucketAttempts = (attempts, maxBuckets = 12) => {
  if (attempts.length === 0) return { size: spans[0] ?? 1000, buckets: [] };
  const times = attempts.map(({ attemptedAt }) => Date.parse(attemptedAt));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const size =
    spans.find((span) => Math.floor(last / span) - Math.floor(first / span) < maxBuckets) ??
    spans.at(-1) ??
    1000;
  const start = Math.floor(first / size) * size;
  const count = Math.floor((last - start) / size) + 1;
  /** @type {Bucket[]} */
  const buckets = Array.from({ length: count }, (_, index) => ({
    from: start + index * size,
    counts: {},
    deadLettered: 0,
  }));
  attempts.forEach((attempt, index) => {
    const bucket = buckets[Math.floor(((times[index] ?? start) - start) / size)];
    if (!bucket) return;
    bucket.counts[attempt.outcome] = (bucket.counts[attempt.outcome] ?? 0) + 1;
    if (attempt.deadLettered) bucket.deadLettered++;
  });
  return { size, buckets };
};

/** @param {number} ms */
export const describeSpan = (ms) => {
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  if (ms < 86_400_000) return `${ms / 3_600_000} h`;
  return `${ms / 86_400_000} d`;
};

/**
 * Whole-number ticks from 0 for counts up to `most`: a step of 1, 2, 5, 10, 20, 50... giving at most five
 * ticks above 0, the last one at or above `most` (so no two ticks read the same number).
 *
 * @param {number} most
 * @returns {number[]}
 */
export const integerTicks = (most) => {
  const wanted = Math.max(1, most);
  let step = 1;
  for (let magnitude = 1; step * 5 < wanted; magnitude *= 10) {
    step =
      [1, 2, 5].map((factor) => factor * magnitude).find((candidate) => candidate * 5 >= wanted) ??
      10 * magnitude;
  }
  const count = Math.ceil(wanted / step);
  return Array.from({ length: count + 1 }, (_, index) => index * step);
};

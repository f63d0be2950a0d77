import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WebhookVerdict } from './webhook-check.ts';

const linesPerLog = 20;
const lineLength = 600;

/**
 * What a case that missed webhooks says of them, for whoever reads a failed run: each missing webhook (its
 * subscriber, write and event), then the lines of the processes' logs that name one of their orders or
 * events, as far as the target keeps logs. The stand's logs go with the stand; these lines stay in the run.
 */
export const describeMissing = (
  missing: WebhookVerdict['missing'],
  logsDir: string | undefined,
): string[] => {
  if (missing.length === 0) return [];
  const lines = missing.map(
    ({ path, write, event }) =>
      `missing at ${path}: ${write.kind} of order ${write.orderId} acknowledged at ` +
      `${new Date(write.acknowledgedAt).toISOString()} (request ${write.requestId}), ` +
      `event ${event.id} ${event.type} revision ${event.revision}`,
  );
  if (logsDir === undefined) return lines;
  const needles = [...new Set(missing.flatMap(({ write, event }) => [write.orderId, event.id]))];
  for (const file of readdirSync(logsDir)
    .filter((name) => name.endsWith('.log'))
    .sort()) {
    const found = readFileSync(join(logsDir, file), 'utf8')
      .split('\n')
      .filter((line) => needles.some((needle) => line.includes(needle)));
    for (const line of found.slice(-linesPerLog)) lines.push(`${file}: ${line.slice(0, lineLength)}`);
  }
  return lines;
};

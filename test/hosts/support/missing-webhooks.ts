import { logLinesNaming } from './log-lines.ts';
import type { WebhookVerdict } from './webhook-check.ts';

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
  return [...lines, ...logLinesNaming(logsDir, needles)];
};

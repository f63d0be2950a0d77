/**
 * The hash-chained audit export, built in the browser from GET /audit/events with WebCrypto: the format
 * of `npm run admin -- events:export` (cli/event-export.ts), which `events:verify-export` verifies.
 *
 * Each line is `{"hash":H,"record":R}`, H = SHA-256(hex hash of the previous line + "\n" + the exact
 * text of R), the first chaining from 64 zeros: a header, one record per event in log order, a trailer
 * with the count.
 *
 * What differs from the CLI's file, because the API shows less than the log holds:
 * - the header says where the events came from: `"source": "GET /audit/events"`;
 * - an event's metadata is what the API shows of it (actor, correlation id, time), without the causation
 *   id, which the API does not show, and without the stored version, which is the record's own field;
 * - a webhook secret reads `(sealed; not shown)`, as in every API answer, where the CLI keeps the sealed
 *   secret.
 * So the file verifies, and a change to any line breaks its chain, but its final hash is not the CLI's for
 * the same log.
 *
 * @typedef {import('../types.js').StoredEvent} StoredEvent
 * @typedef {import('../types.js').CursorPage<StoredEvent>} AuditPage
 */

export const exportFormat = 'order-service-events/1';
export const exportSource = 'GET /audit/events';
const genesis = '0'.repeat(64);
const encoder = new TextEncoder();

/**
 * @param {string} previous
 * @param {string} recordText
 * @returns {Promise<string>}
 */
const chain = async (previous, recordText) => {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(`${previous}\n${recordText}`));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
};

/**
 * An event as the export records it, from the event as the API shows it, in the CLI's field order.
 *
 * @param {StoredEvent} event
 */
export const exportRecordOf = (event) => ({
  kind: 'event',
  position: event.position ?? '',
  streamId: event.streamId,
  revision: event.revision,
  version: event.version,
  id: event.id,
  type: event.type,
  data: event.data,
  metadata: { actor: event.actor, correlationId: event.correlationId, occurredAt: event.occurredAt },
});

/** Whether the API withheld a value of this event (a webhook secret). @param {StoredEvent} event */
const withholdsSecret = (event) => event.data['secret'] === '(sealed; not shown)';

/**
 * Reads the whole log page by page (`readPage(after)`: GET /audit/events?after=...&limit=1000) and
 * chains it. `onProgress` hears the count so far after each page.
 *
 * @param {{
 *   readPage: (after: string | null) => Promise<AuditPage>,
 *   exportedAt: string,
 *   onProgress?: (events: number) => void,
 * }} options
 */
export const buildAuditExport = async ({ readPage, exportedAt, onProgress = () => {} }) => {
  /** @type {string[]} */
  const lines = [];
  let previous = genesis;
  /** @param {object} record */
  const emit = async (record) => {
    const text = JSON.stringify(record);
    previous = await chain(previous, text);
    lines.push(`{"hash":"${previous}","record":${text}}\n`);
  };
  await emit({ kind: 'header', format: exportFormat, after: null, exportedAt, source: exportSource });
  let events = 0;
  let withheld = 0;
  /** @type {string | null} */
  let lastPosition = null;
  for (;;) {
    const page = await readPage(lastPosition);
    for (const event of page.data) {
      await emit(exportRecordOf(event));
      if (withholdsSecret(event)) withheld++;
      lastPosition = event.position ?? lastPosition;
      events++;
    }
    onProgress(events);
    if (page.data.length === 0 || page.links.next === null) break;
  }
  await emit({ kind: 'trailer', events, lastPosition });
  return { lines, events, lastPosition, finalHash: previous, withheldSecrets: withheld };
};

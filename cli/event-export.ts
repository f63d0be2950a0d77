import { webhookUrlOrigin, withWebhookUrl } from '../webhooks/webhook-url.ts';
import { orderPersonalData } from '../domain/orders/personal-data.ts';
import { storedWithSealedFields } from '../infrastructure/personal-data/seal-events.ts';
import { createHash } from 'node:crypto';
import type { EventStore, GlobalPosition } from '../infrastructure/event-store/event-store.ts';
import { counted } from './counted.ts';
import type { PersonalDataKeyring } from '../infrastructure/personal-data/keyring.ts';

/**
 * The audit export: NDJSON, one record per line, each line `{"hash":H,"record":R}` where
 * H = SHA-256(hex hash of the previous line + "\n" + the exact text of R), and the first line chains from
 * 64 zeros. A header record opens the file, one record per event follows in log order, and a trailer with
 * the count closes it: a changed, dropped, reordered or appended line, or a cut-off end, breaks the chain.
 */
export const exportFormat = 'order-service-events/1';
const genesis = '0'.repeat(64);
const linePattern = /^\{"hash":"([0-9a-f]{64})","record":(.*)\}$/;

const chain = (previous: string, recordText: string) =>
  createHash('sha256').update(`${previous}\n${recordText}`).digest('hex');

type ExportRecord =
  | { kind: 'header'; format: string; after: string | null; exportedAt: string }
  | {
      kind: 'event';
      position: string;
      streamId: string;
      revision: number;
      /** The version of its type's data it was written in (1 for events stored before versions were kept). */
      version: number;
      id: string;
      type: string;
      data: unknown;
      metadata: unknown;
    }
  | { kind: 'trailer'; events: number; lastPosition: string | null };

/** Writes the log after a position (the whole log without one) as a chained export; the final hash. */
export const exportEvents = async (
  eventStore: EventStore,
  {
    after,
    exportedAt,
    reveal,
  }: {
    after?: GlobalPosition;
    exportedAt: string;
    /** Opens the sealed personal fields of an event's data (or reads them as "[erased]"). */
    reveal: PersonalDataKeyring['revealValue'];
  },
  writeLine: (line: string) => Promise<void>,
) => {
  let previous = genesis;
  const emit = async (record: ExportRecord) => {
    const text = JSON.stringify(record);
    previous = chain(previous, text);
    await writeLine(`{"hash":"${previous}","record":${text}}\n`);
  };
  await emit({ kind: 'header', format: exportFormat, after: after?.toString() ?? null, exportedAt });
  let position = after;
  let events = 0;
  for (;;) {
    const batch = await eventStore.readAll({
      ...(position === undefined ? {} : { after: position }),
      maxCount: 1000,
    });
    if (batch.length === 0) break;
    for (const event of batch) {
      await emit({
        kind: 'event',
        position: event.position.toString(),
        streamId: event.streamId,
        revision: event.revision,
        version: event.metadata.schemaVersion ?? 1,
        id: event.id,
        type: event.type,
        // A webhook URL as its origin: beyond it, it may be a credential (sealed in the log).
        data: withWebhookUrl(
          await reveal(
            storedWithSealedFields(orderPersonalData, {
              type: event.type,
              data: event.data,
              version: event.metadata.schemaVersion ?? 1,
            }),
          ),
          webhookUrlOrigin,
        ),
        metadata: event.metadata,
      });
    }
    events += batch.length;
    position = batch.at(-1)!.position;
  }
  await emit({ kind: 'trailer', events, lastPosition: events === 0 ? null : position!.toString() });
  return { events, finalHash: previous, lastPosition: position };
};

export class ExportVerificationError extends Error {
  readonly kind = 'export-verification';
  constructor(line: number, reason: string) {
    super(`line ${line}: ${reason}`);
  }
}

/**
 * Checks an export line by line: the hash chain, one header first and one trailer last with the right
 * count, positions increasing after the header's, and each stream's revisions without gaps (from 0 when
 * the export starts at the beginning of the log).
 */
export const verifyExport = async (lines: AsyncIterable<string>) => {
  let previous = genesis;
  let lineNumber = 0;
  let header: Extract<ExportRecord, { kind: 'header' }> | undefined;
  let trailer: Extract<ExportRecord, { kind: 'trailer' }> | undefined;
  let lastPosition: bigint | undefined;
  let events = 0;
  const revisions = new Map<string, number>();

  for await (const line of lines) {
    lineNumber++;
    if (line === '') continue;
    const fail = (reason: string) => new ExportVerificationError(lineNumber, reason);
    if (trailer) throw fail('content after the trailer');
    const match = linePattern.exec(line);
    if (!match) throw fail('not a line of this export format');
    const [, hash, recordText] = match as unknown as [string, string, string];
    if (chain(previous, recordText) !== hash)
      throw fail('hash does not chain from the previous line: altered, dropped or reordered');
    previous = hash;
    let record: ExportRecord;
    try {
      record = JSON.parse(recordText) as ExportRecord;
    } catch {
      throw fail('record is not JSON');
    }
    if (!header) {
      if (record.kind !== 'header' || record.format !== exportFormat)
        throw fail(`expected a ${exportFormat} header`);
      header = record;
      lastPosition = record.after === null ? undefined : BigInt(record.after);
      continue;
    }
    if (record.kind === 'trailer') {
      if (record.events !== events)
        throw fail(`trailer counts ${counted(record.events, 'event')}, the file has ${events}`);
      trailer = record;
      continue;
    }
    if (record.kind !== 'event') throw fail('a second header');
    const position = BigInt(record.position);
    if (lastPosition !== undefined && position <= lastPosition)
      throw fail(`position ${position} does not increase`);
    lastPosition = position;
    const seen = revisions.get(record.streamId);
    const expected = seen === undefined ? (header.after === null ? 0 : record.revision) : seen + 1;
    if (record.revision !== expected) {
      throw fail(`${record.streamId} jumps to revision ${record.revision}, expected ${expected}`);
    }
    revisions.set(record.streamId, record.revision);
    events++;
  }
  if (!header) throw new ExportVerificationError(lineNumber, 'empty file');
  if (!trailer) throw new ExportVerificationError(lineNumber, 'no trailer: the export is cut off');
  return {
    events,
    streams: revisions.size,
    after: header.after,
    lastPosition: trailer.lastPosition,
    finalHash: previous,
  };
};

import type { z } from 'zod';
import type { EventCatalog, EventVersions } from './event-versions.ts';

/** What a codec reads of a stored event: its type, its data and the schema version it was stored in. */
export type StoredEventParts = {
  type: string;
  data: unknown;
  metadata: { schemaVersion?: number | undefined };
};

/** An event as a store or a topic keeps it: its type, its data, and the version of that data. */
export type EncodedEvent = { type: string; data: Record<string, unknown>; schemaVersion: number };

/** An event's data does not fit its schema: a defect of the writer, or a stored event no version reads. */
export class EventSchemaError extends Error {
  readonly kind = 'event-schema';
}

/**
 * The one way events are written and read: each is validated against its schema on the way in (encode,
 * the current version) and on the way out (decode, after upcasting from the version it was stored in).
 * Stored events without a version are version 1 (they were written before versions existed).
 */
export const createEventCodec = <Events extends { type: string; data: unknown }>(
  catalog: EventCatalog<Events>,
) => {
  const versionsOf = (type: string): EventVersions<unknown> | undefined =>
    Object.hasOwn(catalog, type) ? (catalog as Record<string, EventVersions<unknown>>)[type] : undefined;

  const parse = (type: string, version: number, schema: z.ZodType, data: unknown) => {
    const result = schema.safeParse(data);
    if (!result.success) {
      const problems = result.error.issues.map(
        (issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`,
      );
      throw new EventSchemaError(`${type} v${version} does not fit its schema: ${problems.join('; ')}`);
    }
    return result.data;
  };

  return {
    /** Whether `type` is one of this catalogue's events. */
    knows: (type: string): type is Events['type'] => versionsOf(type) !== undefined,

    /** The current version of an event type. */
    currentVersion(type: Events['type']): number {
      return versionsOf(type)!.schemas.length;
    },

    /** An event as it is to be stored: validated against the current schema of its type. */
    encode(event: Events): EncodedEvent {
      const versions = versionsOf(event.type);
      if (!versions) throw new EventSchemaError(`${event.type} is not an event of this catalogue`);
      const current = versions.schemas.length;
      const data = parse(event.type, current, versions.schemas[current - 1]!, event.data);
      return { type: event.type, data: data as Record<string, unknown>, schemaVersion: current };
    },

    /**
     * A stored event as the current version of its type, validated; undefined for a type this catalogue
     * does not know (another feature's event in the same log).
     */
    decode(stored: { type: string; data: unknown; schemaVersion?: number | undefined }): Events | undefined {
      const versions = versionsOf(stored.type);
      if (!versions) return undefined;
      const storedVersion = stored.schemaVersion ?? 1;
      const current = versions.schemas.length;
      if (!Number.isInteger(storedVersion) || storedVersion < 1 || storedVersion > current) {
        throw new EventSchemaError(`${stored.type} v${storedVersion} is not a version this service reads`);
      }
      let data = parse(stored.type, storedVersion, versions.schemas[storedVersion - 1]!, stored.data);
      for (let version = storedVersion; version < current; version++) {
        const upcast = versions.upcast[version - 1] as (data: unknown) => unknown;
        data = parse(stored.type, version + 1, versions.schemas[version]!, upcast(data));
      }
      return { type: stored.type, data } as Events;
    },
  };
};

export type EventCodec<Events extends { type: string; data: unknown }> = ReturnType<
  typeof createEventCodec<Events>
>;

import type { z } from 'zod';

/**
 * How one kind of event is written and read over the years: the schema of every version it has had (the
 * first is version 1) and the upcasters that turn each version into the next. The stored bytes of an event
 * never change; reading an old one turns it into the current version.
 */
export type EventVersions<Current> = {
  /** Oldest first: `schemas[n - 1]` is version n; the last one is the current version. */
  schemas: readonly [...z.ZodType[], z.ZodType<Current>];
  /** `upcast[n - 1]` turns the data of version n into version n + 1: pure, one per step. */
  upcast: readonly ((data: never) => unknown)[];
};

/** Every kind of event of a feature, by type: what the event codec reads and writes them with. */
export type EventCatalog<Events extends { type: string; data: unknown }> = {
  [Type in Events['type']]: EventVersions<Extract<Events, { type: Type }>['data']>;
};

import type { GlobalPosition } from '../event-store/event-store.ts';

/** Where each projection is in the log. Stored as decimal strings: positions exceed 2^53. */
export type CheckpointStore = {
  load(projection: string): Promise<GlobalPosition | undefined>;
  save(projection: string, position: GlobalPosition): Promise<void>;
  /** Saves several projections' positions in one write (a projection group's batch). */
  saveAll(positions: ReadonlyMap<string, GlobalPosition>): Promise<void>;
};

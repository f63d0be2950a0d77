import type { Db } from 'mongodb';
import type { CheckpointStore } from './checkpoints.ts';

/** The one document that holds every projection's position, field by checkpoint name. */
const positionsId = 'positions';

type CheckpointDocument =
  | { _id: typeof positionsId; positions: Record<string, string> }
  /** Written before the positions document existed, one per projection: read while it has no entry. */
  | { _id: string; position: string };

/** A checkpoint name is a field name of the positions document: no dots, no leading $. */
const fieldOf = (projection: string) => {
  if (projection.includes('.') || projection.startsWith('$') || projection.length === 0) {
    throw new Error(`a checkpoint name cannot be a field name: ${JSON.stringify(projection)}`);
  }
  return `positions.${projection}`;
};

/**
 * Checkpoints in MongoDB: every projection's position in one document, so that a projection group saves
 * all of its members' in one write; a load reads it by `_id` (with the document of a checkpoint saved by
 * an earlier version alongside, in the same command).
 */
export const createMongoCheckpointStore = (db: Db): CheckpointStore => {
  const checkpoints = db.collection<CheckpointDocument>('projection_checkpoints');
  const saveAll = async (positions: ReadonlyMap<string, bigint>) => {
    if (positions.size === 0) return;
    const fields = Object.fromEntries(
      [...positions].map(([projection, position]) => [fieldOf(projection), position.toString()]),
    );
    await checkpoints.updateOne({ _id: positionsId }, { $set: fields }, { upsert: true });
  };
  return {
    async load(projection) {
      fieldOf(projection);
      const documents = await checkpoints.find({ _id: { $in: [positionsId, projection] } }).toArray();
      const positions = documents.find((d) => d._id === positionsId && 'positions' in d);
      const stored =
        (positions && 'positions' in positions ? positions.positions[projection] : undefined) ??
        documents.find((d): d is { _id: string; position: string } => d._id === projection && 'position' in d)
          ?.position;
      return stored === undefined ? undefined : BigInt(stored);
    },
    save: (projection, position) => saveAll(new Map([[projection, position]])),
    saveAll,
  };
};

import type { Db } from 'mongodb';
import type { CheckpointStore } from './checkpoints.ts';

export const createMongoCheckpointStore = (db: Db): CheckpointStore => {
  const checkpoints = db.collection<{ _id: string; position: string }>('projection_checkpoints');
  return {
    async load(projection) {
      const document = await checkpoints.findOne({ _id: projection });
      return document ? BigInt(document.position) : undefined;
    },
    async save(projection, position) {
      await checkpoints.updateOne(
        { _id: projection },
        { $set: { position: position.toString() } },
        { upsert: true },
      );
    },
  };
};

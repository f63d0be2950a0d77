import { createMongoIdempotencyStore } from '../../command-api/idempotency/mongo-idempotency-store.ts';
import { createMongoCheckpointStore } from '../../infrastructure/event-sourcing/mongo-checkpoint-store.ts';
import { createMongoOrderReadModel } from '../../projections/orders/mongo-order-read-model.ts';
import { checkpointStoreContract } from '../contracts/checkpoint-store.contract.ts';
import { idempotencyStoreContract } from '../contracts/idempotency-store.contract.ts';
import { orderReadModelContract } from '../contracts/order-read-model.contract.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

orderReadModelContract('MongoDB (FerretDB)', async () => createMongoOrderReadModel(await database()));
checkpointStoreContract('MongoDB (FerretDB)', async () => createMongoCheckpointStore(await database()));
idempotencyStoreContract('MongoDB (FerretDB)', async () => createMongoIdempotencyStore(await database()));

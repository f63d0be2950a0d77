import { createMongoDataKeyStore } from '../../infrastructure/personal-data/mongo-data-key-store.ts';
import { dataKeyStoreContract } from '../contracts/data-key-store.contract.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

dataKeyStoreContract('MongoDB (FerretDB)', async () => createMongoDataKeyStore(await database()));

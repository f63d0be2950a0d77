import { createMongoCatalogStore } from '../../catalog/mongo-catalog-store.ts';
import { catalogStoreContract } from '../contracts/catalog-store.contract.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

catalogStoreContract('MongoDB (FerretDB)', async () => createMongoCatalogStore(await database()));

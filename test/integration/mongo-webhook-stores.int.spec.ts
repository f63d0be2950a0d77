import { createMongoWebhookSubscriptionReadModel } from '../../projections/mongo-webhook-subscription-read-model.ts';
import { createMongoDeliveryLog } from '../../webhook-dispatcher/mongo-delivery-log.ts';
import { createMongoDeliveryQueue } from '../../webhook-dispatcher/mongo-delivery-queue.ts';
import { deliveryLogContract } from '../contracts/delivery-log.contract.ts';
import { deliveryQueueContract } from '../contracts/delivery-queue.contract.ts';
import { webhookSubscriptionReadModelContract } from '../contracts/webhook-subscription-read-model.contract.ts';
import { freshMongoDatabase } from '../support/mongo.ts';

const database = freshMongoDatabase();

webhookSubscriptionReadModelContract('MongoDB (FerretDB)', async () =>
  createMongoWebhookSubscriptionReadModel(await database()),
);
deliveryQueueContract('MongoDB (FerretDB)', async () => createMongoDeliveryQueue(await database()));
deliveryLogContract('MongoDB (FerretDB)', async () => createMongoDeliveryLog(await database()));

import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createMongoUserStore } from '../../../identity/mongo-user-store.ts';
import type { Role } from '../../../domain/identity/roles.ts';
import { anAddress } from '../../support/orders.ts';
import { testClock } from '../../support/test-clocks.ts';
import { userHelpers } from '../../support/test-service.ts';
import { postJson } from '../../support/http.ts';
import type { FaultTarget } from './fault-target.ts';
import type { LoadActor } from './load.ts';
import type { Subscriber } from './webhook-check.ts';

/**
 * The shop's people on the target: users added to its store as the admin CLI would (sign-ins through the
 * router), customers with a shipping address each, and the admin's two webhook subscriptions to the
 * receiver host, whose secrets the checker verifies signatures with.
 */
export const openShop = async (target: FaultTarget) => {
  const mongo = await MongoClient.connect(target.mongodb.url);
  const users = await createMongoUserStore(mongo.db(target.mongodb.database));
  const helpers = userHelpers(() => target.baseUrl, users, testClock('real'));

  const signIn = async (roles: Role[]): Promise<LoadActor> => {
    const user = await helpers.signIn(roles);
    return { id: user.id, auth: user.auth };
  };
  const customer = async (): Promise<LoadActor> => {
    const actor = await signIn(['customer']);
    const response = await postJson(`${target.baseUrl}/users/me/addresses`, anAddress, actor.auth);
    if (response.status !== 201) throw new Error(`address: ${response.status} ${await response.text()}`);
    return { ...actor, addressId: ((await response.json()) as { id: string }).id };
  };

  const unsubscribes: (() => Promise<void>)[] = [];
  return {
    /** Fresh people for a case (access tokens outlive a case, not the suite). */
    async people({ customers, staff }: { customers: number; staff: number }) {
      const people = { customers: [] as LoadActor[], staff: [] as LoadActor[], prober: await customer() };
      for (let index = 0; index < customers; index++) people.customers.push(await customer());
      for (let index = 0; index < staff; index++) people.staff.push(await signIn(['staff']));
      return people;
    },
    /**
     * Two subscriptions to every order event, at paths of this run's own on the receiver host (a stand used
     * before keeps its receipts, and its subscriptions until `unsubscribe`).
     */
    async subscribe(): Promise<Subscriber[]> {
      const admin = await signIn(['admin']);
      const run = randomUUID();
      const subscribers: Subscriber[] = [];
      for (const path of [`/hooks/${run}/a`, `/hooks/${run}/b`]) {
        const response = await postJson(
          `${target.baseUrl}/webhooks`,
          {
            url: `${target.receiverUrl}${path}`,
            events: ['order.created', 'order.status_changed', 'payment.received'],
          },
          admin.auth,
        );
        if (response.status !== 201)
          throw new Error(`subscribe: ${response.status} ${await response.text()}`);
        const { id, secret } = (await response.json()) as { id: string; secret: string };
        subscribers.push({ path, secret });
        unsubscribes.push(async () => {
          await fetch(`${target.baseUrl}/webhooks/${id}`, { method: 'DELETE', headers: admin.auth });
        });
      }
      return subscribers;
    },
    /** Deletes the run's subscriptions, so that a stand used again does not go on delivering to them. */
    async unsubscribe() {
      for (const unsubscribe of unsubscribes.splice(0)) await unsubscribe().catch(() => undefined);
    },
    close: () => mongo.close(),
  };
};

export type Shop = Awaited<ReturnType<typeof openShop>>;
export type People = Awaited<ReturnType<Shop['people']>>;

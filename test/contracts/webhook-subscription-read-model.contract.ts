import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WebhookSubscriptionReadModel } from '../../projections/webhook-subscriptions/subscription-read-model.ts';
import { recordedSubscriptionHistory, registerCommand } from '../support/subscription-history.ts';

const at = (minute: number) => `2026-11-21T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** What every adapter of the WebhookSubscriptionReadModel port promises; each test uses fresh subscriptions. */
export const webhookSubscriptionReadModelContract = (
  adapterName: string,
  createReadModel: () => Promise<WebhookSubscriptionReadModel>,
) => {
  describe(`WebhookSubscriptionReadModel contract: ${adapterName}`, () => {
    let model: WebhookSubscriptionReadModel;
    beforeAll(async () => {
      model = await createReadModel();
    });

    it('folds a subscription history, sealed secrets included, with its revision and position', async () => {
      const { subscriptionId, events } = recordedSubscriptionHistory((id) => [
        registerCommand(id, { secret: 'sealed-first' }),
        {
          type: 'ChangeSubscription',
          data: { subscriptionId: id, changes: { description: 'ERP' }, changedAt: at(1) },
        },
        {
          type: 'RotateSecret',
          data: {
            subscriptionId: id,
            secret: 'sealed-second',
            previousSecretExpiresAt: at(59),
            rotatedAt: at(2),
          },
        },
      ]);
      await model.applyEvents(events);
      expect(await model.get(subscriptionId)).toEqual({
        status: 'active',
        id: subscriptionId,
        url: `https://hooks.shop.example/${subscriptionId}`,
        events: ['order.created', 'order.status_changed'],
        description: 'ERP',
        disabledReason: null,
        secrets: [
          { sealed: 'sealed-second', expiresAt: null },
          { sealed: 'sealed-first', expiresAt: at(59) },
        ],
        createdAt: at(0),
        updatedAt: at(2),
        revision: 2,
        position: events[2]!.position.toString(),
        registeredPosition: events[0]!.position.toString(),
      });
      expect(await model.get(randomUUID())).toBeNull();
    });

    it('is idempotent by stream revision and refuses a gap', async () => {
      const { subscriptionId, events } = recordedSubscriptionHistory((id) => [
        registerCommand(id),
        {
          type: 'ChangeSubscription',
          data: { subscriptionId: id, changes: { active: false }, changedAt: at(1) },
        },
        {
          type: 'ChangeSubscription',
          data: { subscriptionId: id, changes: { active: true }, changedAt: at(2) },
        },
      ]);
      await model.applyEvents(events);
      const once = await model.get(subscriptionId);
      await model.applyEvents(events);
      await model.applyEvents([events[1]!]);
      expect(await model.get(subscriptionId)).toEqual(once);
      const other = recordedSubscriptionHistory((id) => [
        registerCommand(id),
        { type: 'RemoveSubscription', data: { subscriptionId: id, removedAt: at(1) } },
      ]);
      await expect(model.applyEvents([other.events[1]!])).rejects.toThrow(/gap/);
    });

    it('matches events to the active subscriptions that asked for them', async () => {
      const payments = recordedSubscriptionHistory((id) => [
        registerCommand(id, { events: ['payment.received'] }),
      ]);
      const paused = recordedSubscriptionHistory((id) => [
        registerCommand(id, { events: ['payment.received'] }),
        {
          type: 'ChangeSubscription',
          data: { subscriptionId: id, changes: { active: false }, changedAt: at(1) },
        },
      ]);
      const gone = recordedSubscriptionHistory((id) => [
        registerCommand(id, { events: ['payment.received'] }),
        { type: 'DisableSubscription', data: { subscriptionId: id, reason: '410 Gone', disabledAt: at(1) } },
      ]);
      await model.applyEvents([...payments.events, ...paused.events, ...gone.events]);
      const matched = (await model.subscribedTo('payment.received')).map((view) => view.id);
      expect(matched).toContain(payments.subscriptionId);
      expect(matched).not.toContain(paused.subscriptionId);
      expect(matched).not.toContain(gone.subscriptionId);
      expect((await model.subscribedTo('order.created')).map((view) => view.id)).not.toContain(
        payments.subscriptionId,
      );
      expect(await model.get(gone.subscriptionId)).toMatchObject({
        status: 'inactive',
        disabledReason: '410 Gone',
      });
    });

    it('forgets a removed subscription, and a replayed registration does not bring it back', async () => {
      const { subscriptionId, events } = recordedSubscriptionHistory((id) => [
        registerCommand(id, { events: ['order.created'] }),
        { type: 'RemoveSubscription', data: { subscriptionId: id, removedAt: at(1) } },
      ]);
      await model.applyEvents(events);
      await model.applyEvents([events[0]!]);
      expect(await model.get(subscriptionId)).toBeNull();
      expect((await model.list()).map((view) => view.id)).not.toContain(subscriptionId);
      expect((await model.subscribedTo('order.created')).map((view) => view.id)).not.toContain(
        subscriptionId,
      );
    });

    it('lists subscriptions oldest first and ignores events of other streams', async () => {
      const first = recordedSubscriptionHistory((id) => [registerCommand(id, { registeredAt: at(30) })]);
      const second = recordedSubscriptionHistory((id) => [registerCommand(id, { registeredAt: at(31) })]);
      await model.applyEvents([...second.events, ...first.events]);
      await model.applyEvents([{ ...first.events[0]!, streamId: `order-${randomUUID()}` }]);
      const ids = (await model.list()).map((view) => view.id);
      expect(ids.indexOf(first.subscriptionId)).toBeLessThan(ids.indexOf(second.subscriptionId));
    });
  });
};

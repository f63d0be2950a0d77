import { afterEach, expect, it } from 'vitest';
import { userEvents } from '../../domain/identity/user-events.ts';
import { createUserErasure, userStreamName } from '../../command-api/identity/erase-user.ts';
import { createSqliteRefreshTokenStore } from '../../infrastructure/auth/sqlite-refresh-token-store.ts';
import { createSqliteUserStore } from '../../identity/sqlite-user-store.ts';
import { createEventCodec } from '../../domain/shared/event-codec.ts';
import type { EventStore } from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';

// The erasure's event is an event like any other: it has a zod
// schema per version in domain/, is written through the event codec with its version in the metadata, and
// reads back through the same codec.

const erasedAt = '2026-11-25T10:00:00.000Z';
const userId = '0198a0a0-0000-7000-8000-000000000001';

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const resource of opened.splice(0)) await resource.close();
});

const erasureOn = async (eventStore: EventStore) => {
  const readStore = openDatabase({ path: ':memory:' });
  opened.push(readStore);
  const users = createSqliteUserStore(readStore);
  await users.addUser({
    id: userId,
    email: 'ann@example.com',
    name: 'Ann',
    passwordHash: 'unused',
    roles: ['customer'],
    disabled: false,
    createdAt: erasedAt,
  });
  return createUserErasure({
    users,
    refreshTokens: createSqliteRefreshTokenStore(readStore),
    keyring: { erase: async () => true },
    eventStore,
    clock: { now: () => new Date(erasedAt) },
  });
};

it('records the erasure as PersonalDataErased in the current version of its schema, which the codec reads back', async () => {
  const eventStore = createSqliteEventStore({ path: ':memory:' });
  opened.push(eventStore);
  const erasure = await erasureOn(eventStore);

  const outcome = await erasure.erase(userId, { actor: null, correlationId: 'request-1' });
  expect(outcome).toMatchObject({ keyDeleted: true, recorded: true });

  const codec = createEventCodec(userEvents);
  const [stored, ...more] = await eventStore.readStream(userStreamName(userId));
  expect(more).toEqual([]);
  expect(stored!.metadata.schemaVersion).toBe(codec.currentVersion('PersonalDataErased'));
  expect(codec.decode({ ...stored!, schemaVersion: stored!.metadata.schemaVersion })).toEqual({
    type: 'PersonalDataErased',
    data: { userId, erasedAt },
  });
});

it('records it once: a second erasure of the same user appends nothing', async () => {
  const eventStore = createSqliteEventStore({ path: ':memory:' });
  opened.push(eventStore);
  const erasure = await erasureOn(eventStore);

  await erasure.erase(userId, { actor: null, correlationId: 'request-1' });
  const again = await erasure.erase(userId, { actor: null, correlationId: 'request-2' });
  expect(again).toMatchObject({ recorded: false });
  expect(await eventStore.readStream(userStreamName(userId))).toHaveLength(1);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { eventStoreContract } from '../contracts/event-store.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'event-store-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventStoreContract('node:sqlite file', async () =>
  createSqliteEventStore({ path: join(dir, 'events.sqlite') }),
);

// A separate OS process that uses the embedded event log, for tests that need a real kill -9
// or real concurrent writers on one file. Run with: node event-store-child.ts <mode> <args...>
import { createInterface } from 'node:readline';
import { NO_STREAM, WrongExpectedRevisionError } from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { anEvent } from './events.ts';

const [mode, path, ...args] = process.argv.slice(2);
if (!path) throw new Error('usage: event-store-child.ts <mode> <path> ...');
const store = createSqliteEventStore({ path });

const waitForGo = async () => {
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) if (line === 'go') return;
};

if (mode === 'append-until-killed') {
  // Single appends, each acknowledged on stdout only once appendToStream has returned.
  for (let n = 0; ; n++) {
    const streamId = `crash-${Math.floor(n / 10)}`;
    const revision = n % 10;
    const result = await store.appendToStream(streamId, [anEvent('Appended', { n })], {
      expectedRevision: revision === 0 ? NO_STREAM : revision - 1,
    });
    process.stdout.write(`ack ${streamId} ${revision} ${result.position}\n`);
  }
} else if (mode === 'race') {
  const [streamId, attempts] = args as [string, string];
  await waitForGo();
  let won = 0;
  let lost = 0;
  for (let attempt = 0; attempt < Number(attempts); attempt++) {
    try {
      await store.appendToStream(streamId, [anEvent('Raced', { pid: process.pid, attempt })], {
        expectedRevision: 0,
      });
      won++;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      lost++;
    }
  }
  process.stdout.write(`${JSON.stringify({ won, lost })}\n`);
  await store.close();
} else {
  throw new Error(`unknown mode ${mode}`);
}

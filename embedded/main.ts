// Composition root of the embedded default: `npm start`.
import { setFlagsFromString } from 'node:v8';
import { runProcess } from '../infrastructure/process/run-process.ts';
import { embeddedConfigSchema } from './config.ts';
import { startEmbedded } from './start.ts';

/**
 * How far V8 lets the old generation grow past what survived its last full collection before it collects
 * again: 100 %, where its own choice under a steady load of requests is up to 300 %. Under the orders load
 * this process keeps 30 to 40 MB alive, but what lives past two minor collections (the log's recent events,
 * the relay's order states, requests in flight) is promoted and dies in the old generation; with V8's
 * choice that reached 150 to 250 MB between full collections, most of the high-water mark (issue 31;
 * about 70 MB with this). The full collections it adds are a few per second under load, about 10 ms each,
 * and cost no measurable throughput (BENCHMARKS.md). Set here rather than on the command line so that
 * every way of starting the process (npm start, the image's CMD, the benchmarks, the tests) has it;
 * `node --heap-growing-percent=N embedded/main.ts` overrides it. See docs/operations.md#memory.
 */
export const heapGrowingPercent = 100;
if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent')))
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);

runProcess({
  schema: embeddedConfigSchema,
  start: (deps) => startEmbedded({ ...deps, announce: (text) => process.stderr.write(`${text}\n`) }),
});

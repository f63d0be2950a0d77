// Composition root of the embedded default: `npm start`.
import { setFlagsFromString } from 'node:v8';
import { runProcess } from '../infrastructure/process/run-process.ts';
import { embeddedConfigSchema } from './config.ts';
import { startEmbedded } from './start.ts';

/**
 * How far V8 lets the old generation grow past what survived its last full collection before it collects
 * again: 50 %, where its own choice under a steady load of requests is up to 300 %. This process keeps
 * 30 to 40 MB alive under the orders load, but what a request leaves behind that lives past two minor
 * collections (the log's recent events, the relay's order states, in-flight requests) is promoted and
 * dies there; with V8's choice the old generation reached 150 to 250 MB between full collections, most of
 * the high-water mark (issue 31). The full collections it adds cost about 1 % of the CPU under that load
 * (BENCHMARKS.md). Set here rather than on the command line so that every way of starting the process
 * (npm start, the image's CMD, the benchmarks) has it; `node --heap-growing-percent=N embedded/main.ts`
 * overrides it.
 */
export const heapGrowingPercent = 50;
if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent')))
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);

runProcess({
  schema: embeddedConfigSchema,
  start: (deps) => startEmbedded({ ...deps, announce: (text) => process.stderr.write(`${text}\n`) }),
});

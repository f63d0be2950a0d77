// Composition root of the embedded default: `npm start`.
import { runProcess } from '../infrastructure/process/run-process.ts';
import { embeddedConfigSchema } from './config.ts';
import { startEmbedded } from './start.ts';

runProcess({
  schema: embeddedConfigSchema,
  start: (deps) => startEmbedded({ ...deps, announce: (text) => process.stderr.write(`${text}\n`) }),
});

// Composition root of the command API in the distributed mode: `npm run start:command-api`.
import { runProcess } from '../infrastructure/process/run-process.ts';
import { commandApiConfigSchema } from './config.ts';
import { startCommandApi } from './start-command-api.ts';

runProcess({
  schema: commandApiConfigSchema,
  start: (deps) => startCommandApi({ ...deps, announce: (text) => process.stderr.write(`${text}\n`) }),
});

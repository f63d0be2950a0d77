// Composition root of the webhook dispatcher in the distributed mode: `npm run start:webhook-dispatcher`.
import { runProcess } from '../infrastructure/process/run-process.ts';
import { dispatcherConfigSchema } from './config.ts';
import { startDispatcherProcess } from './start-dispatcher-process.ts';

runProcess({ schema: dispatcherConfigSchema, start: startDispatcherProcess });

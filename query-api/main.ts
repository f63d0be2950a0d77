// Composition root of the query API in the distributed mode: `npm run start:query-api`.
import { runProcess } from '../infrastructure/process/run-process.ts';
import { queryApiConfigSchema } from './config.ts';
import { startQueryApi } from './start-query-api.ts';

runProcess({ schema: queryApiConfigSchema, start: startQueryApi });

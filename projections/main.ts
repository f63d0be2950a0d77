// Composition root of the projections process in the distributed mode: `npm run start:projections`.
import { runProcess } from '../infrastructure/process/run-process.ts';
import { projectionsConfigSchema } from './config.ts';
import { startProjections } from './start-projections.ts';

runProcess({ schema: projectionsConfigSchema, start: startProjections });

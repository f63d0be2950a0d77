import type { Router } from 'express';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { createHttpApp } from '../../infrastructure/http/create-app.ts';
import { listen, type Listening } from '../../infrastructure/http/listen.ts';
import { createReadiness, type Readiness } from '../../infrastructure/operations/readiness.ts';

/** The shared HTTP stack around routers a test defines, on an ephemeral port: for testing that stack itself. */
export const startTestApp = (
  routers: Router[],
  { readiness = createReadiness({ checks: {}, timeoutMs: 1000 }) }: { readiness?: Readiness } = {},
): Promise<Listening> =>
  listen(
    createHttpApp({
      problems: { errorTypeBase: 'https://orders.example/problems', realm: 'order-service' },
      logger: pino({ level: 'silent' }),
      routers,
      metrics: new Registry(),
      readiness,
    }),
    0,
    '127.0.0.1',
  );

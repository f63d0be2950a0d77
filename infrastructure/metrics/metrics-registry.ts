import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A process's own metrics registry (never prom-client's global one), with the Node.js process metrics
 * (CPU, memory, event loop lag, GC, handles). The composition root makes one and hands it to what records.
 */
export const createMetricsRegistry = (): Registry => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
};

import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The lint rules that keep the card's folders apart (ARCHITECTURE.md), each shown refusing what it must and
// accepting what it must not refuse, on a file placed where the rule applies.
const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
const restrictedImports = async (importLine: string, filePath: string) => {
  const [result] = await eslint.lintText(`${importLine}\nexport const used = x;\n`, { filePath });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports');
};

const cases: { file: string; refuses: string[]; accepts: string[] }[] = [
  {
    file: 'projections/orders/example.ts',
    refuses: [
      "import { x } from '../../infrastructure/http/representation.ts';",
      "import { x } from '../../command-api/orders/place-order.ts';",
      "import { x } from '../../query-api/orders/order-query-routes.ts';",
      "import { x } from '../../webhook-dispatcher/delivery-worker.ts';",
      "import { x } from '../../query-api/catalog/catalog-routes.ts';",
    ],
    accepts: [
      "import { x } from '../../domain/orders/order-events.ts';",
      "import { x } from '../../domain/orders/order-details.ts';",
      "import { x } from '../../infrastructure/event-sourcing/revision-guard.ts';",
      "import { x } from './order-read-model.ts';",
      "import { x } from '../../catalog/catalog.ts';",
      "import { x } from '../../webhooks/subscription-view.ts';",
    ],
  },
  {
    // A feature's port and adapters (the catalogue, users, webhook deliveries): below every service.
    file: 'catalog/example.ts',
    refuses: [
      "import { x } from '../infrastructure/http/validation.ts';",
      "import { x } from '../query-api/catalog/catalog-representations.ts';",
      "import { x } from '../command-api/orders/place-order.ts';",
      "import { x } from '../projections/orders/order-read-model.ts';",
    ],
    accepts: [
      "import { x } from './catalog.ts';",
      "import { x } from '../domain/shared/money.ts';",
      "import { x } from '../infrastructure/validation/field-errors.ts';",
      "import { x } from '../infrastructure/sqlite/open-database.ts';",
    ],
  },
  {
    file: 'identity/example.ts',
    refuses: [
      "import { x } from '../projections/orders/order-read-model.ts';",
      "import { x } from '../command-api/identity/address-routes.ts';",
    ],
    accepts: ["import { x } from '../domain/identity/roles.ts';"],
  },
  {
    file: 'webhooks/deliveries/example.ts',
    refuses: [
      "import { x } from '../../webhook-dispatcher/delivery-worker.ts';",
      "import { x } from '../../projections/relay/public-events.ts';",
    ],
    accepts: ["import { x } from '../../domain/webhook-subscriptions/subscription-events.ts';"],
  },
  {
    // The write side decides from the log: it never reads the read side.
    file: 'command-api/orders/example.ts',
    refuses: [
      "import { x } from '../../projections/orders/order-read-model.ts';",
      "import { x } from '../../projections/relay/public-events.ts';",
      "import { x } from '../../query-api/orders/order-query-routes.ts';",
      "import { x } from '../../webhook-dispatcher/retry-policy.ts';",
      "import { x } from '../../embedded/start.ts';",
      "import { x } from '../../query-api/catalog/catalog-module.ts';",
      "import { x } from '../../assembly/mongo-stores.ts';",
    ],
    accepts: [
      "import { x } from '../../domain/orders/order-details.ts';",
      "import { x } from '../../domain/orders/order-decider.ts';",
      "import { x } from '../../infrastructure/http/representation.ts';",
      "import { x } from '../../catalog/catalog-snapshot.ts';",
      "import { x } from '../../identity/users.ts';",
      "import { x } from '../../webhooks/deliveries/delivery-queue.ts';",
    ],
  },
  {
    // A composition root takes its stores from the record of its adapter family, and still not the read side.
    file: 'command-api/start-command-api.ts',
    refuses: ["import { x } from '../projections/orders/order-read-model.ts';"],
    accepts: ["import { x } from '../assembly/mongo-stores.ts';"],
  },
  {
    file: 'query-api/orders/example.ts',
    refuses: [
      "import { x } from '../../command-api/orders/order-errors.ts';",
      "import { x } from '../../webhook-dispatcher/delivery-worker.ts';",
    ],
    accepts: [
      "import { x } from '../../domain/orders/order-resource.ts';",
      "import { x } from '../../projections/orders/order-read-model.ts';",
      "import { x } from '../../catalog/catalog.ts';",
    ],
  },
  {
    file: 'webhook-dispatcher/example.ts',
    refuses: [
      "import { x } from '../command-api/event-metadata.ts';",
      "import { x } from '../query-api/read-your-writes.ts';",
    ],
    accepts: [
      "import { x } from '../projections/relay/public-events.ts';",
      "import { x } from '../webhooks/deliveries/delivery-queue.ts';",
    ],
  },
  {
    file: 'infrastructure/http/example.ts',
    refuses: [
      "import { x } from '../../domain/orders/order.ts';",
      "import { x } from '../../domain/orders/order-details.ts';",
      "import { x } from '../../catalog/catalog.ts';",
      "import { x } from '../../projections/orders/order-read-model.ts';",
      "import { x } from '../../query-api/catalog/catalog-routes.ts';",
      "import { x } from '../../domain/identity/permissions.ts';",
      "import { x } from '../../identity/users.ts';",
      "import { x } from '../../command-api/authorize.ts';",
      "import { x } from '../../webhook-dispatcher/retry-policy.ts';",
    ],
    accepts: [
      "import { x } from '../../domain/shared/errors.ts';",
      "import { x } from '../event-store/event-store.ts';",
    ],
  },
  {
    file: 'domain/orders/example.ts',
    refuses: [
      "import { x } from '../../projections/orders/order-read-model.ts';",
      "import { x } from '../../catalog/catalog.ts';",
      "import { x } from '../../identity/users.ts';",
      "import { x } from '../../infrastructure/auth/accounts.ts';",
    ],
    accepts: [
      "import { x } from '../shared/money.ts';",
      "import { x } from './order-details.ts';",
      // domain/identity/, not the top-level identity/ of the same name.
      "import { x } from '../identity/permissions.ts';",
    ],
  },
];

describe('the folders keep to their boundaries (lint)', () => {
  for (const { file, refuses, accepts } of cases) {
    describe(file, () => {
      it.each(refuses)('refuses %s', async (importLine) => {
        expect((await restrictedImports(importLine, file)).length).toBeGreaterThan(0);
      });
      it.each(accepts)('accepts %s', async (importLine) => {
        expect(await restrictedImports(importLine, file)).toEqual([]);
      });
    });
  }

  it("lets the projections process's composition root serve its health endpoint", async () => {
    expect(
      await restrictedImports(
        "import { x } from '../infrastructure/http/operations-server.ts';",
        'projections/start-projections.ts',
      ),
    ).toEqual([]);
  });
});

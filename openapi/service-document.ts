import type { RequestHandler } from 'express';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { registerOperation } from '../infrastructure/http/openapi/api-operation.ts';
import { allowedMethods } from '../infrastructure/http/openapi/allowed-methods.ts';
import { inSequence } from '../infrastructure/http/in-sequence.ts';
import { dispatchToModules } from '../infrastructure/http/module-dispatch.ts';
import { apiDocsAssetPaths, apiDocsRoutes } from '../infrastructure/http/openapi/docs-routes.ts';
import { authOperations } from './auth-operations.ts';
import { problemBodies } from './common-schemas.ts';
import { consoleAssetPaths, operationsEndpoints } from './operations-endpoints.ts';
import { orderOperations } from './order-operations.ts';
import { productOperations } from './product-operations.ts';
import { serviceIndexRoutes } from './service-index.ts';
import { registerWebhookEvents } from './webhook-events.ts';
import { webhookOperations } from './webhook-operations.ts';

export type DocumentSettings = {
  /** `{base_url}`: the service's public address. */
  baseUrl: string;
  /** `{docs_url}`: where the orders and products tags link for their documentation. */
  docsUrl: string;
  /** `{error_type_base}`: the prefix of problem type URIs. */
  errorTypeBase: string;
  /** What the token endpoints' WWW-Authenticate names. */
  realm: string;
};

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** Every operation of every service of the project, in one document: what clients integrate from. */
export const allOperations = (errorTypeBase: string) => [
  ...orderOperations,
  ...productOperations,
  ...authOperations,
  ...webhookOperations,
  ...operationsEndpoints(new URL(errorTypeBase).pathname.replace(/\/$/, '')),
];

/** The OpenAPI 3.1 document of the service, generated from the zod schemas that validate requests. */
export const createServiceDocument = ({
  baseUrl,
  docsUrl,
  errorTypeBase,
  realm,
}: DocumentSettings): OpenApiDocument => {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: `An access token from POST /auth/token, valid 1 hour; realm "${realm}". Public keys: GET /.well-known/jwks.json.`,
  });
  for (const operation of allOperations(errorTypeBase)) {
    registerOperation(registry, operation, { problems: problemBodies, errorTypeBase });
  }
  registerWebhookEvents(registry);

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Order and Product Service',
      version: '1.0.0',
      license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' },
      description: [
        'Orders, a read-only product catalogue, token authentication and webhook notifications.',
        `Errors are RFC 9457 problem details (application/problem+json) whose type is \`${errorTypeBase}/<kind>\`; following a type URI explains the kind.`,
        'Every command response carries a Consistency-Token, bound to its caller: send it back unchanged on a query, as the same user, to read your own write.',
        'Roles: customer, staff, auditor, admin. Each operation says **Who** may call it; "(own only)" means ' +
          'only on the caller’s own orders or account. A user holding several roles may do what any one of ' +
          'them may, each with its own reach: a customer who is also an auditor reads every order but cancels ' +
          'only its own. Another customer’s order answers 404, never 403. A role removed from a user, or a ' +
          'user disabled, stops working within 5 seconds, access tokens already issued included.',
      ].join('\n\n'),
    },
    servers: [{ url: baseUrl }],
    tags: [
      {
        name: 'orders',
        description: 'Create, query and manage orders.',
        externalDocs: { url: `${docsUrl}#/orders`, description: 'Orders' },
      },
      {
        name: 'products',
        description:
          'Read the product catalogue and query stock. Product data is read-only through this interface; changes are made in a separate admin backend that is outside this interface.',
        externalDocs: { url: `${docsUrl}#/products`, description: 'Products' },
      },
      { name: 'auth', description: 'Authenticate and manage tokens.' },
      { name: 'webhooks', description: 'Configure webhooks for asynchronous event notifications.' },
      {
        name: 'operations',
        description:
          'For operators and tools rather than shops: the index of links, health, readiness, metrics, this document and the problem type pages.',
      },
    ],
  });
};

/**
 * The answers the service gives for a path asked with a method it does not have (405 with Allow) and for
 * OPTIONS (204 with Allow), then GET / (an index of links), GET /openapi.json and GET /docs: mounted
 * first, before the routers.
 */
/** The document's settings from a process's configuration: every HTTP process serves the same document. */
export const documentSettingsOf = (config: {
  publicBaseUrl: string;
  docsUrl: string;
  errorTypeBase: string;
  auth: { realm: string };
}): DocumentSettings => ({
  baseUrl: config.publicBaseUrl,
  docsUrl: config.docsUrl,
  errorTypeBase: config.errorTypeBase,
  realm: config.auth.realm,
});

/**
 * What every HTTP process puts before its features: the document's OPTIONS and 405 answers for every path,
 * then the document, its viewer and the index, entered only by requests to their own paths.
 */
export const serviceDocsRoutes = (settings: DocumentSettings): RequestHandler => {
  const document = createServiceDocument(settings);
  return inSequence([
    allowedMethods({ paths: document.paths ?? {} }, [...apiDocsAssetPaths, ...consoleAssetPaths]),
    dispatchToModules([
      { routers: [apiDocsRoutes(document), serviceIndexRoutes()], paths: ['/', '/openapi.json', '/docs'] },
    ]),
  ]);
};

import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { registerOperation } from '../infrastructure/http/openapi/api-operation.ts';
import { allowedMethods } from '../infrastructure/http/openapi/allowed-methods.ts';
import { apiDocsRoutes } from '../infrastructure/http/openapi/docs-routes.ts';
import { authOperations } from './auth-operations.ts';
import { problemBodies } from './common-schemas.ts';
import { operationsEndpoints } from './operations-endpoints.ts';
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
      description: [
        'Orders, a read-only product catalogue, token authentication and webhook notifications.',
        `Errors are RFC 9457 problem details (application/problem+json) whose type is \`${errorTypeBase}/<kind>\`; following a type URI explains the kind.`,
        'Every command response carries a Consistency-Token: send it back on a query to read your own write.',
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
 * GET / (an index of links), GET /openapi.json and GET /docs for the service's document, and the answers it gives for a documented
 * path asked with a method it does not have (405 with Allow; OPTIONS).
 */
export const serviceDocsRoutes = (settings: DocumentSettings) => {
  const document = createServiceDocument(settings);
  return apiDocsRoutes(document)
    .use(serviceIndexRoutes())
    .use(allowedMethods({ paths: document.paths ?? {} }));
};

/**
 * Prints the API document as the service serves it at /openapi.json, made by the service's own generator
 * (openapi/service-document.ts) with the embedded default's settings (PUBLIC_BASE_URL and the rest from
 * the environment, as `npm start` reads them): for linters, without starting a service.
 *
 *   node scripts/integrators/dump-openapi.ts > openapi.json
 */
import { embeddedConfigSchema } from '../../embedded/config.ts';
import { parseConfig } from '../../infrastructure/config/parse-config.ts';
import { createServiceDocument, documentSettingsOf } from '../../openapi/service-document.ts';

const config = parseConfig(embeddedConfigSchema, process.env);
process.stdout.write(`${JSON.stringify(createServiceDocument(documentSettingsOf(config)), null, 2)}\n`);

// The ceiling of GET /products/{id} (issue 31): the least that route must do. On top of ceiling-app.ts
// (Express 5, security headers, X-Request-Id, the log line with --log; no token: the catalogue is public):
// each product of the demo catalogue rendered once at start, as the service renders it
// (query-api/catalog/catalog-representations.ts: its bytes, strong ETag, Last-Modified and Cache-Control), kept in
// memory by id; Surrogate-Key; 304 when If-None-Match (or If-Modified-Since) says the client's copy is
// current (infrastructure/http/representation.ts).
// Run: node bench/support/ceilings/get-product.ts CONFIG.json [--log]; prints its URL on stdout.
import { readFileSync } from 'node:fs';
import { readCatalogFile } from '../../../catalog/catalog-file.ts';
import { productDetailCacheControl } from '../../../query-api/catalog/catalog-representations.ts';
import { surrogateKeys } from '../../../catalog/surrogate-keys.ts';
import { moneyToDecimal } from '../../../domain/shared/money.ts';
import {
  jsonRepresentation,
  notModified,
  type Representation,
} from '../../../infrastructure/http/representation.ts';
import { bareErrors, ceilingApp, ceilingConfig, listen } from './ceiling-app.ts';

const config = ceilingConfig<{ currency: string }>();
const representations = new Map<string, Representation & { surrogateKey: string }>(
  readCatalogFile(
    JSON.parse(readFileSync(new URL('../../../catalog/demo-catalog.json', import.meta.url), 'utf8')),
    config.currency,
  ).products.map((product) => [
    String(product.id),
    {
      ...jsonRepresentation(
        {
          id: product.id,
          name: product.name,
          price: moneyToDecimal({ amountMinor: product.priceMinor, currency: config.currency }),
          updatedAt: product.updatedAt,
        },
        { lastModified: product.updatedAt, cacheControl: productDetailCacheControl },
      ),
      surrogateKey: surrogateKeys.product(product.id),
    },
  ]),
);

const app = ceilingApp();
app.get('/products/:productId', (request, response) => {
  const representation = representations.get(request.params.productId);
  if (!representation) {
    response.setHeader('Cache-Control', 'public, s-maxage=300');
    response.status(404).end();
    return;
  }
  response.setHeader('Surrogate-Key', representation.surrogateKey);
  response.setHeader('ETag', representation.etag);
  response.setHeader('Last-Modified', representation.lastModified!);
  response.setHeader('Cache-Control', representation.cacheControl!);
  if (notModified(request, representation)) {
    response.status(304).end();
    return;
  }
  response.setHeader('Content-Type', representation.contentType);
  response.setHeader('Content-Length', representation.body.length);
  response.status(200).end(representation.body);
});
app.use(bareErrors);
listen(app);

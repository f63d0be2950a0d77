import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { templateRegex } from '../../infrastructure/http/openapi/allowed-methods.ts';
import { apiDocsAssetPaths } from '../../infrastructure/http/openapi/docs-routes.ts';
import { consoleAssetPaths } from '../../openapi/operations-endpoints.ts';

type Document = { paths: Record<string, Record<string, OperationObject>> };
type OperationObject = { responses: Record<string, ResponseObject> };
type ResponseObject = {
  headers?: Record<string, { required?: boolean; schema: object }>;
  content?: Record<string, { schema: object }>;
};

export type ObservedResponse = {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  body: string;
};

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const pointer = (...segments: string[]) =>
  segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/**
 * Checks real responses against the OpenAPI document the service serves: the status must be documented for
 * the operation, and the media type, the required headers and the body must match what it says. Returns what
 * does not match (empty when the response conforms).
 */
export const createContractChecker = (document: Document) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document as object, 'openapi.json');
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (...segments: string[]) => {
    const ref = `openapi.json#/${pointer(...segments)}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  };

  // Templates with fewer parameters first: /webhooks/{id}/test before a template that would also match.
  const templates = Object.keys(document.paths)
    .map((template) => ({ template, regex: templateRegex(template), params: template.split('{').length }))
    .sort((a, b) => a.params - b.params);

  const errorsOf = (validate: ValidateFunction, value: unknown) =>
    validate(value)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? ''}`);

  // Files served with GET that the document leaves out on purpose (the reference page's, the console's).
  const servedOutside = [...apiDocsAssetPaths, ...consoleAssetPaths].map(templateRegex);

  return (observed: ObservedResponse): string[] => {
    const path = new URL(observed.url).pathname;
    if (observed.method !== 'OPTIONS' && servedOutside.some((regex) => regex.test(path))) return [];
    const method = observed.method === 'HEAD' ? 'get' : observed.method.toLowerCase();
    const contentType = (observed.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (observed.method === 'OPTIONS') {
      const documented = templates.some(({ regex }) => regex.test(path));
      if (!documented && observed.status === 404 && contentType === 'application/problem+json') return [];
      return observed.status === 204 && observed.headers.has('allow')
        ? []
        : [`OPTIONS ${path} answered ${observed.status} without Allow`];
    }
    const match = templates.find(
      ({ template, regex }) => regex.test(path) && document.paths[template]![method],
    );
    if (!match) {
      // Nothing documented here: only "nothing here", "not this method", "no such method" (501), or a
      // refusal before routing (a malformed request, too many requests) is a conforming answer.
      const refusal =
        [400, 404, 408, 429, 501, 503].includes(observed.status) ||
        (observed.status === 405 && observed.headers.has('allow'));
      if (refusal && contentType === 'application/problem+json') return [];
      return [`${observed.method} ${path} is not in the document, yet answered ${observed.status}`];
    }
    const operation = document.paths[match.template]![method]!;
    const status = String(observed.status);
    const response = operation.responses[status];
    if (!response) {
      return [
        `${observed.status} is not a documented answer of ${method.toUpperCase()} ${match.template} (documented: ${Object.keys(operation.responses).join(', ')})`,
      ];
    }
    const problems: string[] = [];
    const base = ['paths', match.template, method, 'responses', status] as const;
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = observed.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is required`);
        continue;
      }
      problems.push(
        ...errorsOf(validatorAt(...base, 'headers', name, 'schema'), value).map(
          (e) => `header ${name}: ${e}`,
        ),
      );
    }
    const declared = Object.keys(response.content ?? {});
    const hasBody = observed.body.length > 0 && observed.method !== 'HEAD';
    if (declared.length === 0) {
      if (hasBody) problems.push(`no body is documented, yet one came (${contentType})`);
      return problems;
    }
    if (!declared.includes(contentType)) {
      problems.push(`media type ${contentType || '(none)'} is not one of ${declared.join(', ')}`);
      return problems;
    }
    if (!hasBody) return problems;
    const value = contentType.endsWith('json') ? (JSON.parse(observed.body) as unknown) : observed.body;
    problems.push(
      ...errorsOf(validatorAt(...base, 'content', contentType, 'schema'), value).map((e) => `body ${e}`),
    );
    return problems;
  };
};

export type ContractChecker = ReturnType<typeof createContractChecker>;

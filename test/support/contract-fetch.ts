import { createContractChecker, type ContractChecker, type ObservedResponse } from './openapi-contract.ts';

const checkers = new Map<string, ContractChecker>();
const plainFetch = globalThis.fetch;

const urlOf = (input: Parameters<typeof fetch>[0]) =>
  typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;

/**
 * From now on, every response from this service's origin is checked against the OpenAPI document it serves
 * (GET /openapi.json): a response the document does not describe fails the request, and so the test.
 */
export const checkResponsesAgainstDocument = async (serviceUrl: string): Promise<void> => {
  const response = await plainFetch(`${serviceUrl}/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  checkers.set(
    new URL(serviceUrl).origin,
    createContractChecker((await response.json()) as Parameters<typeof createContractChecker>[0]),
  );
};

/**
 * Fails (throws) when a response from a service whose document was read does not match it; responses from
 * any other origin pass unchecked. What the checking fetch does, for responses that come another way.
 */
export const checkAgainstDocument = (response: ObservedResponse): void => {
  const check = checkers.get(new URL(response.url).origin);
  if (!check) return;
  const problems = check(response);
  if (problems.length > 0) {
    throw new Error(
      `The response does not match the OpenAPI document: ${response.method} ${new URL(response.url).pathname} answered ${response.status}\n  ${problems.join('\n  ')}`,
    );
  }
};

/** Puts the checking fetch in place of the global one (a vitest setup file calls it). */
export const installContractCheckingFetch = (): void => {
  globalThis.fetch = async (input, init) => {
    const response = await plainFetch(input, init);
    const url = urlOf(input);
    if (!checkers.has(new URL(url).origin)) return response;
    checkAgainstDocument({
      method: (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(),
      url,
      status: response.status,
      headers: response.headers,
      body: await response.clone().text(),
    });
    return response;
  };
};

import { postJson } from './http.ts';
import type { TestService } from './test-service.ts';

export type SubscriptionBody = {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
};

export type AttemptBody = {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  outcome: string;
  error: string | null;
  deadLettered: boolean;
  nextAttemptAt: string | null;
  responseBody: string | null;
};

/** An admin managing webhooks over HTTP, as a client would. */
export const webhookAdmin = async (service: TestService) => {
  const admin = await service.signIn(['admin']);
  const url = (path: string) => `${service.url}${path}`;
  const send = (method: string, path: string, body?: unknown) =>
    fetch(url(path), {
      method,
      headers: { ...admin.auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    ...admin,
    send,
    post: (path: string, body?: unknown) => send('POST', path, body),
    get: (path: string, headers: Record<string, string> = {}) =>
      fetch(url(path), { headers: { ...admin.auth, ...headers } }),
    /** Registers a subscription; fails the test unless it is created. */
    async register(
      target: string,
      events: string[] = ['order.created', 'order.status_changed', 'payment.received'],
    ) {
      const response = await postJson(url('/webhooks'), { url: target, events }, admin.auth);
      if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
      const created = (await response.json()) as SubscriptionBody & { secret: string };
      const consistencyToken = response.headers.get('consistency-token')!;
      // Read once with its token: the query side (another process in the distributed mode) then knows it.
      const known = await fetch(url(`/webhooks/${created.id}`), {
        headers: { ...admin.auth, 'Consistency-Token': consistencyToken },
      });
      if (known.status !== 200) throw new Error(`registered, not readable: ${known.status}`);
      return { ...created, consistencyToken };
    },
    async attempts(subscriptionId: string): Promise<AttemptBody[]> {
      const response = await fetch(url(`/webhooks/${subscriptionId}/deliveries?perPage=100`), {
        headers: admin.auth,
      });
      if (response.status !== 200) throw new Error(`deliveries: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { data: AttemptBody[] }).data;
    },
  };
};

import type { Role } from '../../domain/identity/roles.ts';
import type { EventStore, EventToAppend, StreamEvent } from '../../infrastructure/event-store/event-store.ts';
import { openEventLog } from '../../infrastructure/event-store/open-event-log.ts';
import { apiDriverFor, type ApiRequest, type ApiResponse } from './api-driver.ts';
import { consistencyTokenFor, positionOfToken } from './consistency-tokens.ts';
import type { TestService, TestUser } from './test-service.ts';

/** Events of one stream, appended behind the service's back before the request: what `given` takes. */
export type GivenStream = { streamId: string; events: EventToAppend[] };

/** A request of a signed-in user (`from`), ready to be sent now or to be the `when` of a specification. */
export type UserRequest = ApiRequest & { from: { id: string }; send(): Promise<ApiResponse> };

/** What a `then` looks at: the answer, and what the request appended to each given stream. */
export type Outcome = {
  response: ApiResponse;
  given: GivenStream[];
  /** Where the log stood for this scenario before the request: its given events, the answers of its commands. */
  positionBefore: bigint | null;
  newEventsOf(stream: GivenStream): StreamEvent[];
};
export type Check = (outcome: Outcome) => void;

/** A signed-in user of the service, whose requests carry its bearer token. */
export type ApiUser = TestUser & {
  auth: { Authorization: string };
  get(path: string, headers?: Record<string, string>): UserRequest;
  post(path: string, body?: unknown, headers?: Record<string, string>): UserRequest;
};

type Tokens = { access_token: string };

/**
 * given(...streams).when(request).then(...checks), after Emmett's ApiSpecification, over the API driver
 * (in-process, or the URL for the distributed mode and API_DRIVER=url). The given events are appended to the
 * service's event log directly, once, before the first request. A given is a scenario: each `when` on it
 * sees what the ones before did, and its `then` sees what that request appended. A read (GET, HEAD) that
 * names no Consistency-Token carries one of where the scenario stands (its given events, the Consistency-Token
 * of its last command's answer), so that it is answered once the read models have all of it. `then` runs it
 * and returns the outcome, for what the checks do not say.
 */
export const apiSpecification = (service: TestService) => {
  const driver = apiDriverFor(service);
  let log: Promise<EventStore> | undefined;
  const eventLog = () => (log ??= openEventLog(service.eventLog, 'api-specification'));

  const userOf = (user: TestUser, tokens: Tokens): ApiUser => {
    const auth = { Authorization: `Bearer ${tokens.access_token}` };
    const prepared = (request: ApiRequest): UserRequest => {
      const signed = { ...request, headers: { ...auth, ...request.headers } };
      return { ...signed, from: user, send: () => driver.request(signed) };
    };
    return {
      ...user,
      auth,
      get: (path, headers = {}) => prepared({ method: 'GET', path, headers }),
      post: (path, body, headers = {}) => prepared({ method: 'POST', path, body, headers }),
    };
  };

  const withConsistencyToken = (request: UserRequest, position: bigint | null): ApiRequest => {
    const read = ['GET', 'HEAD'].includes(request.method ?? 'GET');
    const named = Object.keys(request.headers ?? {}).some(
      (name) => name.toLowerCase() === 'consistency-token',
    );
    if (!read || named || position === null) return request;
    const token = consistencyTokenFor(service, position, request.from.id);
    return { ...request, headers: { ...request.headers, 'Consistency-Token': token } };
  };

  const scenario = (streams: GivenStream[]) => {
    let appended: Promise<bigint | null> | undefined;
    let position: bigint | null = null;
    const lengths = async () =>
      Promise.all(
        streams.map(async ({ streamId }) => (await (await eventLog()).readStream(streamId)).length),
      );
    const run = async (request: UserRequest): Promise<Outcome> => {
      position = latest(position, await (appended ??= append(await eventLog(), streams)));
      const positionBefore = position;
      const before = await lengths();
      const response = await driver.request(withConsistencyToken(request, position));
      position = latest(position, answeredPosition(response));
      const log = await eventLog();
      const added = await Promise.all(
        streams.map(({ streamId }, index) => log.readStream(streamId, { fromRevision: before[index]! })),
      );
      return {
        response,
        given: streams,
        positionBefore,
        newEventsOf: ({ streamId }) => {
          const index = streams.findIndex((stream) => stream.streamId === streamId);
          if (index < 0) throw new Error(`${streamId} is not a stream of this specification's given`);
          return added[index]!;
        },
      };
    };
    return {
      when: (request: UserRequest) => ({
        async then(...checks: [Check, ...Check[]]): Promise<Outcome> {
          const outcome = await run(request);
          for (const check of checks) check(outcome);
          return outcome;
        },
      }),
    };
  };

  return {
    driver,
    /** A new user of these roles, signed in through the driver (POST /auth/token). */
    async signIn(roles: Role[]): Promise<ApiUser> {
      const user = await service.addUser(roles);
      const answer = await driver.request({
        method: 'POST',
        path: '/auth/token',
        body: { grant_type: 'password', username: user.email, password: user.password },
      });
      if (answer.status !== 200) throw new Error(`sign-in: ${answer.status} ${answer.text}`);
      return userOf(user, answer.json<Tokens>());
    },
    given: (...streams: GivenStream[]) => scenario(streams),
    /** The service's event log, as the given events are appended to it: for what a test reads there itself. */
    eventLog,
    /** A stream's events as the log holds them: for one the requests made, which no given names. */
    async eventsOf(streamId: string): Promise<StreamEvent[]> {
      return (await eventLog()).readStream(streamId);
    },
    async close() {
      if (log) await (await log).close();
    },
  };
};

export type ApiSpecification = ReturnType<typeof apiSpecification>;

const latest = (a: bigint | null, b: bigint | null) => (a === null || (b !== null && b > a) ? b : a);

/** The position a command's answer names in its Consistency-Token: where the log stood after it. */
const answeredPosition = (response: ApiResponse): bigint | null => {
  const token = response.headers.get('consistency-token');
  return token === null ? null : positionOfToken(token);
};

const append = async (log: EventStore, streams: GivenStream[]): Promise<bigint | null> => {
  let position: bigint | null = null;
  for (const { streamId, events } of streams) {
    ({ position } = await log.appendToStream(streamId, events, { expectedRevision: 'no-stream' }));
  }
  return position;
};

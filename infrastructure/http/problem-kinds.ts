/** Every kind of problem the API answers with: its status, title, and the page at {error_type_base}/{kind}. */
export const problemKinds = {
  'validation-failed': {
    status: 400,
    title: 'Bad Request',
    description: 'The request data is invalid. The errors member lists every field that failed and why.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description:
      'Authentication is missing, or the token is invalid or expired. Obtain a token with POST /auth/token.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: 'You are authenticated, but your role does not allow this operation.',
  },
  'not-found': {
    status: 404,
    title: 'Not Found',
    description: 'There is no such resource, or it is not yours.',
  },
  'invalid-state-transition': {
    status: 409,
    title: 'Conflict',
    description:
      "The resource's lifecycle forbids this move from its current status; currentStatus and attemptedAction say which.",
  },
  conflict: { status: 409, title: 'Conflict', description: 'The request conflicts with the current state.' },
  'precondition-failed': {
    status: 412,
    title: 'Precondition Failed',
    description:
      'A precondition of the request does not hold: If-Match names a version the resource no longer has, ' +
      'it changed after If-Unmodified-Since, or If-None-Match asked that it should not exist (or not in ' +
      'this version). Nothing was done. Read it again, then retry.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method Not Allowed',
    description: 'This resource does not support this method; the Allow header lists those it does.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request Timeout',
    description:
      'The request did not arrive in time: its body must be sent whole within HTTP_BODY_TIMEOUT_MS (10 s by ' +
      'default). Nothing of it was done; the connection is closed.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Content Too Large',
    description: 'The request body exceeds the limit of 100 kB.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported Media Type',
    description: 'Send the body as application/json (or form-encoded where the operation says so).',
  },
  'expectation-failed': {
    status: 417,
    title: 'Expectation Failed',
    description: 'The request carried an Expect header the service does not understand (only 100-continue).',
  },
  'header-fields-too-large': {
    status: 431,
    title: 'Request Header Fields Too Large',
    description: 'The request line and headers exceed what the server reads (16 kB). Nothing of it was done.',
  },
  'idempotency-key-mismatch': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'This Idempotency-Key was already used with a different request body.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too Many Requests',
    description: 'Too many requests; retry after the number of seconds in Retry-After.',
  },
  internal: {
    status: 500,
    title: 'Internal Server Error',
    description: 'The server failed to complete the request. Nothing about the failure is disclosed.',
  },
  'not-implemented': {
    status: 501,
    title: 'Not Implemented',
    description:
      'The request method is not one the service knows (RFC 9110, section 9.1): it knows GET, HEAD, POST, ' +
      'PATCH, DELETE and OPTIONS. A method it knows but a path does not take answers 405 with Allow instead.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service Unavailable',
    description: 'The service cannot answer now; retry after the number of seconds in Retry-After.',
  },
  'storage-unavailable': {
    status: 503,
    title: 'Service Unavailable',
    description:
      'The service cannot use its storage now: its disk is full, read-only or failing. The request is not ' +
      'acknowledged: almost always nothing of it was stored (a write that failed only at its very end may ' +
      'appear, whole, once the disk is repaired, as after a lost answer). Retry after the number of seconds ' +
      'in Retry-After (an operator has to free or repair the disk).',
  },
  'not-ready': {
    status: 503,
    title: 'Service Unavailable',
    description:
      'The process is alive but not ready to serve: a store it uses does not answer, or its read models trail ' +
      'the event log by more than the configured bound. The checks member reports each dependency; retry ' +
      'after the number of seconds in Retry-After.',
  },
  overloaded: {
    status: 503,
    title: 'Service Unavailable',
    description:
      'The service is shedding load: too many requests are under way, or it is running behind on them. The ' +
      'request was refused before any of it was read or done; retry after the number of seconds in Retry-After.',
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ProblemKind = keyof typeof problemKinds;

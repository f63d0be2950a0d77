import type { Router } from 'express';
import { notFound } from '../http/api-error.ts';
import { sendJson } from '../http/representation.ts';
import { createRouter } from '../http/router.ts';
import type { RequestHandler } from 'express';
import { authenticate, principalOf } from './authenticate.ts';
import type { Authenticator } from './authenticator.ts';
import type { Sessions } from './sessions.ts';

/** The permission table's check for the operations on one's own sessions. */
export type AuthorizeSessions = (
  operation: 'listSessions' | 'endSession' | 'endAllSessions',
) => RequestHandler;

const noSuchSession = 'You have no active session with this id.';

/**
 * GET /users/me/sessions, DELETE /users/me/sessions/{id}, DELETE /users/me/sessions: the caller's sessions
 * (where it signed in, and when last), and ending them, access tokens included.
 */
export const sessionRoutes = ({
  sessions,
  authenticator,
  authorize,
}: {
  sessions: Sessions;
  authenticator: Authenticator;
  authorize: AuthorizeSessions;
}): Router => {
  const router = createRouter();
  const auth = authenticate(authenticator);

  router.get('/users/me/sessions', auth, authorize('listSessions'), async (request, response) => {
    const { userId, sessionId } = principalOf(response);
    const list = await sessions.list(userId);
    sendJson(
      request,
      response,
      list.map((session) => ({ ...session, current: session.id === sessionId })),
    );
  });

  router.delete('/users/me/sessions/:sessionId', auth, authorize('endSession'), async (request, response) => {
    const { userId } = principalOf(response);
    const sessionId = request.params['sessionId'] as string;
    if (!(await sessions.list(userId)).some((session) => session.id === sessionId)) {
      throw notFound(noSuchSession);
    }
    await sessions.end(userId, sessionId);
    response.status(204).end();
  });

  router.delete('/users/me/sessions', auth, authorize('endAllSessions'), async (_request, response) => {
    await sessions.endAll(principalOf(response).userId);
    response.status(204).end();
  });

  return router;
};

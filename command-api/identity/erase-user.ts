import { randomUUID } from 'node:crypto';
import { userEvents, type PersonalDataErased } from '../../domain/identity/user-events.ts';
import type { Clock } from '../../infrastructure/clock.ts';
import { createEventCodec } from '../../domain/shared/event-codec.ts';
import {
  NO_STREAM,
  WrongExpectedRevisionError,
  type Actor,
  type EventStore,
} from '../../infrastructure/event-store/event-store.ts';
import type { PersonalDataKeyring } from '../../infrastructure/personal-data/keyring.ts';
import type { Authenticator } from '../../infrastructure/auth/authenticator.ts';
import type { RefreshTokenStore } from '../../infrastructure/auth/refresh-tokens.ts';
import { createSessions } from '../../infrastructure/auth/sessions.ts';
import { anonymousUser } from '../../identity/erased-user.ts';
import { keepAnAdmin, type User, type UserStore } from '../../identity/users.ts';

/** The stream that records a user's erasure: the fact, who and when, and nothing about the person. */
export const userStreamName = (userId: string) => `user-${userId}`;
export const personalDataErasedType: PersonalDataErased['type'] = 'PersonalDataErased';

/** The codec of user events: the erasure's event is validated and versioned like every other event. */
export const userCodec = createEventCodec(userEvents);

export type ErasureOutcome = {
  /** This call deleted the data key (false: it was gone already). */
  keyDeleted: boolean;
  /** This call appended the erasure's event (false: it was recorded already). */
  recorded: boolean;
  user: User;
};

/**
 * Erasure of a user's personal data (crypto-shredding): its data key is deleted, so everything sealed under
 * it (shipping addresses and notes in the log, the read models, stored answers, the webhook retry state, the
 * bus, exports) reads as "[erased]" from then on; its record is anonymised (e-mail, name, password, stored
 * addresses) and disabled; its sessions end; and the log records that it happened. Each step is idempotent
 * and the key goes first: a call that fails half-way is completed by the next. Runs while the service runs.
 */
export const createUserErasure = ({
  users,
  refreshTokens,
  keyring,
  eventStore,
  clock,
  authenticator,
  flushDeleted = async () => {},
}: {
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  keyring: Pick<PersonalDataKeyring, 'erase'>;
  /** The event log, or a function opening it on first use (the admin CLI). */
  eventStore: EventStore | (() => Promise<EventStore>);
  clock: Clock;
  /** Told of the ended sessions, so that this process refuses the user's tokens at once. */
  authenticator?: Pick<Authenticator, 'forget'>;
  /** Drops what the store keeps of deleted rows beside its tables (SQLite's WAL), once all is done. */
  flushDeleted?: () => Promise<void>;
}) => {
  const sessions = createSessions({
    users,
    refreshTokens,
    clock,
    ...(authenticator ? { authenticator } : {}),
  });
  const log = async () => (typeof eventStore === 'function' ? eventStore() : eventStore);

  return {
    /**
     * Erases the user; null when there is no user with this id. Throws LastAdminError, changing nothing,
     * when the user is the last active admin.
     */
    async erase(
      userId: string,
      by: { actor: Actor | null; correlationId: string },
    ): Promise<ErasureOutcome | null> {
      if (!(await users.findById(userId))) return null;
      // The last active admin is not erased (LastAdminError): nobody could administer the service after.
      await keepAnAdmin(users, userId);
      const erasedAt = clock.now().toISOString();
      const keyDeleted = await keyring.erase(userId, erasedAt);
      const user = (await users.anonymise(userId, anonymousUser(userId)))!;
      await sessions.endAll(userId);
      let recorded = true;
      const { type, data, schemaVersion } = userCodec.encode({
        type: personalDataErasedType,
        data: { userId, erasedAt },
      });
      try {
        await (
          await log()
        ).appendToStream(
          userStreamName(userId),
          [
            {
              id: randomUUID(),
              type,
              data,
              metadata: {
                actor: by.actor,
                correlationId: by.correlationId,
                causationId: null,
                occurredAt: erasedAt,
                schemaVersion,
              },
            },
          ],
          { expectedRevision: NO_STREAM },
        );
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        recorded = false;
      }
      await flushDeleted();
      return { keyDeleted, recorded, user };
    },
  };
};

export type UserErasure = ReturnType<typeof createUserErasure>;

import { erasedValue } from '../domain/shared/personal-data.ts';
import type { User } from './users.ts';

/** What an erased user's record holds instead of its e-mail and name; no password opens it. */
export const anonymousUser = (userId: string): Pick<User, 'email' | 'name' | 'passwordHash'> => ({
  email: `erased-${userId}@erased.invalid`,
  name: erasedValue,
  passwordHash: '!erased',
});

/** Whether the record is an erased user's: erasure is final, so nothing may sign it in or use it again. */
export const isErased = (user: Pick<User, 'id' | 'passwordHash'>) =>
  user.passwordHash === anonymousUser(user.id).passwordHash;

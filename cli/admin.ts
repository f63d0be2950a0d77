// The admin command: `npm run admin -- <command> [options]`. Works on the configured store whether or not
// the service runs (DATA_DIR for the embedded default; MONGODB_URL for the distributed mode).
import { text } from 'node:stream/consumers';
import { systemClock } from '../infrastructure/clock.ts';
import { ConfigurationError, parseConfig } from '../infrastructure/config/parse-config.ts';
import { environmentHelp } from '../infrastructure/process/environment-help.ts';
import { adminConfigSchema, MissingEventLogError, openAdminStores } from './admin-stores.ts';
import { catalogCommands, DataError } from './catalog-commands.ts';
import { keyCommands } from './key-commands.ts';
import { logCommands, ReadModelMismatchError } from './log-commands.ts';
import { personalDataCommands } from './personal-data-commands.ts';
import { UsageError, userCommands } from './user-commands.ts';
import { LastAdminError } from '../identity/users.ts';

const usage = `Usage: npm run admin -- <command> [options]

Users
  user:add --email E (--password-stdin | --password P) --role R[,R...] [--name N]   (--role may be repeated)
  user:list
  user:set-role --email E --role R[,R...]
  user:set-password --email E (--password-stdin | --password P)   (also ends the user's sessions)
  user:disable --email E        (also ends the user's sessions)
  user:enable --email E
  user:erase (--email E | --id ID)
      Erases the user's personal data (crypto-shredding): deletes its data key, so its shipping addresses
      and notes read as "[erased]" everywhere (orders, histories, audit, exports, webhooks); anonymises its
      record (e-mail, name, password, stored addresses), disables it and ends its sessions; records the
      erasure in the log. Orders, amounts, statuses and the history stay. Safe while the service runs
      (other processes see it within 5 s); repeat with --id, which does nothing more.

Catalogue (read-only through the API: this is the admin backend that changes it)
  catalog:import FILE [--replace]
      FILE: JSON, {"products": [{"id", "name", "price", "updatedAt", "category"}]} or the bare array.
      Adds or updates products by id; --replace also removes those absent from FILE.
      Prices are decimals in CATALOG_CURRENCY (default EUR).
      Optional "stock": units available, an integer >= 0 (absent: not tracked). An "updatedAt" more than
      5 minutes ahead of this machine's clock is refused.

Event log and read models (what an auditor runs)
  events:export [--after POSITION] [--output FILE]
      Writes the log (after POSITION, exclusive) as NDJSON, each line carrying a SHA-256 hash chained
      over the previous one; a header opens the file and a trailer with the count closes it. To stdout
      unless --output (use \`npm run -s\` so npm's own banner stays out of the file).
  events:verify-export FILE
      Checks the chain, the count, increasing positions and gap-free stream revisions; prints the final
      hash. Exit 65 when the file fails.
  projections:rebuild
      Replays the whole log into a fresh order read model and swaps it in (safe while the service runs).
  projections:verify
      Replays the log into a scratch read model and reports every order that differs from the live one.
      Exit 1 when any does.

Personal data
  personal-data:reseal
      Rotating the key-encryption key (PERSONAL_DATA_KEY_FILE, or the embedded default's
      DATA_DIR/keys/personal-data-key): with the new key configured and the old one in
      PERSONAL_DATA_PREVIOUS_KEY_FILES, seals every data key again under the new one. Exit 65 when a
      data key opens under none of them (it is left as it is). See README, "Personal data and erasure".

Keys (the distributed mode's files; the embedded default makes its own in DATA_DIR/keys)
  keys:init DIR
      Creates DIR (mode 0700) and, where missing, DIR/jwt-signing-key.pem (the RS256 key that signs
      access tokens: JWT_PRIVATE_KEY_FILE) and DIR/webhook-secret-key (base64 of 32 random bytes that
      seal webhook secrets: WEBHOOK_SECRET_KEY_FILE) and DIR/personal-data-key (base64 of 32 random bytes
      that seal the data keys of personal data: PERSONAL_DATA_KEY_FILE) and DIR/consistency-token-key
      (base64 of 32 random bytes that bind Consistency-Tokens to their caller: CONSISTENCY_TOKEN_KEY_FILE),
      all mode 0600. Existing keys are kept as they are.
      Needs no store.

Passwords: at least 8 characters. Prefer --password-stdin (echo 'a long secret' | npm run admin -- ...):
--password shows in the shell history, the process list and npm's banner (npm run -s hides the banner).
Roles: customer, staff, auditor, admin.
Store: DATA_DIR (default ./data), or MongoDB when MONGODB_URL is set (database MONGODB_DATABASE,
default order_service). Event log: DATA_DIR/events.sqlite, or PostgreSQL when EVENT_LOG_URL is set,
or EventStoreDB when EVENTSTORE_URL is set.`;

const commands = {
  ...userCommands,
  ...catalogCommands,
  ...logCommands,
  ...personalDataCommands,
  ...keyCommands,
};

const main = async (argv: string[]): Promise<number> => {
  // A reader that stops early (`| head`) closes the pipe: what is left to say goes nowhere, and the command
  // still finishes, closing its stores, instead of dying of an unhandled EPIPE.
  let readerGone = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    readerGone = true;
  });
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === 'help') {
    process.stdout.write(environmentHelp(adminConfigSchema, usage));
    return name ? 0 : 64;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`unknown command ${name}\n\n${usage}\n`);
    return 64;
  }
  const output = {
    out: (line: string) => {
      if (!readerGone) process.stdout.write(`${line}\n`);
    },
    err: (line: string) => process.stderr.write(`${line}\n`),
  };
  // The key commands run before any store is configured or reachable (the first step of a deployment).
  const keyCommand = Object.hasOwn(keyCommands, name) ? keyCommands[name] : undefined;
  if (keyCommand) {
    await keyCommand(args, output);
    return 0;
  }
  const config = parseConfig(adminConfigSchema, process.env);
  const stores = await openAdminStores(config);
  try {
    await command(args, {
      stores,
      catalogCurrency: config.CATALOG_CURRENCY,
      clock: systemClock,
      ...output,
      readStdin: () => text(process.stdin),
    });
    return 0;
  } finally {
    await stores.close();
  }
};

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${usage}\n`);
      process.exitCode = 64;
    } else if (error instanceof ReadModelMismatchError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
    } else if (
      error instanceof DataError ||
      error instanceof MissingEventLogError ||
      error instanceof LastAdminError
    ) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 65;
    } else if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 78;
    } else {
      process.stderr.write(`admin failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);

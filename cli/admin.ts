// The admin command: `npm run admin -- <command> [options]`. Works on the configured store whether or not
// the service runs (DATA_DIR for the embedded default; MONGODB_URL for the distributed mode).
import { text } from 'node:stream/consumers';
import { systemClock } from '../infrastructure/clock.ts';
import { ConfigurationError, parseConfig } from '../infrastructure/config/parse-config.ts';
import { adminConfigSchema, openAdminStores } from './admin-stores.ts';
import { catalogCommands, DataError } from './catalog-commands.ts';
import { UsageError, userCommands } from './user-commands.ts';

const usage = `Usage: npm run admin -- <command> [options]

Users
  user:add --email E (--password P | --password-stdin) --role R[,R...] [--name N]
  user:list
  user:set-role --email E --role R[,R...]
  user:disable --email E        (also ends the user's sessions)
  user:enable --email E

Catalogue (the admin backend of spec section 1)
  catalog:import FILE [--replace]
      FILE: JSON, {"products": [{"id", "name", "price", "updatedAt", "category"}]} or the bare array.
      Adds or updates products by id; --replace also removes those absent from FILE.
      Prices are decimals in CATALOG_CURRENCY (default EUR).

Roles: customer, staff, auditor, admin.
Store: DATA_DIR (default ./data), or MongoDB when MONGODB_URL is set (database MONGODB_DATABASE,
default order_service).`;

const commands = { ...userCommands, ...catalogCommands };

const main = async (argv: string[]): Promise<number> => {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === 'help') {
    process.stdout.write(`${usage}\n`);
    return name ? 0 : 64;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`unknown command ${name}\n\n${usage}\n`);
    return 64;
  }
  const config = parseConfig(adminConfigSchema, process.env);
  const stores = await openAdminStores(config);
  try {
    await command(args, {
      stores,
      catalogCurrency: config.CATALOG_CURRENCY,
      clock: systemClock,
      out: (line) => process.stdout.write(`${line}\n`),
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
    } else if (error instanceof DataError) {
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

import {
  earlierOrderViewOf,
  orderReadModelIsCurrent,
} from '../projections/orders/order-read-model-version.ts';
import type { OrderReadModel } from '../projections/orders/order-read-model.ts';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { rebuildOrderReadModel, verifyOrderReadModel } from '../projections/orders/rebuild.ts';
import { DataError } from './catalog-commands.ts';
import { exportEvents, ExportVerificationError, verifyExport } from './event-export.ts';
import { UsageError, type CommandContext } from './user-commands.ts';
import { counted } from './counted.ts';
import { createPersonalDataKeyring } from '../infrastructure/personal-data/keyring.ts';
import { InvalidPositionError } from '../infrastructure/event-store/event-store.ts';

/** projections:verify found differences: exit 1, the report on stdout. */
export class ReadModelMismatchError extends Error {
  readonly kind = 'read-model-mismatch';
}

const options = <T extends ParseArgsOptionsConfig>(args: string[], spec: T) => {
  try {
    return parseArgs({ args, options: spec, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
};

const write = async (stream: Writable, text: string) => {
  if (!stream.write(text)) await once(stream, 'drain');
};

const hasOrders = async (readModel: OrderReadModel) =>
  (await readModel.listOrders({ kind: 'page', offset: 0, limit: 1 })).orders.length > 0;

/** The personal data keyring of the CLI: a key found lost is reported on standard error, not in the data. */
const adminKeyring = ({ stores, err }: CommandContext) => {
  const keys = stores.keyEncryptionKeys();
  return createPersonalDataKeyring({
    store: stores.dataKeys,
    keyEncryptionKey: keys.current,
    previousKeyEncryptionKeys: keys.previous,
    logger: { error: (_details: unknown, message?: string) => err(`warning: ${message ?? 'a data key'}`) },
  });
};

export const logCommands: Record<string, (args: string[], context: CommandContext) => Promise<void>> = {
  async 'events:export'(args, context) {
    const { values, positionals } = options(args, { after: { type: 'string' }, output: { type: 'string' } });
    if (positionals.length > 0) throw new UsageError('events:export takes no FILE; use --output FILE');
    if (values.after !== undefined && !/^\d{1,40}$/.test(values.after)) {
      throw new UsageError('--after takes a log position (a whole number)');
    }
    const eventStore = await context.stores.events();
    const after = values.after === undefined ? undefined : BigInt(values.after);
    if (after !== undefined) {
      // A position the log never issued (5 on EventStoreDB) is refused before any output file is made.
      await eventStore.readAll({ after, maxCount: 1 }).catch((error: unknown) => {
        if (!(error instanceof InvalidPositionError)) throw error;
        throw new UsageError(`--after ${after} is no position of this event log: take one from an export`);
      });
    }
    const target =
      values.output === undefined
        ? process.stdout
        : createWriteStream(values.output, { flags: 'wx', mode: 0o600 });
    const result = await exportEvents(
      eventStore,
      {
        ...(after === undefined ? {} : { after }),
        exportedAt: context.clock.now().toISOString(),
        reveal: adminKeyring(context).revealValue,
      },
      (line) => write(target, line),
    );
    if (target !== process.stdout) {
      target.end();
      await once(target, 'finish');
    }
    context.err(
      `exported ${counted(result.events, 'event')}${result.lastPosition === undefined ? '' : ` up to position ${result.lastPosition}`}; final hash ${result.finalHash}`,
    );
  },

  async 'events:verify-export'(args, context) {
    const { positionals } = options(args, {});
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new UsageError('events:verify-export takes one FILE');
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    try {
      const result = await verifyExport(lines);
      context.out(
        `OK: ${counted(result.events, 'event')} in ${counted(result.streams, 'stream')}, after ${result.after ?? 'the start'} up to ${result.lastPosition ?? 'nothing'}; final hash ${result.finalHash}`,
      );
    } catch (error) {
      if (error instanceof ExportVerificationError)
        throw new DataError(`${file} fails verification: ${error.message}`);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new DataError(`cannot read ${file}`);
      throw error;
    }
  },

  async 'projections:rebuild'(args, context) {
    options(args, {});
    const { orders } = context.stores;
    const result = await rebuildOrderReadModel({
      eventStore: await context.stores.events(),
      live: orders.live,
      scratch: await orders.rebuild(),
      checkpoints: orders.checkpoints,
    });
    context.out(
      `rebuilt the order read model from ${counted(result.events, 'event')}, up to position ${result.position ?? 'none'}`,
    );
  },

  async 'projections:verify'(args, context) {
    options(args, {});
    const { orders } = context.stores;
    // A read model an earlier version built is checked as that version stored it; the next start rebuilds it.
    const earlier = !(await orderReadModelIsCurrent(orders.checkpoints)) && (await hasOrders(orders.live));
    const scratch = await orders.scratch();
    try {
      const result = await verifyOrderReadModel({
        eventStore: await context.stores.events(),
        live: context.stores.orders.live,
        scratch,
        ...(earlier ? { as: await earlierOrderViewOf(orders.checkpoints) } : {}),
      });
      const at = `log position ${result.position ?? 'none'} (${counted(result.events, 'event')})`;
      const builtBy = earlier
        ? ', built by an earlier version of the service (its documents lack what this one stores, such as ' +
          'shipment),'
        : '';
      if (result.differences.length === 0) {
        context.out(
          `OK: the ${counted(result.orders, 'order')} of the read model${builtBy} match a replay of the log to ${at}`,
        );
        if (earlier) {
          context.out(
            'the service rebuilds it from the log at its next start, or run projections:rebuild now',
          );
        }
        return;
      }
      for (const difference of result.differences) {
        context.out(
          `order ${difference.orderId}: ${difference.problem}${difference.fields ? ` (${difference.fields.join(', ')})` : ''}`,
        );
      }
      throw new ReadModelMismatchError(
        `${result.differences.length} of the read model's orders${builtBy} differ from a replay of the log to ${at}`,
      );
    } finally {
      await scratch.discard();
    }
  },
};

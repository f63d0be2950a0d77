import { subscribe } from 'node:diagnostics_channel';
import { mongoCommandChannel, type MongoCommandStarted } from '../../infrastructure/mongo/connect-mongo.ts';

/**
 * One MongoDB command as the driver's command monitoring saw it, reduced to what the budgets and the index
 * check need: its name, its collection, and each query shape it carries (a find has one, an update or delete
 * command one per statement).
 */
export type MongoCommand = {
  /** The process that sent it (its instance name in the test). */
  instance: string;
  name: string;
  collection: string | null;
  shapes: QueryShape[];
  /** createIndexes: the key patterns it asks for. */
  indexes: Record<string, unknown>[];
};

/** A query's filter fields (operators looked through) and sort fields, in order. */
export type QueryShape = { filter: string[]; sort: string[] };

type Doc = Record<string, unknown>;
const isDoc = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields a filter constrains: top-level keys, and those inside $and / $or / $nor. */
const filterFields = (filter: unknown): string[] => {
  if (!isDoc(filter)) return [];
  const fields = new Set<string>();
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      for (const part of Array.isArray(value) ? value : []) for (const f of filterFields(part)) fields.add(f);
    } else if (!key.startsWith('$')) {
      fields.add(key);
    }
  }
  return [...fields].sort();
};
/** The driver hands a find's sort on as a Map; an aggregate's $sort stays a document. */
const sortFields = (sort: unknown): string[] =>
  sort instanceof Map ? [...(sort.keys() as Iterable<string>)] : isDoc(sort) ? Object.keys(sort) : [];
const shape = (filter: unknown, sort?: unknown): QueryShape => ({
  filter: filterFields(filter),
  sort: sortFields(sort),
});

const shapesOf = (name: string, command: Doc): QueryShape[] => {
  switch (name) {
    case 'find':
      return [shape(command['filter'], command['sort'])];
    case 'count':
    case 'distinct':
      return [shape(command['query'])];
    case 'findAndModify':
      return [shape(command['query'], command['sort'])];
    case 'update':
    case 'delete': {
      const statements = command[name === 'update' ? 'updates' : 'deletes'];
      return (Array.isArray(statements) ? statements : []).map((s: Doc) => shape(s['q']));
    }
    case 'aggregate': {
      const pipeline = Array.isArray(command['pipeline']) ? (command['pipeline'] as Doc[]) : [];
      const match = pipeline.find((stage) => '$match' in stage)?.['$match'];
      const sort = pipeline.find((stage) => '$sort' in stage)?.['$sort'];
      return [shape(match ?? {}, sort)];
    }
    default:
      return [];
  }
};

/** A command's summary, made in the process that sends it (the full command may hold secrets). */
export const summarise = (instance: string, { commandName, command }: MongoCommandStarted): MongoCommand => {
  const target = (command as Doc)[commandName];
  const indexes = commandName === 'createIndexes' ? ((command as Doc)['indexes'] as Doc[]) : [];
  return {
    instance,
    name: commandName,
    collection: typeof target === 'string' ? target : null,
    shapes: shapesOf(commandName, command as Doc),
    indexes: indexes.map((index) => index['key'] as Doc),
  };
};

/** In a process of the distributed mode: hands every command it sends to `report`, from its first. */
export const reportMongoCommands = (instance: string, report: (command: MongoCommand) => void) =>
  subscribe(mongoCommandChannel.name, (message) =>
    report(summarise(instance, message as MongoCommandStarted)),
  );

/** Commands the server answers about itself, not the data: no round trip an operation pays for. */
const housekeeping = new Set(['ping', 'hello', 'isMaster', 'ismaster', 'endSessions', 'buildInfo']);

/**
 * In the test: what the processes reported, and how many data commands each sent between two marks.
 */
export const createMongoCommandLog = () => {
  const commands: MongoCommand[] = [];
  return {
    add: (command: MongoCommand) => commands.push(command),
    all: (): readonly MongoCommand[] => commands,
    /** Where the log ends now: what `since` counts from. */
    mark: () => commands.length,
    /** The data commands sent since the mark, by the instances named (all when none is). */
    since: (mark: number, ...instances: string[]) =>
      commands
        .slice(mark)
        .filter((c) => !housekeeping.has(c.name))
        .filter((c) => instances.length === 0 || instances.includes(c.instance)),
  };
};
export type MongoCommandLog = ReturnType<typeof createMongoCommandLog>;

/** A readable line per command, for failure messages: `instance name collection {filter} [sort]`. */
export const describeCommands = (commands: readonly MongoCommand[]) =>
  commands
    .map(
      (c) =>
        `${c.instance} ${c.name} ${c.collection ?? ''} ${c.shapes
          .map((s) => `{${s.filter.join(',')}}${s.sort.length > 0 ? `[${s.sort.join(',')}]` : ''}`)
          .join(' ')}`,
    )
    .join('\n');

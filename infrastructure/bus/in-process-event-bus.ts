import {
  createOrderedQueue,
  handleOneAtATime,
  type BusMessage,
  type ConsumedMessage,
  type ConsumeOptions,
  type EventBus,
  type RunningConsumer,
} from './event-bus.ts';

type Member = {
  topics: ReadonlySet<string>;
  options: ConsumeOptions;
  /** The handling in progress, so that stop() can let it finish. */
  current: Promise<void> | undefined;
};

type Group = {
  members: Set<Member>;
  /** Deliveries run one after another, in publish call order. */
  enqueue: ReturnType<typeof createOrderedQueue>;
};

/** FNV-1a: spreads keys over a group's members, one key always to the same member. */
const hash = (key: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

/**
 * A consumed message whose publisher handed on the parsed object: its value (the text) is read from the
 * published message only if a consumer asks for it. A class for its getter on the prototype, as
 * event-bus.ts's JsonMessage.
 */
class ConsumedObject implements ConsumedMessage {
  readonly topic: string;
  readonly key: string;
  readonly parsed: unknown;
  readonly #message: BusMessage;
  constructor(topic: string, message: BusMessage) {
    this.topic = topic;
    this.key = message.key;
    this.parsed = message.parsed;
    this.#message = message;
  }
  get value(): string {
    return this.#message.value;
  }
  toJSON() {
    return { topic: this.topic, key: this.key, value: this.value };
  }
}

/** Throws the one failure, or all of them together. */
const throwFailures = (results: readonly PromiseSettledResult<unknown>[], what: string) => {
  const errors = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} ${what} failed`);
};

/**
 * The bus of the embedded default, one process: publish hands the messages to every group consuming the
 * topic and resolves once all their handlers resolved. Nothing is stored: messages published while no
 * group consumes the topic are dropped. That is enough because the event log is the outbox: the
 * dispatcher joins before the relay starts, and the relay advances its checkpoint only after publish
 * resolved, so a rejected publish (a handler threw) is published again: at least once. The groups whose
 * handlers did not fail then get those messages twice, which they deduplicate by event id.
 * With a dead-letter option, a failed batch is handled again at once, up to maxAttempts times in all.
 */
export const createInProcessEventBus = (): EventBus => {
  const groups = new Map<string, Group>();
  let closed = false;

  const handleShare = async ({ group, handle, deadLetter }: ConsumeOptions, batch: ConsumedMessage[]) => {
    if (!deadLetter) return handle(batch);
    for (let attempt = 1; attempt <= deadLetter.maxAttempts; attempt++) {
      try {
        return await handle(batch);
      } catch {
        // again, and after the last attempt one message at a time
      }
    }
    await handleOneAtATime(group, batch, handle, publish, deadLetter.topic);
  };

  const deliver = async (group: Group, topic: string, messages: readonly BusMessage[]) => {
    // Members are chosen now, not at publish time: a consumer stopped meanwhile gets nothing more.
    const members = [...group.members].filter((member) => member.topics.has(topic));
    if (members.length === 0) return;
    const shares = new Map<Member, ConsumedMessage[]>();
    for (const message of messages) {
      const member = members.length === 1 ? members[0]! : members[hash(message.key) % members.length]!;
      const consumed: ConsumedMessage =
        message.parsed === undefined
          ? { topic, key: message.key, value: message.value }
          : new ConsumedObject(topic, message);
      const share = shares.get(member);
      if (share) share.push(consumed);
      else shares.set(member, [consumed]);
    }
    const results = await Promise.allSettled(
      [...shares].map(([member, batch]) => {
        const handling = handleShare(member.options, batch);
        member.current = handling.then(
          () => undefined,
          () => undefined,
        );
        return handling;
      }),
    );
    throwFailures(results, 'consumers');
  };

  const stopMember = async (name: string, group: Group, member: Member) => {
    group.members.delete(member);
    if (group.members.size === 0 && groups.get(name) === group) groups.delete(name);
    await member.current;
  };

  const publish = async (topic: string, messages: readonly BusMessage[]) => {
    if (closed) throw new Error('the event bus is closed');
    if (messages.length === 0) return;
    const deliveries = [...groups.values()]
      .filter((group) => [...group.members].some((member) => member.topics.has(topic)))
      .map((group) => group.enqueue(() => deliver(group, topic, messages)));
    throwFailures(await Promise.allSettled(deliveries), `consumer groups of topic ${topic}`);
  };

  return {
    publish,

    async consume(options): Promise<RunningConsumer> {
      if (closed) throw new Error('the event bus is closed');
      const { group: name, topics, deadLetter } = options;
      // Its dead letters would queue behind the delivery that produces them: a deadlock.
      if (deadLetter && topics.includes(deadLetter.topic)) {
        throw new Error(
          `consumer group ${name} cannot consume its own dead-letter topic ${deadLetter.topic}`,
        );
      }
      let group = groups.get(name);
      if (!group) {
        group = { members: new Set(), enqueue: createOrderedQueue(`consumer group ${name}`) };
        groups.set(name, group);
      }
      const member: Member = { topics: new Set(topics), options, current: undefined };
      group.members.add(member);
      const joined = group;
      return { stop: () => stopMember(name, joined, member) };
    },

    async close() {
      closed = true;
      const all = [...groups].flatMap(([name, group]) =>
        [...group.members].map((member) => stopMember(name, group, member)),
      );
      await Promise.all(all);
    },
  };
};

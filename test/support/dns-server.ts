import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { isIPv4, isIPv6 } from 'node:net';

export type DnsQuestion = { name: string; type: 'A' | 'AAAA' };

/** The addresses of a name, or a function asked on every query (a test can answer differently each time). */
export type DnsAnswer = readonly string[] | ((question: DnsQuestion) => readonly string[]);

export type DnsServer = {
  /** host:port, as dns.setServers takes it. */
  address: string;
  /** How many queries have arrived so far. */
  readonly queries: number;
  stop(): Promise<void>;
};

const typeA = 1;
const typeAaaa = 28;
const classIn = 1;

const ipv6Bytes = (address: string): number[] => {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const all = [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return all.flatMap((group) => [group >> 8, group & 0xff]);
};

/** Name, type and class of the question, and where it ends; null when the packet is not a query we read. */
const parseQuestion = (packet: Buffer) => {
  if (packet.length < 12 || packet.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = packet[offset];
    if (length === undefined || length > 63) return null; // truncated, or a compression pointer
    offset += 1;
    if (length === 0) break;
    labels.push(packet.toString('latin1', offset, offset + length));
    offset += length;
  }
  if (offset + 4 > packet.length) return null;
  return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(offset), end: offset + 4 };
};

const respond = (query: Buffer, answers: Map<string, DnsAnswer>): Buffer | null => {
  const question = parseQuestion(query);
  if (question === null) return null;
  const answer = answers.get(question.name.replace(/\.$/, ''));
  const wanted = question.type === typeA ? 'A' : question.type === typeAaaa ? 'AAAA' : null;
  const addresses =
    answer === undefined || wanted === null
      ? []
      : (typeof answer === 'function' ? answer({ name: question.name, type: wanted }) : answer).filter(
          (address) => (wanted === 'A' ? isIPv4(address) : isIPv6(address)),
        );

  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  const opcodeAndRd = query.readUInt16BE(2) & 0x7900;
  const nxdomain = answer === undefined ? 3 : 0;
  header.writeUInt16BE(0x8000 | opcodeAndRd | 0x0400 | nxdomain, 2); // QR, AA, RCODE
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);

  const records = addresses.map((address) => {
    const data = wanted === 'A' ? address.split('.').map(Number) : ipv6Bytes(address);
    const record = Buffer.alloc(12 + data.length);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(question.type, 2);
    record.writeUInt16BE(classIn, 4);
    record.writeUInt32BE(0, 6); // TTL 0: nothing may cache the answer
    record.writeUInt16BE(data.length, 10);
    Buffer.from(data).copy(record, 12);
    return record;
  });
  return Buffer.concat([header, query.subarray(12, question.end), ...records]);
};

/**
 * A minimal authoritative DNS server over UDP on 127.0.0.1: A and AAAA from `answers` (which the test may
 * change at any time), NXDOMAIN for names it does not hold.
 */
export const startDnsServer = async (answers: Map<string, DnsAnswer>): Promise<DnsServer> => {
  const socket = createSocket('udp4');
  let queries = 0;
  socket.on('message', (query, peer) => {
    queries += 1;
    const response = respond(query, answers);
    if (response !== null) socket.send(response, peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    address: `127.0.0.1:${socket.address().port}`,
    get queries() {
      return queries;
    },
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
};

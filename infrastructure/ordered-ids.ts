import { randomBytes } from 'node:crypto';

/**
 * UUIDv7 ids (RFC 9562) that strictly increase within this process, also within one millisecond: a 12-bit
 * counter follows the timestamp (method 1 of section 6.2). For records listed newest first by id when their
 * timestamps tie. Node's own randomUUIDv7 is random below the millisecond, so not ordered within one.
 */
export const createOrderedIds = (now: () => number = Date.now) => {
  let lastMs = 0;
  let counter = 0;
  return (): string => {
    let ms = now();
    if (ms <= lastMs) {
      ms = lastMs;
      counter++;
      if (counter > 0xfff) {
        ms++;
        counter = 0;
      }
    } else {
      counter = 0;
    }
    lastMs = ms;
    const bytes = randomBytes(16);
    bytes.writeUIntBE(ms, 0, 6);
    bytes[6] = 0x70 | (counter >> 8);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
};

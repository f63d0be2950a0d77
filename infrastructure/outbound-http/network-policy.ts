import { isIPv4, isIPv6 } from 'node:net';

/** Whether webhooks may reach loopback, private and other non-public addresses (tests and the demo only). */
export type NetworkPolicy = { allowPrivateNetworks: boolean };

type Range = { prefix: bigint; bits: number; reason: string | null };

const range = (prefix: bigint, bits: number, reason: string | null): Range => ({ prefix, bits, reason });

/** Most specific first: the first range containing the address gives the reason. */
const ipv4Ranges: readonly Range[] = [
  range(0x00000000n, 8, 'unspecified'),
  range(0x0a000000n, 8, 'private network'),
  range(0x646464c8n, 32, 'cloud metadata'), // 100.100.100.200 (Alibaba Cloud metadata)
  range(0x64400000n, 10, 'carrier-grade NAT'),
  range(0x7f000000n, 8, 'loopback'),
  range(0xa9fea9fen, 32, 'cloud metadata'), // 169.254.169.254
  range(0xa9fe0000n, 16, 'link-local'),
  range(0xac100000n, 12, 'private network'),
  range(0xc0000000n, 24, 'reserved'), // IETF protocol assignments
  range(0xc0000200n, 24, 'documentation'),
  range(0xc0586300n, 24, 'reserved'), // deprecated 6to4 relay anycast
  range(0xc0a80000n, 16, 'private network'),
  range(0xc6120000n, 15, 'benchmarking'),
  range(0xc6336400n, 24, 'documentation'),
  range(0xcb007100n, 24, 'documentation'),
  range(0xe0000000n, 4, 'multicast'),
  range(0xffffffffn, 32, 'broadcast'),
  range(0xf0000000n, 4, 'reserved'),
];

/** IPv6 prefixes that carry an IPv4 address: the IPv4 address decides. */
const embeddingIpv4: readonly {
  prefix: bigint;
  bits: number;
  form: string;
  extract: (v6: bigint) => bigint;
}[] = [
  { prefix: 0n, bits: 96, form: 'IPv4-compatible', extract: (v6) => v6 & 0xffffffffn },
  { prefix: 0xffffn << 32n, bits: 96, form: 'IPv4-mapped', extract: (v6) => v6 & 0xffffffffn },
  { prefix: 0x0064ff9bn << 96n, bits: 96, form: 'NAT64', extract: (v6) => v6 & 0xffffffffn },
  { prefix: 0x2002n << 112n, bits: 16, form: '6to4', extract: (v6) => (v6 >> 80n) & 0xffffffffn },
  // Teredo stores the client's address inverted in the last 32 bits.
  { prefix: 0x20010000n << 96n, bits: 32, form: 'Teredo', extract: (v6) => ~v6 & 0xffffffffn },
];

const ipv6Ranges: readonly Range[] = [
  range(0n, 128, 'unspecified'),
  range(1n, 128, 'loopback'),
  range(0x0064ff9b0001n << 80n, 48, 'reserved'), // local-use NAT64
  range(0x0100n << 112n, 64, 'reserved'), // discard-only
  range(0x20010002n << 96n, 48, 'benchmarking'),
  range(0x20010010n << 96n, 28, 'reserved'), // ORCHID
  range(0x20010020n << 96n, 28, 'reserved'), // ORCHIDv2
  range(0x20010db8n << 96n, 32, 'documentation'),
  range(0x3fffn << 112n, 20, 'documentation'),
  range(0x5f00n << 112n, 16, 'reserved'), // SRv6 SIDs
  range((0xfd000ec2n << 96n) | 0x254n, 128, 'cloud metadata'), // fd00:ec2::254 (AWS)
  range(0xfc00n << 112n, 7, 'unique-local IPv6'),
  range(0xfe80n << 112n, 10, 'link-local'),
  range(0xfec0n << 112n, 10, 'site-local'),
  range(0xff00n << 112n, 8, 'multicast'),
  // Only 2000::/3 is allocated for global unicast; everything else left over is not routable.
  range(0x2000n << 112n, 3, null),
  range(0n, 0, 'reserved'),
];

const contains = (r: { prefix: bigint; bits: number }, value: bigint, width: number) =>
  value >> BigInt(width - r.bits) === r.prefix >> BigInt(width - r.bits);

const ipv4Value = (address: string): bigint =>
  address.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);

const ipv6Value = (address: string): bigint => {
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16)];
          const v4 = Number(ipv4Value(group));
          return [v4 >>> 16, v4 & 0xffff];
        });
  const before = groupsOf(head);
  const after = tail === undefined ? [] : groupsOf(tail);
  const groups = [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
};

const ipv4Reason = (value: bigint): string | null =>
  ipv4Ranges.find((r) => contains(r, value, 32))?.reason ?? null;

const ipv6Reason = (value: bigint): string | null => {
  const own = ipv6Ranges.find((r) => contains(r, value, 128));
  if (own?.bits === 128) return own.reason; // :: and ::1 lie inside the IPv4-compatible prefix
  const embedding = embeddingIpv4.find((e) => contains(e, value, 128));
  if (embedding) {
    const reason = ipv4Reason(embedding.extract(value));
    return reason === null ? null : `${embedding.form} ${reason}`;
  }
  return own?.reason ?? null;
};

/**
 * Why an address must not be the target of a webhook ('loopback', 'private network', ...), or null when it
 * is public. Anything that is not an IP address is refused too.
 */
export const forbiddenAddressReason = (address: string): string | null => {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIPv4(bare)) return ipv4Reason(ipv4Value(bare));
  if (isIPv6(bare)) return ipv6Reason(ipv6Value(bare));
  return 'unparseable';
};

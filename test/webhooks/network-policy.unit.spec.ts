import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason } from '../../infrastructure/outbound-http/network-policy.ts';

describe('forbiddenAddressReason', () => {
  describe('IPv4', () => {
    it.each([
      ['0.0.0.0', 'unspecified'],
      ['0.255.255.255', 'unspecified'],
      ['10.0.0.1', 'private network'],
      ['10.255.255.255', 'private network'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['100.127.255.255', 'carrier-grade NAT'],
      ['100.100.100.200', 'cloud metadata'],
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['169.254.0.1', 'link-local'],
      ['169.254.169.254', 'cloud metadata'],
      ['172.16.0.1', 'private network'],
      ['172.31.255.255', 'private network'],
      ['192.0.0.8', 'reserved'],
      ['192.0.2.1', 'documentation'],
      ['192.88.99.1', 'reserved'],
      ['192.168.1.1', 'private network'],
      ['198.18.0.1', 'benchmarking'],
      ['198.19.255.255', 'benchmarking'],
      ['198.51.100.7', 'documentation'],
      ['203.0.113.9', 'documentation'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.254', 'reserved'],
      ['255.255.255.255', 'broadcast'],
    ])('refuses %s as %s', (address, reason) => {
      expect(forbiddenAddressReason(address)).toBe(reason);
    });

    it.each([
      '93.184.216.34',
      '8.8.8.8',
      '1.1.1.1',
      // the neighbours of the forbidden ranges are public
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.0.1.0',
      '192.0.3.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '198.51.99.255',
      '203.0.112.255',
      '223.255.255.255',
    ])('allows the public address %s', (address) => {
      expect(forbiddenAddressReason(address)).toBeNull();
    });
  });

  describe('IPv6', () => {
    it.each([
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['fc00::1', 'unique-local IPv6'],
      ['fd12:3456:789a::1', 'unique-local IPv6'],
      ['fd00:ec2::254', 'cloud metadata'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['febf:ffff::1', 'link-local'],
      ['fec0::1', 'site-local'],
      ['ff02::1', 'multicast'],
      ['ff05::1:3', 'multicast'],
      ['2001:db8::1', 'documentation'],
      ['3fff::1', 'documentation'],
      ['100::1', 'reserved'],
      ['2001:2::1', 'benchmarking'],
      ['64:ff9b:1::1', 'reserved'],
      ['4000::1', 'reserved'],
      ['::ffff:0:7f00:1', 'reserved'],
    ])('refuses %s as %s', (address, reason) => {
      expect(forbiddenAddressReason(address)).toBe(reason);
    });

    it.each([
      ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
      ['::ffff:7f00:1', 'IPv4-mapped loopback'],
      ['0:0:0:0:0:ffff:7f00:0001', 'IPv4-mapped loopback'],
      ['::ffff:10.1.2.3', 'IPv4-mapped private network'],
      ['::ffff:a9fe:a9fe', 'IPv4-mapped cloud metadata'],
      ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
      ['::127.0.0.1', 'IPv4-compatible loopback'],
      ['::192.168.0.1', 'IPv4-compatible private network'],
      ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
      ['64:ff9b::a9fe:a9fe', 'NAT64 cloud metadata'],
      ['2002:7f00:1::', '6to4 loopback'],
      ['2002:c0a8:101::1', '6to4 private network'],
      ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo private network'], // client 10.0.0.1, inverted
    ])('judges the IPv4 address inside %s: %s', (address, reason) => {
      expect(forbiddenAddressReason(address)).toBe(reason);
    });

    it.each([
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '2a00:1450:4001:80b::200e',
      '::ffff:93.184.216.34',
      '::ffff:808:808',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:db9::1',
      '2400:cb00:2048:1::c629:d7a2',
    ])('allows the public address %s', (address) => {
      expect(forbiddenAddressReason(address)).toBeNull();
    });
  });

  it.each(['', 'localhost', '127.0.0.1.5', '[::1', '1::2::3'])(
    'refuses %j, which is no IP address',
    (text) => {
      expect(forbiddenAddressReason(text)).toBe('unparseable');
    },
  );
});

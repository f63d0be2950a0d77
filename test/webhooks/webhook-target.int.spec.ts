import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  createHostResolver,
  WebhookTargetRefusedError,
  type ResolveHost,
} from '../../infrastructure/outbound-http/target-check.ts';
import { startDnsServer, type DnsServer } from '../support/dns-server.ts';

const strict = { allowPrivateNetworks: false };

describe('checkWebhookUrl', () => {
  let dns: DnsServer;
  let resolve: ResolveHost;

  beforeAll(async () => {
    dns = await startDnsServer(
      new Map([
        ['public.test', ['93.184.216.34']],
        ['internal.test', ['10.0.0.1']],
        ['dual.test', ['93.184.216.34', 'fd00::1']],
        ['v6.test', ['2606:4700:4700::1111']],
      ]),
    );
    resolve = createHostResolver({ dnsServers: [dns.address] });
  });
  afterAll(() => dns.stop());

  const refusal = async (url: string, policy = strict) => {
    const error: unknown = await checkWebhookUrl(url, { policy, resolve }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WebhookTargetRefusedError);
    return (error as WebhookTargetRefusedError).message;
  };

  it.each([
    ['http://127.0.0.1/hook', '127.0.0.1 is a loopback address: webhooks cannot target internal networks'],
    ['http://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1 is an IPv4-mapped loopback address'],
    ['http://2130706433/hook', '127.0.0.1 is a loopback address'],
    ['http://0x7f.1/hook', '127.0.0.1 is a loopback address'],
    ['http://017700000001/hook', '127.0.0.1 is a loopback address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is a cloud metadata address'],
    ['http://[::1]:8080/hook', '::1 is a loopback address'],
    ['http://0/hook', '0.0.0.0 is an unspecified address'],
  ])('refuses the IP literal in %s without asking DNS', async (url, message) => {
    const queriesBefore = dns.queries;
    expect(await refusal(url)).toContain(message);
    expect(dns.queries).toBe(queriesBefore);
  });

  it('refuses a host name that resolves to a private address', async () => {
    expect(await refusal('https://internal.test/hook')).toBe(
      'internal.test resolves to 10.0.0.1, a private network address: webhooks cannot target internal networks',
    );
  });

  it('refuses a host name when any of its addresses is forbidden', async () => {
    expect(await refusal('https://dual.test/hook')).toContain('dual.test resolves to fd00::1');
  });

  it('refuses port 0, which no connection can reach', async () => {
    expect(await refusal('http://198.51.100.7:0/hooks')).toBe('port 0 cannot be connected to');
  });

  it('refuses a host name that does not resolve', async () => {
    expect(await refusal('https://missing.test/hook')).toBe('missing.test does not resolve');
  });

  it.each([
    ['ftp://public.test/hook', 'ftp: URLs are not supported: use http or https'],
    ['file:///etc/passwd', 'file: URLs are not supported'],
    ['http://user:pw@public.test/hook', 'must not contain a user name or password'],
    ['http://user@public.test/hook', 'must not contain a user name or password'],
    ['not a url', 'not a valid absolute URL'],
    ['/relative/hook', 'not a valid absolute URL'],
  ])('refuses %s', async (url, message) => {
    expect(await refusal(url, { allowPrivateNetworks: true })).toContain(message);
  });

  it('accepts a host name whose addresses are public, and returns the parsed URL', async () => {
    const url = await checkWebhookUrl('https://public.test:8443/hook?x=1', { policy: strict, resolve });
    expect(url.href).toBe('https://public.test:8443/hook?x=1');
  });

  it('accepts a host name with only an IPv6 address', async () => {
    await expect(checkWebhookUrl('https://v6.test/', { policy: strict, resolve })).resolves.toBeInstanceOf(
      URL,
    );
  });

  it('accepts a public IP literal', async () => {
    const url = await checkWebhookUrl('http://93.184.216.34/hook', { policy: strict, resolve });
    expect(url.hostname).toBe('93.184.216.34');
  });

  it('accepts private addresses when the policy allows private networks', async () => {
    const policy = { allowPrivateNetworks: true };
    await expect(checkWebhookUrl('http://127.0.0.1:3000/hook', { policy, resolve })).resolves.toBeInstanceOf(
      URL,
    );
    await expect(checkWebhookUrl('http://internal.test/hook', { policy, resolve })).resolves.toBeInstanceOf(
      URL,
    );
  });

  it('still refuses a name that does not resolve when private networks are allowed', async () => {
    expect(await refusal('http://missing.test/', { allowPrivateNetworks: true })).toBe(
      'missing.test does not resolve',
    );
  });

  it("resolves through the system's resolver when no DNS server is configured", async () => {
    const system = createHostResolver({});
    const message = await checkWebhookUrl('http://localhost:3000/', { policy: strict, resolve: system }).then(
      () => 'accepted',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
  });
});

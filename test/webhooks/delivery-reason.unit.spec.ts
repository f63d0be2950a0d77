import { describe, expect, it } from 'vitest';
import { deliveryReason } from '../../infrastructure/outbound-http/webhook-poster.ts';

describe('the reason a failed delivery is logged and listed with', () => {
  const target = new URL('https://hooks.shop.example:8443/in/T0KEN-in-path?key=s3cret#frag');

  it('keeps the host name, an address and a port: what an operator needs to tell which receiver fails', () => {
    expect(deliveryReason('getaddrinfo ENOTFOUND hooks.shop.example', target)).toBe(
      'getaddrinfo ENOTFOUND hooks.shop.example',
    );
    expect(deliveryReason('connect ECONNREFUSED 93.184.216.34:8443', target)).toBe(
      'connect ECONNREFUSED 93.184.216.34:8443',
    );
  });

  it('never keeps the path, the query or the fragment, whole or in part', () => {
    for (const message of [
      `could not post to ${target.href}`,
      'Invalid path /in/T0KEN-in-path?key=s3cret',
      'bad request line: POST /in/T0KEN-in-path HTTP/1.1',
      'unexpected ?key=s3cret',
    ]) {
      const reason = deliveryReason(message, target);
      expect(reason).not.toMatch(/T0KEN|s3cret|frag/);
      expect(reason).toContain('[path not shown]');
    }
    expect(deliveryReason(`could not post to ${target.href}`, target)).toBe(
      'could not post to https://hooks.shop.example:8443/[path not shown]',
    );
  });

  it('leaves a message alone when the URL has no path to hide', () => {
    expect(deliveryReason('socket hang up', new URL('https://hooks.shop.example/'))).toBe('socket hang up');
  });
});

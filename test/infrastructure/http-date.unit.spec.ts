import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../infrastructure/http/http-date.ts';

const now = Date.parse('2026-11-26T12:00:00Z');
const parse = (value: string) => parseHttpDate(value, now);

describe('parseHttpDate (RFC 9110, section 5.6.7)', () => {
  it('reads the same instant from each of the three formats', () => {
    const instant = Date.parse('1994-11-06T08:49:37Z');
    expect(parse('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(instant);
    expect(parse('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(instant);
    expect(parse('Sun Nov  6 08:49:37 1994')).toBe(instant);
    expect(parse('Sun Nov 06 08:49:37 1994')).toBe(instant);
  });

  it.each([
    ['IMF-fixdate', 'Mon, 06 Nov 1994 08:49:37 GMT'],
    ['RFC 850', 'Monday, 06-Nov-94 08:49:37 GMT'],
    ['asctime', 'Mon Nov  6 08:49:37 1994'],
  ])('is not a date with the wrong weekday (%s)', (_format, value) => {
    expect(parse(value)).toBeUndefined();
  });

  it.each([
    [
      '30 February',
      ['Mon, 30 Feb 2099 00:00:00 GMT', 'Monday, 30-Feb-38 00:00:00 GMT', 'Mon Feb 30 00:00:00 2099'],
    ],
    [
      '31 November',
      ['Tue, 31 Nov 2026 00:00:00 GMT', 'Tuesday, 31-Nov-26 00:00:00 GMT', 'Tue Nov 31 00:00:00 2026'],
    ],
    [
      '29 February of 2100',
      ['Mon, 29 Feb 2100 00:00:00 GMT', 'Monday, 29-Feb-00 00:00:00 GMT', 'Mon Feb 29 00:00:00 2100'],
    ],
    [
      'day 00',
      ['Sun, 00 Nov 1994 08:49:37 GMT', 'Sunday, 00-Nov-94 08:49:37 GMT', 'Sun Nov  0 08:49:37 1994'],
    ],
  ])('is not a date on %s, in any format', (_day, values) => {
    for (const value of values) expect(parse(value), value).toBeUndefined();
  });

  it('takes 29 February of a leap year, and the leap second as the second after', () => {
    expect(parse('Thu, 29 Feb 2024 10:00:00 GMT')).toBe(Date.parse('2024-02-29T10:00:00Z'));
    expect(parse('Sat, 31 Dec 2016 23:59:60 GMT')).toBe(Date.parse('2017-01-01T00:00:00Z'));
  });

  it.each([
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Nov 1994 08:49:61 GMT',
  ])('is not a date with a time of day out of range: %s', (value) => {
    expect(parse(value)).toBeUndefined();
  });

  it('reads a two-digit year as the one at most 50 years ahead, else the century before', () => {
    expect(parse('Wednesday, 15-Jan-76 00:00:00 GMT')).toBe(Date.parse('2076-01-15T00:00:00Z'));
    // 15 December 2076 is more than 50 years after 26 November 2026.
    expect(parse('Wednesday, 15-Dec-76 00:00:00 GMT')).toBe(Date.parse('1976-12-15T00:00:00Z'));
    expect(parse('Tuesday, 15-Dec-76 00:00:00 GMT')).toBeUndefined();
    expect(parse('Saturday, 01-Jan-77 00:00:00 GMT')).toBe(Date.parse('1977-01-01T00:00:00Z'));
    expect(parse('Saturday, 01-Jan-00 00:00:00 GMT')).toBe(Date.parse('2000-01-01T00:00:00Z'));
    expect(parse('Sunday, 01-Jan-00 00:00:00 GMT')).toBeUndefined();
  });

  it('reads a four-digit year below 100 as itself', () => {
    expect(parse('Thu, 01 Jan 0099 00:00:00 GMT')).toBe(Date.parse('0099-01-01T00:00:00Z'));
    expect(parse('Thu Jan  1 00:00:00 0099')).toBe(Date.parse('0099-01-01T00:00:00Z'));
  });

  it.each([
    'sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 Nov 1994 08:49:37 GMT ',
    'Sun,  06 Nov 1994 08:49:37 GMT',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 94 08:49:37 GMT',
    'Sun, ０6 Nov 1994 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
    '1994-11-06T08:49:37Z',
    '784111777',
    '',
    `Sun, 06 Nov 1994 08:49:37 GMT${' '.repeat(6000)}`,
  ])('is not a date: %j', (value) => {
    expect(parse(value)).toBeUndefined();
  });
});

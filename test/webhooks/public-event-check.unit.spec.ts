import { describe, expect, it } from 'vitest';
import { isPublicOrderEvent, publicOrderEvent } from '../../webhook-dispatcher/accept-events.ts';

const valid = {
  id: '0193c5a0-0000-7000-8000-000000000001',
  type: 'order.created',
  occurredAt: '2026-11-21T10:00:00.000Z',
  orderId: '0193c5a0-0000-7000-8000-0000000000aa',
  revision: 0,
  position: '42',
  subscriptionsChangedAt: '40',
  data: { id: 'x' },
};

/** Values every field is tried with: of other types, empty, at and past the bounds. */
const oddValues: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  'x',
  '0',
  '7',
  '-1',
  '1.5',
  'a1',
  '1'.repeat(40),
  '1'.repeat(41),
  '12\n',
  '١٢',
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  [],
  {},
  ['42'],
  'order.created',
  'payment.received',
  'order.status_changed',
  'order.deleted',
  'ORDER.CREATED',
];

const variants = (): unknown[] => {
  const out: unknown[] = [valid, null, undefined, 'text', 42, [], [valid], {}];
  for (const field of Object.keys(valid)) {
    const { [field]: _removed, ...without } = valid as Record<string, unknown>;
    out.push(without);
    for (const odd of oddValues) out.push({ ...valid, [field]: odd });
  }
  out.push({ ...valid, extra: 'accepted by both' });
  out.push(Object.assign(Object.create(null), valid));
  out.push(Object.create(valid));
  out.push(Object.assign(new Date(0), valid));
  out.push({ ...valid, revision: 1e21 }, { ...valid, id: '\uD800' }, { ...valid, position: '１' });
  return out;
};

describe("the dispatcher's fast check of a public order event", () => {
  it('is tried on every field of the schema', () => {
    expect(Object.keys(valid).sort()).toEqual(Object.keys(publicOrderEvent.shape).sort());
  });

  it('accepts exactly what the schema accepts', () => {
    const cases = variants();
    const disagreements = cases.filter(
      (value) => isPublicOrderEvent(value) !== publicOrderEvent.safeParse(value).success,
    );
    expect(disagreements).toEqual([]);
    // Both sides of the comparison are exercised: some cases pass, most fail.
    const accepted = cases.filter((value) => isPublicOrderEvent(value)).length;
    expect(accepted).toBeGreaterThan(10);
    expect(cases.length - accepted).toBeGreaterThan(100);
  });
});

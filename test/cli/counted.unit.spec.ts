import { describe, expect, it } from 'vitest';
import { counted } from '../../cli/counted.ts';

describe('counted: what the admin CLI reports', () => {
  it('says one thing in the singular and any other number in the plural', () => {
    expect(counted(1, 'product')).toBe('1 product');
    expect(counted(0, 'product')).toBe('0 products');
    expect(counted(60, 'product')).toBe('60 products');
    expect(counted(1, 'category', 'categories')).toBe('1 category');
    expect(counted(6, 'category', 'categories')).toBe('6 categories');
    expect(counted(1n, 'event')).toBe('1 event');
    expect(counted(2n, 'event')).toBe('2 events');
  });
});

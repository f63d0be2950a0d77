import { describe, expect, it } from 'vitest';
import { InvariantViolationError } from '../../domain/shared/errors.ts';
import {
  addMoney,
  isCurrencyCode,
  minorUnitDigits,
  moneyFromDecimal,
  moneyToDecimal,
  multiplyMoney,
} from '../../domain/shared/money.ts';

describe('money', () => {
  it('knows the minor unit of each currency', () => {
    expect(minorUnitDigits('EUR')).toBe(2);
    expect(minorUnitDigits('JPY')).toBe(0);
    expect(minorUnitDigits('BHD')).toBe(3);
  });

  it('reads decimals into integer minor units without floating-point drift', () => {
    expect(moneyFromDecimal(19.99, 'EUR')).toEqual({ amountMinor: 1999, currency: 'EUR' });
    expect(moneyFromDecimal(0.29, 'EUR')).toEqual({ amountMinor: 29, currency: 'EUR' });
    expect(moneyFromDecimal(1.005, 'BHD')).toEqual({ amountMinor: 1005, currency: 'BHD' });
    expect(moneyFromDecimal(500, 'JPY')).toEqual({ amountMinor: 500, currency: 'JPY' });
  });

  it('refuses more decimal places than the currency has', () => {
    expect(() => moneyFromDecimal(19.999, 'EUR')).toThrow(InvariantViolationError);
    expect(() => moneyFromDecimal(1.5, 'JPY')).toThrow(InvariantViolationError);
  });

  it('adds in minor units, so 0.1 + 0.2 is 0.3', () => {
    const sum = addMoney(moneyFromDecimal(0.1, 'EUR'), moneyFromDecimal(0.2, 'EUR'));
    expect(moneyToDecimal(sum)).toBe(0.3);
    expect(JSON.stringify(moneyToDecimal(multiplyMoney(moneyFromDecimal(19.99, 'EUR'), 3)))).toBe('59.97');
  });

  it('never adds different currencies', () => {
    expect(() => addMoney({ amountMinor: 1, currency: 'EUR' }, { amountMinor: 1, currency: 'USD' })).toThrow(
      InvariantViolationError,
    );
  });

  it('validates currency codes against ISO 4217', () => {
    expect(isCurrencyCode('EUR')).toBe(true);
    expect(isCurrencyCode('eur')).toBe(false);
    expect(isCurrencyCode('XYZ')).toBe(false);
  });
});

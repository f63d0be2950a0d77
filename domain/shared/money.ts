import { InvariantViolationError } from './errors.ts';

/** An amount in integer minor units (cents for EUR) with its ISO 4217 currency code. */
export type Money = { readonly amountMinor: number; readonly currency: string };

const minorDigitsCache = new Map<string, number>();

/** Decimal places of a currency's minor unit: 2 for EUR, 0 for JPY, 3 for BHD. */
export const minorUnitDigits = (currency: string): number => {
  let digits = minorDigitsCache.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits as number;
    minorDigitsCache.set(currency, digits);
  }
  return digits;
};

export const isCurrencyCode = (code: string): boolean => {
  if (!/^[A-Z]{3}$/.test(code)) return false;
  return Intl.supportedValuesOf('currency').includes(code);
};

const requireSafe = (amountMinor: number, field: string): number => {
  if (!Number.isSafeInteger(amountMinor)) {
    throw new InvariantViolationError([{ field, message: 'amount is out of range' }]);
  }
  return amountMinor;
};

export const money = (amountMinor: number, currency: string): Money => ({
  amountMinor: requireSafe(amountMinor, 'amount'),
  currency,
});

/**
 * Reads a decimal amount as sent over the wire. Refuses more decimal places than the currency has,
 * so 19.999 EUR is an error rather than a silent rounding.
 */
export const moneyFromDecimal = (amount: number, currency: string): Money => {
  const amountMinor = minorUnitsOf(amount, currency);
  if (amountMinor === null) {
    throw new InvariantViolationError([{ field: 'amount', message: tooManyDecimals(currency) }]);
  }
  return money(amountMinor, currency);
};

/** A decimal amount in the currency's minor units; null when it has more decimal places than the currency. */
export const minorUnitsOf = (amount: number, currency: string): number | null => {
  const scale = 10 ** minorUnitDigits(currency);
  const amountMinor = Math.round(amount * scale);
  return amountMinor / scale === amount ? amountMinor : null;
};

/**
 * A decimal amount written as text (`49.95`, as a query string carries it) in the currency's minor units,
 * digit by digit, so that no float rounds it; null when it has more decimal places than the currency.
 */
export const minorUnitsOfText = (text: string, currency: string): number | null => {
  const digits = minorUnitDigits(currency);
  const [whole = '', fraction = ''] = text.split('.');
  if (fraction.length > digits) return null;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
};

/** Why minorUnitsOf refused an amount, in the words the API answers. */
export const tooManyDecimals = (currency: string) =>
  `${currency} has at most ${minorUnitDigits(currency)} decimal places`;

/** The decimal form for the wire: integer division by a power of ten, which doubles represent exactly enough to print. */
export const moneyToDecimal = (value: Money): number =>
  value.amountMinor / 10 ** minorUnitDigits(value.currency);

export const addMoney = (a: Money, b: Money): Money => {
  if (a.currency !== b.currency) {
    throw new InvariantViolationError([
      { field: 'currency', message: `cannot add ${b.currency} to ${a.currency}` },
    ]);
  }
  return money(a.amountMinor + b.amountMinor, a.currency);
};

export const multiplyMoney = (value: Money, factor: number): Money => {
  if (!Number.isSafeInteger(factor)) {
    throw new InvariantViolationError([{ field: 'quantity', message: 'must be an integer' }]);
  }
  return money(value.amountMinor * factor, value.currency);
};

export const zeroMoney = (currency: string): Money => ({ amountMinor: 0, currency });

import type { Clock } from '../../infrastructure/clock.ts';

/** A clock a test moves; advancing may reach other processes, so it is awaited. */
export type TestClock = Clock & { advance: (ms: number) => Promise<void> };

export const testClockStart = new Date('2026-11-21T10:00:00.000Z');

/** A clock the test moves by hand. */
export const manualClock = (start = testClockStart) => {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: async (ms: number) => {
      now += ms;
    },
  } satisfies TestClock;
};

/**
 * A clock that runs in real time and that a test can still move forward. It reads the monotonic clock, not
 * Date, so that a test faking Date for itself (vi.setSystemTime) moves only what it means to.
 */
export const realTimeClock = () => {
  let offset = 0;
  return {
    now: () => new Date(performance.timeOrigin + performance.now() + offset),
    advance: async (ms: number) => {
      offset += ms;
    },
  } satisfies TestClock;
};

export type TestTime = 'manual' | 'real';

export const testClock = (time: TestTime): TestClock => (time === 'real' ? realTimeClock() : manualClock());

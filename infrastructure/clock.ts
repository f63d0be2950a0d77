/** Time as a dependency: created in the composition root, injected everywhere, replaced in tests. */
export type Clock = { now: () => Date };

export const systemClock: Clock = { now: () => new Date() };

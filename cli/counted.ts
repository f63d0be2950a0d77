/** `1 product`, `2 products`, `0 products`: a count with its noun, singular only for one. */
export const counted = (count: number | bigint, singular: string, plural = `${singular}s`): string =>
  `${count} ${count === 1 || count === 1n ? singular : plural}`;

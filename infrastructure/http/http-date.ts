const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const day = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const dayName = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const month = `(${months.join('|')})`;
const time = '(\\d{2}):(\\d{2}):(\\d{2})';

type DateParts = { weekday: string; day: string; month: string; year: string; time: string[] };

/** The parts of a format that names the weekday, the day, the month, the year, then the time. */
const dayBeforeMonth = ([, weekday, d, m, y, ...hms]: RegExpExecArray): DateParts => ({
  weekday: weekday!,
  day: d!,
  month: m!,
  year: y!,
  time: hms,
});

// IMF-fixdate, and the obsolete RFC 850 and asctime formats (RFC 9110, section 5.6.7), each with its parts.
const formats: { pattern: RegExp; parts: (match: RegExpExecArray) => DateParts }[] = [
  { pattern: new RegExp(`^${day}, (\\d{2}) ${month} (\\d{4}) ${time} GMT$`), parts: dayBeforeMonth },
  { pattern: new RegExp(`^${dayName}, (\\d{2})-${month}-(\\d{2}) ${time} GMT$`), parts: dayBeforeMonth },
  {
    pattern: new RegExp(`^${day} ${month} ([ \\d]\\d) ${time} (\\d{4})$`),
    parts: ([, weekday, m, d, h, min, sec, y]) => ({
      weekday: weekday!,
      day: d!,
      month: m!,
      year: y!,
      time: [h!, min!, sec!],
    }),
  },
];

/**
 * An HTTP-date in any of its three formats, as epoch ms. Undefined for anything else, and for a date that
 * names no real day (30 February) or the wrong weekday: such a header is not a date, and is ignored. An
 * RFC 850 two-digit year that would be more than 50 years after `now` is the latest past year ending so.
 */
export const parseHttpDate = (value: string, now = Date.now()): number | undefined => {
  for (const { pattern, parts } of formats) {
    const match = pattern.exec(value);
    if (match) return instantOf(parts(match), now);
  }
  return undefined;
};

const instantOf = (date: DateParts, now: number): number | undefined => {
  const [hours, minutes, seconds] = date.time.map(Number) as [number, number, number];
  // 60 is the leap second, which the grammar allows: Date has none, and counts it as the next second.
  if (hours > 23 || minutes > 59 || seconds > 60) return undefined;
  const [monthIndex, dayOfMonth] = [months.indexOf(date.month), Number(date.day)];
  const timeOfDay = ((hours * 60 + minutes) * 60 + seconds) * 1000;
  const midnightIn = (year: number) => {
    const midnight = new Date(0);
    midnight.setUTCFullYear(year, monthIndex, dayOfMonth);
    return midnight;
  };
  let midnight = midnightIn(Number(date.year));
  if (date.year.length === 2) {
    const century = Math.floor(new Date(now).getUTCFullYear() / 100) * 100;
    const fiftyYearsOn = new Date(now);
    fiftyYearsOn.setUTCFullYear(fiftyYearsOn.getUTCFullYear() + 50);
    midnight = midnightIn(century + Number(date.year));
    if (midnight.getTime() + timeOfDay > fiftyYearsOn.getTime()) {
      midnight = midnightIn(century - 100 + Number(date.year));
    }
  }
  // Date rolls 30 February over into March: a day is real only when it is still the one named.
  if (midnight.getUTCDate() !== dayOfMonth || midnight.getUTCMonth() !== monthIndex) return undefined;
  if (weekdays[midnight.getUTCDay()] !== date.weekday.slice(0, 3)) return undefined;
  return midnight.getTime() + timeOfDay;
};

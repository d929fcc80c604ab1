const isoWithOffset =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/i;

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * Epoch milliseconds of an ISO-8601 date-time that carries a UTC offset (`Z` or `±hh:mm`),
 * e.g. "2026-11-20T10:00:00+00:00"; undefined for anything else, impossible dates included
 * (no rolling 31 February over into March). Fractions beyond milliseconds are truncated.
 */
export const parseIsoWithOffset = (value: string): number | undefined => {
  const match = isoWithOffset.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zulu, sign, offsetHours = '0', offsetMinutes = '0'] = match;
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return undefined;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const offset = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000;
};

const isoDateTime =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)?$/;

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * Epoch milliseconds of an ISO-8601 date-time, or undefined when it is not one (impossible
 * dates included: no 31 February). Accepted: `YYYY-MM-DDThh:mm[:ss[.fraction]]` with `Z` or
 * any offset `±hh:mm`, `±hhmm` or `±hh`. Two leniencies, both documented: a space where the
 * `+` of the offset should be (an unencoded `+` in a query string arrives as a space), and no
 * offset at all, read as UTC. A date without a time is refused.
 */
export const parseIsoDateTime = (value: string): number | undefined => {
  const match = isoDateTime.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zulu, sign, offsetHours = '0', offsetMinutes = '0'] = match;
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return undefined;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const offsetMinutesTotal =
    zulu || sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutesTotal * 60_000;
};

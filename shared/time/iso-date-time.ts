const isoDateTime =
  /^(\d{4})-(\d{2})-(\d{2})([Tt ])(\d{2}):(\d{2})(?::(\d{2})(?:([.,])(\d+))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)?$/;

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** How strictly parseIsoDateTime reads. */
export interface IsoDateTimeOptions {
  /**
   * Refuse anything but the plain form with an explicit UTC offset (the seed file's rule):
   * `YYYY-MM-DDThh:mm[:ss[.fraction]]` (fraction up to 9 digits) with `Z`, `±hh:mm` or
   * `±hhmm`, and none of the leniencies below.
   */
  requireOffset?: boolean;
}

/**
 * Epoch milliseconds of an ISO-8601 date-time, or undefined when it is not one (impossible
 * dates included: no 31 February rolled over into March). Accepted:
 * `YYYY-MM-DDThh:mm[:ss[.fraction]]` with `Z` or any offset `±hh:mm`, `±hhmm` or `±hh`;
 * fractions beyond milliseconds are truncated. A date without a time is refused.
 *
 * Lenient by default, for query strings (SIM listing's `updated_after`): surrounding
 * whitespace, a space for the `T`, a `,` for the `.` of the fraction, a space where the `+` of
 * the offset should be (an unencoded `+` in a query string arrives as a space), and no offset
 * at all, read as UTC. With `requireOffset` none of these is accepted.
 */
export const parseIsoDateTime = (value: string, options: IsoDateTimeOptions = {}): number | undefined => {
  const strict = options.requireOffset === true;
  const match = isoDateTime.exec(strict ? value : value.trim());
  if (!match) return undefined;
  const [, y, mo, d, separator, h, mi, s = '0', fractionMark, fraction = '', zulu, sign, offsetHours = '0', offsetMinutes] = match;
  if (strict) {
    const plainOffset = zulu !== undefined || ((sign === '+' || sign === '-') && offsetMinutes !== undefined);
    if (separator === ' ' || (fractionMark !== undefined && (fractionMark !== '.' || fraction.length > 9)) || !plainOffset) {
      return undefined;
    }
  }
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (Number(offsetHours) > 23 || Number(offsetMinutes ?? '0') > 59) return undefined;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const offsetMinutesTotal =
    zulu || sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes ?? '0'));
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutesTotal * 60_000;
};

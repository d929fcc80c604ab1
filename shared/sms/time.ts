/** An instant as ISO-8601 with an explicit UTC offset (`2026-11-22T10:00:00.000+00:00`), as the spec's times are written. */
export const isoWithOffset = (instant: Date): string => instant.toISOString().replace(/Z$/, '+00:00');

/**
 * Unknown fields of a record read from outside (a feed line, a seed entry), found before its
 * field rules run, so that a misspelt field (`statuss`) is reported as what it is, with the
 * field it most likely meant, rather than as that field missing.
 */

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours) between two short names. */
const distance = (left: string, right: string): number => {
  const rows = Array.from({ length: left.length + 1 }, (_, row) => Array.from({ length: right.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)));
  for (let row = 1; row <= left.length; row += 1) {
    for (let column = 1; column <= right.length; column += 1) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      let best = Math.min(rows[row - 1]![column]! + 1, rows[row]![column - 1]! + 1, rows[row - 1]![column - 1]! + cost);
      if (row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1]) best = Math.min(best, rows[row - 2]![column - 2]! + 1);
      rows[row]![column] = best;
    }
  }
  return rows[left.length]![right.length]!;
};

/** Names longer than this are not compared (a hostile key costs nothing). */
const maxComparedLength = 64;

/**
 * The known name `name` most likely meant: the closest one by edit distance (case ignored), if
 * it is within 2 edits and within a third of the name's length; undefined otherwise.
 */
export const closestName = (name: string, known: Iterable<string>): string | undefined => {
  if (name.length > maxComparedLength) return undefined;
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const found = distance(lower, candidate.toLowerCase());
    if (!best || found < best.distance) best = { name: candidate, distance: found };
  }
  return best && best.distance <= Math.min(2, Math.ceil(name.length / 3)) ? best.name : undefined;
};

/**
 * The first own key of `record` that is not in `known`, with the known field it most likely
 * meant (a key such as `__proto__` or `constructor` is an unknown name like any other);
 * undefined when every key is known.
 */
export const firstUnknownField = (record: object, known: ReadonlySet<string>): { field: string; meant?: string } | undefined => {
  for (const field of Object.keys(record)) {
    if (known.has(field)) continue;
    const meant = closestName(field, known);
    return meant === undefined ? { field } : { field, meant };
  }
  return undefined;
};

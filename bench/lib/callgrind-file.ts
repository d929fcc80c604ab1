/**
 * Reading a callgrind output file (Valgrind's "callgrind format", one event: `Ir`), as far as
 * the benchmark needs it: the total, and the inclusive cost of the functions whose names match,
 * as `callgrind_annotate --inclusive=yes` reports them, without Perl.
 *
 * The format, as used here: `fn=(id) name` starts the costs of a function (`fn=(id)` alone
 * names one seen before; `cfn=` names share the same ids); a line that starts with a position
 * (`12`, `+3`, `-1`, `*`) holds a cost, the function's own, or, right after a `calls=` line,
 * the inclusive cost of that call.
 */

/** The event total of the file (`summary:` or `totals:`); undefined when it has neither. */
export const callgrindTotal = (text: string): number | undefined => {
  const found = /^(?:summary|totals):\s*(\d+)/m.exec(text);
  return found ? Number(found[1]) : undefined;
};

const positionLine = /^[-+*\d]/;

/**
 * The inclusive cost (its own plus that of every call it made) of the functions whose names
 * `matches` accepts, summed; 0 when none ran. A function that calls itself would be counted
 * twice: the functions asked about here do not.
 */
export const inclusiveCost = (text: string, matches: (name: string) => boolean): number => {
  const names = new Map<string, string>();
  /** `(id) name` or `(id)`: the name, remembering a new one. */
  const nameOf = (spec: string): string => {
    const compressed = /^\((\d+)\)(?:\s(.*))?$/.exec(spec);
    if (!compressed) return spec;
    const [, id, name] = compressed;
    if (name !== undefined) names.set(id!, name);
    return names.get(id!) ?? '';
  };
  let counting = false;
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) counting = matches(nameOf(line.slice(3)));
    else if (line.startsWith('cfn=')) nameOf(line.slice(4));
    else if (counting && positionLine.test(line)) total += Number(line.split(' ')[1] ?? 0);
  }
  return total;
};

/**
 * A stand-in for a value made in beforeAll, usable at a suite's top level before it exists: every
 * property read (methods bound) goes to the value `bind` gave it; before that, a read throws.
 * `what` names the value in that error.
 */
export const lateBound = <T extends object>(what: string): { value: T; bind(target: T | undefined): void } => {
  let target: T | undefined;
  const value = new Proxy({} as T, {
    get: (_, property) => {
      if (!target) throw new Error(`${what} is not started (it starts in beforeAll)`);
      const found = Reflect.get(target, property, target) as unknown;
      return typeof found === 'function' ? (found as (...args: unknown[]) => unknown).bind(target) : found;
    },
  });
  return { value, bind: (given) => (target = given) };
};

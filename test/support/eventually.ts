/**
 * The suite's one polling helper: calls `check` until it returns without throwing and resolves
 * to what it returned; once `timeoutMs` has passed it rethrows the last error, so an `expect`
 * inside says what was still wrong. Something not there yet is a throw too: `present(...)`.
 */
export const eventually = async <T>(check: () => Promise<T> | T, timeoutMs = 20_000, intervalMs = 50): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
};

/** `value` when it is there (not undefined); otherwise a throw, so that eventually polls again. */
export const present = <T>(value: T | undefined, what = 'the awaited value'): T => {
  if (value === undefined) throw new Error(`${what} is not there yet`);
  return value;
};

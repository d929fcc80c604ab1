/** Retries `check` until it stops throwing or `timeoutMs` passes (then rethrows its last error). */
export const eventually = async <T>(check: () => Promise<T> | T, timeoutMs = 10_000, intervalMs = 50): Promise<T> => {
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

/**
 * A bound on how many tasks run at once: `limit(task)` starts the task when fewer than `size`
 * run, else when one of them ends (first come, first served). The operator feed's consumer
 * bounds its SIM writes with one, so that a batch of five messages of 350 records holds a few
 * dozen requests in flight, not 1,750 (each with its serialised body and promise chain).
 */
export const concurrencyLimit = (size: number) => {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
};

import { logger } from '../shared/observability/logger';

/** What a runtime must undo when it stops, in the reverse order of its starting. */
export interface RuntimeCleanups {
  /** Adds one step to undo (a server to stop, a folder to remove, variables to restore). */
  add(cleanup: () => Promise<void> | void): void;
  /** Undoes every step added so far, the last first; a failed step is logged and the others still run. */
  runAll(): Promise<void>;
}

/** An empty list of cleanups (local/runtime.ts: each part it starts adds its own). */
export const runtimeCleanups = (): RuntimeCleanups => {
  const cleanups: Array<() => Promise<void> | void> = [];
  return {
    add: (cleanup) => {
      cleanups.push(cleanup);
    },
    runAll: async () => {
      for (const cleanup of cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          logger.error('local runtime stop failed', { component: 'local-runtime', error: String(error) });
        }
      }
    },
  };
};

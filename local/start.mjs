/**
 * The entry of `npm start` (`node local/start.mjs`): plain JavaScript, so its first lines
 * run as soon as Node has booted, before the TypeScript loader and the runtime's modules
 * are loaded (which takes a second or more). Until local/start.ts installs its own signal
 * handlers, SIGINT / SIGTERM / SIGHUP end the process at once with exit 0: nothing has been
 * started yet. Then the tsx loader is registered (what `node --import tsx` does) and
 * local/start.ts takes over. No wrapper process: signals reach this process directly.
 */
const exitBeforeStart = () => process.exit(0);
/** local/start.ts removes the listeners with this mark once its own are installed. */
exitBeforeStart.beforeStart = true;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, exitBeforeStart);
console.log('Starting the local runtime ...');
await import('tsx');
await import('./start.ts');

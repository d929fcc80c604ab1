/** A progress line of the benchmark on stderr, with the time of day (the report goes to stdout). */
export const benchLog = (line: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

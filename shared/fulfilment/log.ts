/** One JSON log line of fulfilment (CloudWatch Logs Insights reads the fields). */
export const logFulfilment = (level: 'INFO' | 'WARN' | 'ERROR', message: string, details: Record<string, unknown>): void => {
  const line = JSON.stringify({ level, message, ...details });
  if (level === 'ERROR') console.error(line);
  else if (level === 'WARN') console.warn(line);
  else console.log(line);
};

/** The name and message of a thrown value, for a log line. */
export const errorSummary = (error: unknown): { name?: string; message: string } =>
  error instanceof Error ? { name: error.name, message: error.message } : { message: String(error) };

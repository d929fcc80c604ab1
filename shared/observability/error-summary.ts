/** The name and message of a thrown value, without its stack: for a record stored in the table. */
export const errorSummary = (error: unknown): { name?: string; message: string } =>
  error instanceof Error ? { name: error.name, message: error.message } : { message: String(error) };

/** Resolves after `ms` milliseconds (the backoff between attempts of a conditional write or a read that lost). */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

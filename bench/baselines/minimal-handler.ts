/** Baseline of the bundle figures: the smallest possible Lambda handler (no dependency at all). */
export const handler = async (): Promise<{ statusCode: number; body: string }> => ({ statusCode: 200, body: '{}' });

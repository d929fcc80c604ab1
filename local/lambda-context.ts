import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** Region and account the local runtime pretends to run in (ARNs, request contexts). */
export const localRegion = 'eu-west-2';
export const localAccountId = '000000000000';

/** What a local invocation knows about the function it runs. */
export interface LocalFunction {
  /** Function name (the route or consumer name of the route table / queue definitions). */
  name: string;
  /** Lambda timeout in seconds (default 10, as in the stack). */
  timeoutSeconds?: number;
  /** Lambda memory in MB (default 1024, as in the stack). */
  memoryMb?: number;
}

/**
 * A Lambda-like invocation context: a fresh awsRequestId per invocation, the function's
 * name, memory and timeout, and getRemainingTimeInMillis counting down from now.
 */
export const lambdaContext = (fn: LocalFunction, awsRequestId: string = randomUUID()): Context => {
  const timeoutMs = (fn.timeoutSeconds ?? 10) * 1000;
  const deadline = Date.now() + timeoutMs;
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${localRegion}:${localAccountId}:function:${fn.name}`,
    memoryLimitInMB: String(fn.memoryMb ?? 1024),
    awsRequestId,
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: `${day}/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

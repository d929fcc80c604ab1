/**
 * A cold start as Lambda runs it, in one fresh `node` process (section 1, "cold import plus
 * first call"): the process imports a bundle, then invokes its handler once with an API
 * Gateway event and a Lambda context, and reports how long the import and the call took and
 * what the handler answered. Run plainly for its times (`coldCallOnce`) and once under
 * callgrind for its instructions (`countColdCallInstructions`, bench/lib/instructions.ts).
 *
 * The process gets the variables Lambda sets in every function (`lambdaVariables`) beside
 * the function's own, and no NODE_OPTIONS (the functions run without --enable-source-maps).
 * It exits as soon as it has written its answer (the SDK's keep-alive sockets would keep it
 * up): the handler's own work is over by then, as it is when Lambda freezes the sandbox. The
 * answer goes to a file of its own, not to stdout: writing to a pipe makes Node set up a stream,
 * about 20 M instructions in the minimal handler's process, whose count every function's is
 * taken from, and less in a process that has already set it up for its log lines, so the
 * function's share would read low (as its load share did: bench/sections/bundles/load-time.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countProcessInstructions } from './instructions';
import { runToClose } from './child-output';

/**
 * The child: argv[1] the bundle's URL, argv[2] the event (JSON), argv[3] the function
 * (name, memory, timeout, request id: JSON), argv[4] the file it writes its answer to: the
 * import and call times (performance.now, ms) and the answer's status and body (JSON).
 */
export const coldCallScript =
  'const [file, eventText, functionText, answerFile] = process.argv.slice(1);' +
  'const event = JSON.parse(eventText); const fn = JSON.parse(functionText);' +
  'const t0 = performance.now(); const m = await import(file); const t1 = performance.now();' +
  "if (typeof m.handler !== 'function') throw new Error('no handler export');" +
  'const deadline = Date.now() + fn.timeoutMs;' +
  'const context = { callbackWaitsForEmptyEventLoop: true, functionName: fn.name, functionVersion: "$LATEST",' +
  ' invokedFunctionArn: fn.arn, memoryLimitInMB: String(fn.memoryMb), awsRequestId: fn.requestId,' +
  ' logGroupName: "/aws/lambda/" + fn.name, logStreamName: fn.logStream,' +
  ' getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()), done() {}, fail() {}, succeed() {} };' +
  'const answer = await m.handler(event, context); const t2 = performance.now();' +
  'process.getBuiltinModule("node:fs").writeFileSync(answerFile, JSON.stringify({ importMs: t1 - t0, callMs: t2 - t1,' +
  ' status: answer?.statusCode ?? null, body: typeof answer?.body === "string" ? answer.body : null }));' +
  'process.exit(0);';

/** The function a cold call plays: its name (Lambda's variables, the context) and settings. */
export interface ColdFunction {
  name: string;
  memoryMb: number;
  timeoutSeconds: number;
}

/** What one cold process measured. */
export interface ColdCallSample {
  /** The bundle's import (ms). */
  importMs: number;
  /** The first invocation, from its start to its answer (ms). */
  callMs: number;
  /** The whole process seen from the parent: Node's start, import, call, exit (ms). */
  processMs: number;
  /** The answer's statusCode (null when it had none). */
  status: number | null;
  /** The answer's body. */
  body: string | null;
  /** What the process wrote to stdout, then to stderr: the handler's log lines. */
  output: string;
}

const region = 'eu-west-2';

/**
 * The variables the Lambda runtime sets in every Node.js function (besides the function's own
 * and the credentials), for the function `fn`: what the SDK, a logger or a tracer may read at
 * init (the execution environment, the function name, the task root, the trace header of the
 * invocation). Nothing listens on X-Ray's daemon port here: a tracer's UDP segments go nowhere.
 */
export const lambdaVariables = (fn: ColdFunction): Record<string, string> => ({
  AWS_REGION: region,
  AWS_DEFAULT_REGION: region,
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  AWS_LAMBDA_FUNCTION_NAME: fn.name,
  AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
  AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
  AWS_LAMBDA_LOG_STREAM_NAME: '2026/01/01/[$LATEST]00000000000000000000000000000000',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  LAMBDA_TASK_ROOT: '/var/task',
  LAMBDA_RUNTIME_DIR: '/var/runtime',
  _HANDLER: 'index.handler',
  // A sampled invocation (with active tracing, the first request of a second is sampled).
  _X_AMZN_TRACE_ID: 'Root=1-6b02563d-1746510f844ad41d0c91152a;Parent=53995c3f42cd8ad8;Sampled=1',
  TZ: ':UTC',
  LANG: 'en_US.UTF-8',
});

const functionArgument = (fn: ColdFunction): string =>
  JSON.stringify({
    name: fn.name,
    memoryMb: fn.memoryMb,
    timeoutMs: fn.timeoutSeconds * 1000,
    arn: `arn:aws:lambda:${region}:000000000000:function:${fn.name}`,
    requestId: randomUUID(),
    logStream: '2026/01/01/[$LATEST]00000000000000000000000000000000',
  });

/** Runs `child` with a fresh file for the child's answer, and reads the answer back (an error names `what` and what it logged last). */
const withAnswerFile = async <T extends { stdout: string }>(
  what: string,
  child: (answerFile: string) => Promise<T>,
): Promise<T & { answer: Omit<ColdCallSample, 'processMs' | 'output'> }> => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-cold-call-'));
  try {
    const ran = await child(join(dir, 'answer.json'));
    const text = await readFile(join(dir, 'answer.json'), 'utf8').catch(() => undefined);
    if (text === undefined) throw new Error(`${what} wrote no answer: ${ran.stdout.trim().split('\n').slice(-2).join(' ').slice(0, 400)}`);
    return { ...ran, answer: JSON.parse(text) as Omit<ColdCallSample, 'processMs' | 'output'> };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/**
 * One cold start of `file`: a fresh node process imports it and invokes its handler once with
 * `event`, in the environment `env` (PATH is added). Asynchronous, since what it calls (the
 * TLS front of DynamoDB Local, the SMS simulator) runs in this process. Rejects when the
 * process fails.
 */
export const coldCallOnce = async (file: string, event: unknown, fn: ColdFunction, env: Record<string, string>): Promise<ColdCallSample> => {
  const started = performance.now();
  const { stdout, stderr, answer } = await withAnswerFile(`cold call of ${fn.name}`, async (answerFile) => {
    const ran = await runToClose(
      process.execPath,
      ['--input-type=module', '-e', coldCallScript, pathToFileURL(file).href, JSON.stringify(event), functionArgument(fn), answerFile],
      { PATH: process.env.PATH ?? '', ...env },
    );
    if (ran.code !== 0) {
      throw new Error(`cold call of ${fn.name} failed (exit ${ran.code}): ${(ran.stderr || ran.stdout).trim().split('\n').slice(-3).join(' ').slice(0, 400)}`);
    }
    return ran;
  });
  return { ...answer, output: stdout + stderr, processMs: performance.now() - started };
};

/** The same cold start once under callgrind: the instructions of the whole process, and what the handler answered. */
export const countColdCallInstructions = async (
  file: string,
  event: unknown,
  fn: ColdFunction,
  env: Record<string, string>,
): Promise<{ instructions: number; status: number | null; body: string | null }> => {
  const { instructions, answer } = await withAnswerFile(`cold call of ${fn.name} under callgrind`, (answerFile) =>
    countProcessInstructions(coldCallScript, [pathToFileURL(file).href, JSON.stringify(event), functionArgument(fn), answerFile], {
      PATH: process.env.PATH ?? '',
      ...env,
    }),
  );
  return { instructions, status: answer.status, body: answer.body };
};

import type { SectionContext } from '../../lib/context';
import { coldCallOnce, countColdCallInstructions } from '../../lib/cold-call';
import { inBatches, instructionCounter } from '../../lib/instructions';
import { rememberCreated, type RequestState } from '../../lib/requests';
import type { ColdInvocation } from './cold-calls';
import { minimalName, type BundleFigure } from './figures';

/**
 * One cold process per subject under callgrind, two at a time. The invocations are made
 * first, each with what it names: the message the rounds sent last and, for a route that
 * reads or deletes a webhook subscription, a subscription of its own (made by a cold call of
 * create-webhook, not counted), so that their order does not matter.
 */
export const countColdCallInstructionsOf = async (
  context: SectionContext,
  subjects: BundleFigure[],
  invocation: (figure: BundleFigure, state: RequestState) => ColdInvocation | { skip: string },
  options: { enabled: boolean; sent: RequestState; namesSubscription: (figure: BundleFigure) => boolean },
): Promise<void> => {
  const counter: ReturnType<typeof instructionCounter> = options.enabled ? instructionCounter() : { available: false, reason: 'not counted (--no-instructions)' };
  if (!counter.available) {
    for (const figure of subjects) figure.coldCall!.note ??= counter.reason;
    return;
  }
  const creator = subjects.find((figure) => figure.name === 'create-webhook');
  const invocations: Array<ColdInvocation | { skip: string }> = [];
  for (const figure of subjects) {
    const own: RequestState = { ...(options.sent.messageId ? { messageId: options.sent.messageId } : {}) };
    if (creator && options.namesSubscription(figure)) {
      const create = invocation(creator, {});
      if (!('skip' in create)) {
        const answer = await coldCallOnce(create.file, create.event, create.fn, create.env).catch(() => undefined);
        if (answer) rememberCreated(own, { status: answer.status ?? 0, body: answer.body ?? '', headers: {}, ms: answer.callMs });
      }
    }
    invocations.push(invocation(figure, own));
  }
  context.log(`bundles: counting the instructions of ${subjects.length} cold calls (${counter.tool}, one process each, two at a time)`);
  const counted = await inBatches(
    invocations.map((next) => async () => {
      if ('skip' in next) throw new Error(next.skip);
      const answer = await countColdCallInstructions(next.file, next.event, next.fn, next.env);
      if (answer.status === null || !next.expected(answer.status)) {
        throw new Error(`answered ${answer.status} under callgrind: ${(answer.body ?? '').slice(0, 160)}`);
      }
      return answer.instructions;
    }),
    2,
  );
  const minimalIndex = subjects.findIndex((figure) => figure.name === minimalName);
  const minimalCount = minimalIndex === -1 ? undefined : counted[minimalIndex]!.value;
  for (const [index, figure] of subjects.entries()) {
    const cold = figure.coldCall!;
    const { value, error } = counted[index]!;
    if (value === undefined) {
      cold.note ??= `callgrind: ${error?.message ?? 'no count'}`;
      continue;
    }
    cold.processInstructions = value;
    if (minimalCount === undefined) {
      cold.note ??= "the minimal handler's cold process was not counted, so the import-and-call share is unknown";
      continue;
    }
    cold.coldInstructions = value - minimalCount;
    if (figure.loadInstructions !== undefined) cold.firstCallInstructions = cold.coldInstructions - figure.loadInstructions;
  }
};

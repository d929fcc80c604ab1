import type { SectionContext } from '../../lib/context';
import { kib, millions, round } from '../../lib/stats';
import { dynamoName, type BundleFigure } from './figures';

const describeBeyond = (figure: BundleFigure): string =>
  figure.beyondDynamoDb.length === 0
    ? ''
    : `beyond the DynamoDB-only bundle it carries ${figure.beyondDynamoDb
        .slice(0, 4)
        .map((entry) => `${entry.name} ${kib(entry.bytes)} KiB`)
        .join(', ')}`;

const heaviest = (figure: BundleFigure): string =>
  `heaviest: ${figure.topInputs.slice(0, 4).map((entry) => `${entry.name} ${kib(entry.bytes)} KiB`).join(', ')}`;

/**
 * The size and load factors each function is held to, relative to the DynamoDB-only
 * baseline (issue #7 for Area A, issue #11 for the others); undefined: no such target.
 */
const factorsFor = (figure: BundleFigure): { size?: { id: string; factor: number }; load?: number } => {
  // Issue #21: send-sms with the AWS End User Messaging client built at init, at most 1.3 × in load.
  if (figure.env?.SMS_PROVIDER === 'aws') return { load: 1.3 };
  if (figure.kind === 'route' && figure.group === 'developer') return { size: { id: 'bundle-size-vs-dynamodb', factor: 1.05 }, load: 1.15 };
  // Issue #11 replaced the checkouts' earlier cap (< 650 KiB) with these two.
  if (figure.checkout) return { size: { id: 'bundle-size-checkout', factor: 1.35 }, load: 1.25 };
  if (figure.webhook) return { size: { id: 'bundle-size-webhook', factor: 1.0 } };
  if (figure.fulfilment) return { load: 1.3 };
  return {};
};

/**
 * Issues #7, #11 and #21's targets of every measured function: size and load (time and
 * instructions) against the DynamoDB-only baseline, Area A's size cap, and no Stripe where
 * the function does not call it; a bundle not measured is a note.
 */
export const recordBundleTargets = (context: SectionContext, figures: BundleFigure[]): void => {
  const section = '1 bundles';
  const dynamo = figures.find((figure) => figure.name === dynamoName);
  const dynamoOk = dynamo !== undefined && !dynamo.error;
  for (const figure of figures) {
    if (figure.kind === 'baseline' || figure.kind === 'peer') continue;
    if (figure.error) {
      context.notes.push(`Bundle of ${figure.name} not measured: ${figure.error}.`);
      continue;
    }
    const { size, load } = factorsFor(figure);
    const evidence = figure.checkout ? heaviest(figure) : describeBeyond(figure);
    if (size) {
      if (dynamoOk) {
        const limit = dynamo.bytes * size.factor;
        context.targets.check({
          section, id: size.id, subject: figure.name,
          target: `≤ ${size.factor} × DynamoDB-only = ${kib(limit)} KiB`, actual: `${kib(figure.bytes)} KiB (${round(figure.bytes / dynamo.bytes, 3)} ×)`,
          met: figure.bytes <= limit, evidence,
        });
      } else {
        context.targets.skip({ section, id: size.id, subject: figure.name, target: `≤ ${size.factor} × DynamoDB-only`, reason: 'the baseline could not be built' });
      }
    }
    if (load !== undefined) {
      if (dynamoOk) {
        const limit = dynamo.loadMs * load;
        context.targets.check({
          section, id: 'load-vs-dynamodb', subject: figure.name,
          target: `≤ ${load} × DynamoDB-only = ${round(limit, 1)} ms`, actual: `${figure.loadMs} ms (${round(figure.loadMs / dynamo.loadMs, 3)} ×)`,
          met: figure.loadMs <= limit, evidence,
        });
      } else {
        context.targets.skip({ section, id: 'load-vs-dynamodb', subject: figure.name, target: `≤ ${load} × DynamoDB-only`, reason: 'the baseline could not be built' });
      }
      // The same factor on the instructions of the import, which a busy machine hardly changes.
      const wanted = `≤ ${load} × DynamoDB-only's instructions`;
      if (figure.loadInstructions !== undefined && dynamo?.loadInstructions !== undefined) {
        const ratio = figure.loadInstructions / dynamo.loadInstructions;
        context.targets.check({
          section, id: 'load-instructions-vs-dynamodb', subject: figure.name,
          target: `${wanted} = ${millions(dynamo.loadInstructions * load)} M`, actual: `${millions(figure.loadInstructions)} M (${round(ratio, 3)} ×)`,
          met: ratio <= load, evidence,
        });
      } else {
        const reason = figure.instructionsNote ?? dynamo?.instructionsNote ?? 'the DynamoDB-only baseline was not counted';
        context.targets.skip({ section, id: 'load-instructions-vs-dynamodb', subject: figure.name, target: wanted, reason });
      }
    }
    if (figure.kind === 'route' && figure.group === 'developer' && !figure.env) {
      context.targets.check({
        section, id: 'bundle-size-cap', subject: figure.name, target: '< 350 KiB', actual: `${kib(figure.bytes)} KiB`,
        met: figure.bytes < 350 * 1024, evidence,
      });
    }
    if (figure.kind === 'route' && !figure.callsStripe && !figure.env) {
      context.targets.check({
        section, id: 'no-stripe', subject: figure.name, target: 'no node_modules/stripe input', actual: figure.containsStripe ? 'contains stripe' : 'no stripe',
        met: !figure.containsStripe,
      });
    }
  }
};

import { knownCauses } from '../causes';

/** The outcome of one target: met, missed, or not measured (with the reason). */
export type TargetStatus = 'PASS' | 'MISS' | 'SKIP';

/** One target of issue #7 as measured in this run. */
export interface TargetResult {
  /** Section number and name, e.g. `1 bundles`. */
  section: string;
  /** Stable id of the target, e.g. `bundle-size-vs-dynamodb`. */
  id: string;
  /** What it applies to: a route or consumer name, a list case, or the service. */
  subject: string;
  /** The target in words with its figure, e.g. `≤ 1.05 × DynamoDB-only = 245.1 KiB`. */
  target: string;
  /** What was measured. */
  actual: string;
  status: TargetStatus;
  /** Missed: what this run measured that shows where the cost is. Skipped: why. */
  evidence?: string;
  /** Missed: the known causes (bench/causes.ts): the target's general one, then its subject's own. */
  causes?: string[];
}

/** Collects the targets of a run. */
export class Targets {
  readonly results: TargetResult[] = [];

  /** Records a target: PASS when `met`, else MISS with `evidence` and any known cause. */
  check(entry: Omit<TargetResult, 'status' | 'causes' | 'evidence'> & { met: boolean; evidence?: string }): void {
    const { met, evidence, ...rest } = entry;
    if (met) {
      this.results.push({ ...rest, status: 'PASS' });
      return;
    }
    const causes = causesFor(rest.id, rest.subject);
    this.results.push({ ...rest, status: 'MISS', ...(evidence ? { evidence } : {}), ...(causes.length > 0 ? { causes } : {}) });
  }

  /** Records a target that could not be measured, and why. */
  skip(entry: Omit<TargetResult, 'status' | 'causes' | 'evidence' | 'actual'> & { reason: string }): void {
    const { reason, ...rest } = entry;
    this.results.push({ ...rest, actual: '—', status: 'SKIP', evidence: reason });
  }
}

/** The known causes of a missed target (bench/causes.ts): the general one first, then the subject's. */
export const causesFor = (id: string, subject: string): string[] => [
  ...knownCauses.filter((known) => known.id === id && known.subject === undefined).map((known) => known.cause),
  ...knownCauses.filter((known) => known.id === id && known.subject === subject).map((known) => `(${subject}) ${known.cause}`),
];

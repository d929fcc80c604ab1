import { afterAll, afterEach } from 'vitest';
import { takeContractViolations } from './contract';

/**
 * vitest setup of both projects: fails the test during which the local gateway answered
 * something docs/openapi.json does not describe (test/support/contract.ts), and the file when
 * that happened in a beforeAll or afterAll.
 */
const failOnViolations = (): void => {
  const violations = takeContractViolations();
  if (violations.length > 0) {
    throw new Error(`answers that docs/openapi.json does not describe (test/support/contract.ts):\n${violations.join('\n')}`);
  }
};

afterEach(failOnViolations);
afterAll(failOnViolations);

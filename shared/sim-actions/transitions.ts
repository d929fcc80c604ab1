/**
 * The SIM actions of issue #33 and the status moves they ask the operator for, from the SIM
 * statuses of the specification. Looked up as data (a Map): an action named `constructor` is no
 * action.
 */

/** The actions a developer may ask for, in the documentation's order. */
export const simActions = ['activate', 'suspend', 'resume', 'terminate'] as const;

/** One action. */
export type SimAction = (typeof simActions)[number];

/** An action's move: the statuses it may start from and the status it asks for. */
interface Move {
  /** The SIM statuses the action is allowed from; undefined: any status but the target. */
  from?: readonly string[];
  target: string;
}

const moves = new Map<SimAction, Move>([
  ['activate', { from: ['stock', 'dispatched', 'trial', 'inactive'], target: 'active' }],
  ['suspend', { from: ['active', 'trial'], target: 'suspended' }],
  ['resume', { from: ['suspended'], target: 'active' }],
  // From any status but cancelled (termination is for good).
  ['terminate', { target: 'cancelled' }],
]);

/** The status an action brings the SIM to. */
export const targetStatusOf = (action: SimAction): string => moves.get(action)!.target;

/** Whether `action` may be asked for a SIM whose status is `status`. */
export const isAllowedFrom = (action: SimAction, status: string): boolean => {
  const move = moves.get(action)!;
  return move.from ? move.from.includes(status) : status !== move.target;
};

/** The statuses an action is allowed from, in words (for the 409's detail). */
export const allowedFromInWords = (action: SimAction): string => {
  const move = moves.get(action)!;
  return move.from ? move.from.join(', ') : `any status but ${move.target}`;
};

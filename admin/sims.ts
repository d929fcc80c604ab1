import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { AdminError } from '../shared/auth/admin';
import { key } from '../shared/db/keys';
import { rebuildListIndex } from '../shared/sim-lists/rebuild';
import { changeSim, parseSimChange, SimChangeRefused } from '../shared/sims/change-sim';
import { readSimByIccid } from '../shared/sims/sim-by-iccid';
import { removeSim } from '../shared/sims/sim-writes';
import { topLevelCustomers } from '../local/scan-items';
import { UsageError, type AdminCommand } from './command';
import { progressBar } from './progress-bar';

/** The admin commands on SIMs: their lifecycle (issue #15) and the list index at fleet scale (issue #19). */
export const simCommands: Record<string, AdminCommand> = {};

// --- Lifecycle events (issue #15) ------------------------------------------------------------
/**
 * `set-sim ICCID [--status STATUS] [--data-used-mb MB] [--customer CUSTOMER_ID]`: changes a SIM
 * through the SIM write path (shared/sims/change-sim.ts), against any table, a deployed one
 * included; the table's stream then keeps the lists exact and makes line.activated /
 * line.suspended / usage.updated for the webhook subscribers.
 */
simCommands['set-sim'] = async (deps, argument, options, io) => {
  if (!argument) throw new UsageError('set-sim needs ICCID');
  try {
    const change = parseSimChange(
      {
        ...(options.status !== undefined ? { status: options.status } : {}),
        ...(options.dataUsedMb !== undefined ? { data_used_mb: options.dataUsedMb } : {}),
        ...(options.customer !== undefined ? { customer: options.customer } : {}),
      },
      { owner: true },
    );
    const sim = await changeSim(deps, argument, change, Date.now());
    io.out(`SIM ${sim.iccid}: status ${sim.status}, data_used_mb ${sim.data_used_mb}${change.customer ? `, customer ${sim.customer_id}` : ''}`);
  } catch (error) {
    if (error instanceof SimChangeRefused) throw new AdminError(error.message);
    throw error;
  }
};

/** `remove-sim ICCID`: removes a SIM through the SIM write path; its list entries follow from the stream. */
simCommands['remove-sim'] = async (deps, argument, _options, io) => {
  if (!argument) throw new UsageError('remove-sim needs ICCID');
  const sim = await readSimByIccid(deps, argument);
  if (!sim || !(await removeSim(deps, sim.id))) throw new AdminError(`no SIM with ICCID ${argument}`);
  io.out(`Removed SIM ${argument} (id ${sim.id})`);
};

// --- SIM lists at fleet scale (issue #19) ----------------------------------------------------
/**
 * `rebuild-list-index [--customer GROUP_ID]`: builds the list index (shared/sim-lists) of one
 * customer group, or of every top-level group, of a table filled by an earlier version, with a
 * progress bar; a group already on the index is left alone, and a stopped run goes on where it
 * stopped. The maintain-sim-lists stream consumer must be running (it counts the SIMs the
 * rebuild marks). docs/deploy.md says when to run it.
 */
simCommands['rebuild-list-index'] = async (deps, _argument, options, io) => {
  const groups = options.customer ? [options.customer] : await topLevelCustomers(deps);
  if (options.customer) {
    const found = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key.customer(options.customer) }));
    if (found.Item?.type !== 'customer') throw new AdminError(`no customer with id ${options.customer}`);
    if (found.Item.parent !== null) throw new AdminError(`${options.customer} is not a top-level customer group (its group is ${String((found.Item.path as string[])[0])})`);
  }
  for (const groupId of groups) {
    const bar = progressBar(io);
    const outcome = await rebuildListIndex(deps, groupId, { onProgress: bar.update, onWarning: (message) => io.err(`Warning: ${message}`) });
    bar.done();
    io.out(outcome === 'ready' ? `List index of ${groupId}: ready` : `List index of ${groupId}: already ready`);
  }
};

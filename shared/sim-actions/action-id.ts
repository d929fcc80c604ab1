/**
 * The shape of a SIM action id (issue #33): `act_`, 12 hexadecimal digits of the request's epoch
 * milliseconds and 16 random ones, so ids sort by time. In a module of its own (it imports
 * nothing): the operator feed reads it for `action_id` without the actions' schemas.
 */
export const actionIdPattern = /^act_[0-9a-f]{28}$/;

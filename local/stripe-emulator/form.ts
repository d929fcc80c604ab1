/**
 * Stripe's form encoding, read the way Stripe's API reads it: `application/x-www-form-urlencoded`
 * (or a query string) whose names use the bracket syntax for nested values:
 * `metadata[order_id]=o-1` is `{metadata: {order_id: 'o-1'}}`, `payment_method_types[]=card` and
 * `payment_method_types[0]=card` are `{payment_method_types: ['card']}`.
 */

/** A decoded parameter: a string, a list of them, or an object of them. */
export type FormValue = string | FormValue[] | { [name: string]: FormValue };

/** A decoded form. */
export type Form = { [name: string]: FormValue };

/** A name that is not Stripe's bracket syntax (`a[b`, `[x]`): answered as an invalid parameter. */
export class FormSyntaxError extends Error {
  constructor(readonly param: string) {
    super(`Invalid parameter name: ${param}`);
  }
}

const splitName = (name: string): string[] => {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match) throw new FormSyntaxError(name);
  const parts = [match[1]!];
  for (const inner of match[2]!.matchAll(/\[([^[\]]*)\]/g)) parts.push(inner[1]!);
  return parts;
};

/**
 * An object of the decoded form: without a prototype, so that a name such as `__proto__[x]` or
 * `constructor` is an ordinary parameter (never Object.prototype, never its members).
 */
const formObject = (): Form => Object.create(null) as Form;

/** The largest list index a name may give (`items[9999]`): a larger one would make a list of that length. */
const maxListIndex = 9_999;

/**
 * Decodes a form body or query string into nested parameters (later duplicates win, as in
 * Stripe). Objects have no prototype (formObject); a list index above 9,999 is a syntax error.
 */
export const decodeStripeForm = (text: string): Form => {
  const root = formObject();
  for (const [name, value] of new URLSearchParams(text)) {
    const parts = splitName(name);
    let node: Form | FormValue[] = root;
    for (let index = 0; index < parts.length; index += 1) {
      const part = parts[index]!;
      const last = index === parts.length - 1;
      const nextIsList = !last && (parts[index + 1] === '' || /^\d+$/.test(parts[index + 1]!));
      if (Array.isArray(node)) {
        const position = part === '' ? node.length : Number(part);
        if (!Number.isSafeInteger(position) || position > maxListIndex) throw new FormSyntaxError(name);
        if (last) node[position] = value;
        else node = (node[position] ??= nextIsList ? [] : formObject()) as Form | FormValue[];
      } else {
        if (last) node[part] = value;
        else {
          const existing = node[part];
          node = (existing !== undefined && typeof existing === 'object' ? existing : (node[part] = nextIsList ? [] : formObject())) as Form | FormValue[];
        }
      }
    }
  }
  return root;
};

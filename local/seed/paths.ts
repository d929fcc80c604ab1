/** A customer as far as the tree is concerned. */
export interface TreeNode {
  id: string;
  parent: string | null;
}

/**
 * Each customer's path, ids from its top-level group down to itself. A customer whose
 * ancestry is broken (a missing parent or a cycle) has no path.
 */
export const customerPaths = (customers: readonly TreeNode[]): Map<string, string[]> => {
  const parents = new Map(customers.map((customer) => [customer.id, customer.parent]));
  const paths = new Map<string, string[]>();
  for (const { id } of customers) {
    const path: string[] = [];
    const seen = new Set<string>();
    let current: string | null | undefined = id;
    while (current !== null && current !== undefined && parents.has(current) && !seen.has(current)) {
      seen.add(current);
      path.unshift(current);
      current = parents.get(current);
    }
    if (current === null) paths.set(id, path);
  }
  return paths;
};

// Which operation of the description a request names, whatever prefix the target serves the API under.
import type { Contract, OperationId } from '../judge/index.ts';

/** Which operation a method and path name: one pattern per operation, compiled once. */
export class OperationIndex {
  readonly #byMethod = new Map<string, Array<[RegExp, OperationId]>>();

  constructor(contract: Contract) {
    for (const op of contract.operations.values()) {
      const pattern = op.path
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\\?\{[^}]+\\?\}/g, '[^/]+')
        .replace(/[{}]/g, '');
      const list = this.#byMethod.get(op.method) ?? [];
      list.push([new RegExp(`^(?:/[^?]*)?${pattern}/?$`), op.operationId]);
      this.#byMethod.set(op.method, list);
    }
  }

  /** The operation a request names: its method and a path that ends in one of the description's paths (any prefix, such as /v1). */
  of(method: string, path: string): OperationId | undefined {
    for (const [pattern, id] of this.#byMethod.get(method.toUpperCase()) ?? []) if (pattern.test(path)) return id;
    return undefined;
  }
}

/** The operation a request names (see OperationIndex; build one index to ask many times). */
export function operationOf(contract: Contract, method: string, path: string): OperationId | undefined {
  return new OperationIndex(contract).of(method, path);
}

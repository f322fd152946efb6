/**
 * The cheap iterative pre-pass both protocols run before any schema sees a request
 * (shared/protocol/a2a/bounds.ts, shared/protocol/synapse/bounds.ts): nesting, list and map sizes and
 * non-finite numbers, found without recursion whatever the input, one look at each value, stopping at
 * the first violation. Each protocol gives its own limits; the walk and the error shapes are shared.
 */
import { clip } from './text.ts';

export interface BoundsLimits {
  /** Values may nest this many levels below the root. */
  maxDepth: number;
  maxArrayItems: number;
  /** Objects' keys; unbounded when absent. */
  maxObjectKeys?: number;
  /** What a non-finite number is told. */
  nonFinite: string;
}

export interface BoundsViolation {
  path: PropertyKey[];
  description: string;
}

/** `a.b[0].c` from path segments, each key clipped to `maxKey`, the whole to `maxPath`; `root` when empty. */
export function formatPath(
  path: readonly PropertyKey[],
  root: string,
  maxKey: number,
  maxPath: number,
): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = clip(String(seg), maxKey);
      out += out === '' ? key : `.${key}`;
    }
    if (out.length > maxPath) break;
  }
  return out === '' ? root : clip(out, maxPath);
}

interface Node {
  value: unknown;
  key: PropertyKey | undefined;
  parent: Node | undefined;
  depth: number;
}

const pathOf = (node: Node): PropertyKey[] => {
  const path: PropertyKey[] = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) path.push(n.key);
  return path.reverse();
};

/** The first place where `root` exceeds `limits`, or undefined. */
export function findBoundsViolation(root: unknown, limits: BoundsLimits): BoundsViolation | undefined {
  const stack: Node[] = [{ value: root, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const { value, depth } = node;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path: pathOf(node), description: limits.nonFinite };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const isArray = Array.isArray(value);
    const keys = isArray ? undefined : Object.keys(value);
    const size = isArray ? value.length : (keys as string[]).length;
    if (size === 0) continue;
    if (isArray && size > limits.maxArrayItems) {
      return {
        path: pathOf(node),
        description: `has ${size} items; at most ${limits.maxArrayItems} are accepted`,
      };
    }
    if (!isArray && limits.maxObjectKeys !== undefined && size > limits.maxObjectKeys) {
      return {
        path: pathOf(node),
        description: `has ${size} keys; at most ${limits.maxObjectKeys} are accepted`,
      };
    }
    if (depth >= limits.maxDepth) {
      return { path: pathOf(node), description: `nests values deeper than ${limits.maxDepth} levels` };
    }
    if (isArray) {
      for (let i = size - 1; i >= 0; i--)
        stack.push({ value: value[i], key: i, parent: node, depth: depth + 1 });
    } else {
      const record = value as Record<string, unknown>;
      for (let i = size - 1; i >= 0; i--) {
        const key = (keys as string[])[i] as string;
        stack.push({ value: record[key], key, parent: node, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

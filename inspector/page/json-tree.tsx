/** A JSON value as a collapsible tree (<details>/<summary>): text only, never HTML. */
import type { JSX } from 'preact';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';

function Leaf({ value }: { value: unknown }): JSX.Element {
  if (value === null) return <span class="j-null">null</span>;
  switch (typeof value) {
    case 'string':
      return <span class="j-str">{JSON.stringify(value)}</span>;
    case 'number':
      return <span class="j-num">{String(value)}</span>;
    case 'boolean':
      return <span class="j-bool">{String(value)}</span>;
    default:
      return <span class="j-null">{String(value)}</span>;
  }
}

function Node({ name, value, depth, open }: { name?: string; value: unknown; depth: number; open: number }) {
  const key = name !== undefined ? <span class="j-key">{name}: </span> : null;
  if (!isObj(value))
    return (
      <div class="j-row">
        {key}
        <Leaf value={value} />
      </div>
    );
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const brackets = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0)
    return (
      <div class="j-row">
        {key}
        <span class="j-punct">{brackets.join('')}</span>
      </div>
    );
  return (
    <details class="j-node" open={depth < open}>
      <summary>
        {key}
        <span class="j-punct">
          {brackets[0]} {entries.length} {Array.isArray(value) ? 'item' : 'key'}
          {entries.length === 1 ? '' : 's'} {brackets[1]}
        </span>
      </summary>
      <div class="j-children">
        {entries.map(([k, v]) => (
          <Node key={k} name={k} value={v} depth={depth + 1} open={open} />
        ))}
      </div>
    </details>
  );
}

/** `open`: how many levels start expanded. */
export function JsonTree({ value, open = 1, label }: { value: unknown; open?: number; label?: string }) {
  return (
    <div class="json-tree" title={label ?? 'JSON'}>
      <Node value={value} depth={0} open={open} />
    </div>
  );
}

/**
 * DynamoDB's item size, from the plain (document client) form of an item,
 * following the sizing rules DynamoDB bills by: attribute names count, strings
 * are UTF-8 bytes, a number is about one byte per two significant digits plus
 * one, a list or map costs 3 bytes plus one byte per element. The store uses
 * it to keep a task's item inside one write unit, and the usage recorder to
 * charge a failed conditional write as DynamoDB does.
 */

/** A write unit covers 1 KB of item. */
export const WRITE_UNIT_BYTES = 1024;
/** A strongly consistent read costs one read unit per 4 KB of item. */
export const READ_UNIT_BYTES = 4 * 1024;

const numberSize = (n: number): number => {
  const digits = String(Math.abs(n))
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
};

/** Size of one attribute value (without its name). */
export const valueSize = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return numberSize(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let size = 0;
    for (const v of value) size += valueSize(v);
    return size;
  }
  if (Array.isArray(value)) {
    let size = 3;
    for (const v of value) if (v !== undefined) size += valueSize(v) + 1;
    return size;
  }
  if (typeof value === 'object') {
    let size = 3;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      size += Buffer.byteLength(k, 'utf8') + valueSize(v) + 1;
    }
    return size;
  }
  return Buffer.byteLength(String(value), 'utf8');
};

/** Size of an item: the sum over its attributes of name and value. */
export const itemSize = (item: Record<string, unknown>): number => {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    size += Buffer.byteLength(name, 'utf8') + valueSize(value);
  }
  return size;
};

/** Write units a write of an item this size consumes. */
export const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));

/**
 * What the in-memory twins keep of a value: its JSON form, as the DynamoDB and SQS adapters keep theirs
 * (JSON text, undefined fields dropped). A copy in, a copy out: a caller that changes what it handed over,
 * or what it got back, changes nothing stored.
 */
export const stored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

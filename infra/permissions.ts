/**
 * The DynamoDB actions the functions use, granted on the table and only the
 * indexes a function queries (explicit index ARNs, no `index/*` wildcard).
 * No Scan: the store never scans. It reads with GetItem, BatchGetItem (payload
 * bodies, listed tasks) and Query, and writes with PutItem (conditional, one
 * per transition) and BatchWriteItem (bodies and history chunks put before it).
 */

import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AUTH_PARTITION } from '../shared/adapters/dynamodb/auth-store.ts';
import { TASK_TABLE } from '../shared/adapters/dynamodb/table.ts';

export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

export const TABLE_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:BatchWriteItem'] as const;

/** Every index of the table (local and global). */
export const ALL_INDEXES: readonly string[] = [...TASK_TABLE.localIndexes, ...TASK_TABLE.globalIndexes].map(
  (i) => i.name,
);

export interface TableGrantOptions {
  /** Indexes the grantee queries (default: all). */
  indexes?: readonly string[];
}

/** Read (table + listed indexes) and write (table) access to the task table. */
export const grantTableReadWrite = (
  table: ITableV2,
  grantee: iam.IGrantable,
  options: TableGrantOptions = {},
): iam.Grant[] => [
  grantTableRead(table, grantee, options),
  iam.Grant.addToPrincipal({ grantee, actions: [...TABLE_WRITE_ACTIONS], resourceArns: [table.tableArn] }),
];

/** Read access (table + listed indexes) to the task table, and no write. */
export const grantTableRead = (
  table: ITableV2,
  grantee: iam.IGrantable,
  options: TableGrantOptions = {},
): iam.Grant => {
  const indexes = options.indexes ?? ALL_INDEXES;
  for (const name of indexes) {
    if (!ALL_INDEXES.includes(name)) throw new Error(`unknown index ${name}`);
  }
  return iam.Grant.addToPrincipal({
    grantee,
    actions: [...TABLE_READ_ACTIONS],
    resourceArns: [table.tableArn, ...indexes.map((name) => `${table.tableArn}/index/${name}`)],
  });
};

/** What the authorizer does with the table: one strongly consistent GetItem per verdict. */
export const AUTH_DIRECTORY_READ_ACTIONS = ['dynamodb:GetItem'] as const;

/**
 * Read access to the auth directory alone (API keys and registered tenants, `pk = AUTH#`,
 * shared/adapters/dynamodb/auth-store.ts): GetItem on the table, no index, and only on items whose
 * partition key is that partition (`dynamodb:LeadingKeys`), so the authorizer reads no task.
 */
export const grantAuthDirectoryRead = (table: ITableV2, grantee: iam.IGrantable): iam.Grant =>
  iam.Grant.addToPrincipal({
    grantee,
    actions: [...AUTH_DIRECTORY_READ_ACTIONS],
    resourceArns: [table.tableArn],
    conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [AUTH_PARTITION] } },
  });

/**
 * The task table: one DynamoDB TableV2 built from `TASK_TABLE` (the single
 * definition the local runtime and the tests use too), with its stream (new
 * and old images) feeding the relay.
 *
 * The construct id names the layout: store v2 (docs/storage.md) is a new
 * table; a v1 table of an earlier deployment is retained, not migrated.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { type IndexDefinition, TASK_TABLE } from '../../shared/adapters/dynamodb/table.ts';

export interface DataProps {
  /** Refuse `DeleteTable` (default true). */
  deletionProtection?: boolean;
  /** What CloudFormation does with the table when it leaves the stack (default RETAIN). */
  removalPolicy?: RemovalPolicy;
}

const key = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });

const projection = (
  p: IndexDefinition['projection'],
): { projectionType: dynamodb.ProjectionType; nonKeyAttributes?: string[] } =>
  p === 'ALL'
    ? { projectionType: dynamodb.ProjectionType.ALL }
    : p === 'KEYS_ONLY'
      ? { projectionType: dynamodb.ProjectionType.KEYS_ONLY }
      : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...p.include] };

export class Data extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: DataProps = {}) {
    super(scope, id);
    this.table = new dynamodb.TableV2(this, 'TasksV2', {
      partitionKey: key(TASK_TABLE.partitionKey),
      sortKey: key(TASK_TABLE.sortKey),
      billing: dynamodb.Billing.onDemand(),
      timeToLiveAttribute: TASK_TABLE.ttlAttribute,
      dynamoStream: dynamodb.StreamViewType[TASK_TABLE.stream],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      localSecondaryIndexes: TASK_TABLE.localIndexes.map((i) => {
        if (i.partitionKey !== TASK_TABLE.partitionKey) {
          throw new Error(`local index ${i.name} must use the table's partition key`);
        }
        return { indexName: i.name, sortKey: key(i.sortKey), ...projection(i.projection) };
      }),
      globalSecondaryIndexes: TASK_TABLE.globalIndexes.map((i) => ({
        indexName: i.name,
        partitionKey: key(i.partitionKey),
        sortKey: key(i.sortKey),
        ...projection(i.projection),
      })),
    });
  }
}

/**
 * CloudWatch dashboard and alarms for the hub.
 *
 * Dashboard: API requests / 4xx / 5xx and latency; per-function errors,
 * throttles and duration; DynamoDB throttling and the custom ConflictsLost
 * metric (and the other task metrics); heartbeats lost; push deliveries
 * (delivered, retried, failed, latency p50/p99, the delivery DLQ); queue age of the
 * oldest message and DLQ depth (the heartbeat queue's among them); alarm status.
 * Alarms: API 5xx rate, each function's errors (but the authorizer's, see `errorsAreRefusals`), each DLQ not empty, each
 * queue's oldest message age. Actions go to an SNS topic: the one passed in,
 * or one created for `alarmEmail`; with neither, alarms only show in the console.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DEFAULT_SERVICE_NAME,
  METRICS_NAMESPACE,
  MetricDimension,
  MetricName,
} from '../../shared/observability/names.ts';
import { acknowledge } from './nag.ts';
import { pascal, type QueueRef } from './queues.ts';

export interface MonitoringProps {
  restApi: apigateway.RestApi;
  /** By logical name (`jsonrpc`, `executor`, …). */
  functions: Record<string, lambda.IFunction>;
  /**
   * Functions (by logical name) whose Errors metric counts refused requests, not failures: the
   * authorizer answers a credential that does not verify by throwing `Unauthorized` (API Gateway's
   * convention for its 401), so every bad token is a Lambda error. They get no Errors alarm (they stay on
   * the dashboard); a real failure of theirs reaches the client as a 500 (AUTHORIZER_FAILURE), which the
   * API 5xx alarm watches.
   */
  errorsAreRefusals?: readonly string[];
  table: dynamodb.ITableV2;
  queues: readonly QueueRef[];
  /** The stream relay's on-failure destination and the relay itself (stream lag). */
  relayFailures?: sqs.IQueue;
  relay?: lambda.IFunction;
  /** The push delivery queue: its dashboard row (deliveries, retries, failures, latency, DLQ). */
  deliveries?: QueueRef;
  /** How far behind the table's stream the relay may fall before it alarms (default 5 minutes). */
  relayLag?: Duration;
  /** `service` dimension of the custom metrics (POWERTOOLS_SERVICE_NAME). */
  serviceName?: string;
  /** Existing topic for alarm notifications. */
  alarmTopic?: sns.ITopic;
  /** Creates a topic with this e-mail subscription (ignored when `alarmTopic` is given). */
  alarmEmail?: string;
  /** Fraction of requests answered 5xx that raises the alarm (default 0.05). */
  apiServerErrorRate?: number;
  /** Age of the oldest message that raises the alarm (default: the queue's visibility timeout). */
  oldestMessageAge?: Duration;
  dashboardName?: string;
}

const FIVE_MINUTES = Duration.minutes(5);
const ONE_MINUTE = Duration.minutes(1);

/** How old the last record a stream-fed function read was when it read it. */
const iteratorAge = (fn: lambda.IFunction): cloudwatch.Metric =>
  fn.metric('IteratorAge', { statistic: 'Maximum', period: ONE_MINUTE });

/** A per-minute sum of one of the hub's custom metrics (shared/observability/names.ts). */
const customMetric = (
  service: string,
  metricName: MetricName,
  label: string = metricName,
): cloudwatch.Metric =>
  new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { [MetricDimension.Service]: service },
    statistic: 'Sum',
    period: ONE_MINUTE,
    label,
  });

/** An alarm on one data point at or above `threshold`; no data is no breach. */
const atLeast = (
  threshold: number,
  metric: cloudwatch.IMetric,
  alarmDescription: string,
): cloudwatch.AlarmProps => ({
  alarmDescription,
  metric,
  threshold,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  evaluationPeriods: 1,
  treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
});

export class Monitoring extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarms: cloudwatch.Alarm[] = [];
  /** The API's 5xx rate: the hub failing its callers. */
  readonly apiServerErrors: cloudwatch.Alarm;
  /** Work lost after the retries: each dead-letter queue not empty, the relay's failures queue not empty. */
  readonly lostWork: cloudwatch.Alarm[] = [];
  readonly alarmTopic?: sns.ITopic;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const service = props.serviceName ?? DEFAULT_SERVICE_NAME;
    // one metric for the relay's alarm and its dashboard row
    const relayLag = props.relay ? iteratorAge(props.relay) : undefined;

    this.alarmTopic = this.alarmTopicOf(props);
    // the alarms come first: the dashboard's last row shows them all
    this.apiServerErrors = this.alarmOnApi(props);
    this.alarmOnFunctions(props);
    this.alarmOnQueues(props);
    this.alarmOnRelay(props, relayLag);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      ...(props.dashboardName ? { dashboardName: props.dashboardName } : {}),
      defaultInterval: Duration.hours(3),
    });
    this.addDashboardRows(props, service, relayLag);
  }

  /** The topic passed in, or one created for `alarmEmail`; with neither, none. */
  private alarmTopicOf(props: MonitoringProps): sns.ITopic | undefined {
    if (props.alarmTopic) return props.alarmTopic;
    if (!props.alarmEmail) return undefined;
    const topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'Synapse alarms', enforceSSL: true });
    topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    acknowledge(topic, [
      {
        id: 'AwsSolutions-SNS2',
        reason:
          'Alarm notifications carry alarm names and states only, no task data. CloudWatch cannot publish to a ' +
          'topic encrypted with the AWS-managed SNS key; pass `alarmTopic` to use your own KMS-encrypted topic.',
      },
    ]);
    return topic;
  }

  /** An alarm whose state changes go to the alarm topic (when there is one). */
  private alarm(id: string, props: cloudwatch.AlarmProps): cloudwatch.Alarm {
    const a = new cloudwatch.Alarm(this, id, props);
    if (this.alarmTopic) {
      a.addAlarmAction(new actions.SnsAction(this.alarmTopic));
      a.addOkAction(new actions.SnsAction(this.alarmTopic));
    }
    this.alarms.push(a);
    return a;
  }

  private alarmOnApi(props: MonitoringProps): cloudwatch.Alarm {
    return this.alarm('Api5xxRate', {
      alarmDescription: 'Synapse API: share of requests answered with 5xx is too high',
      metric: props.restApi.metricServerError({ statistic: 'Average', period: FIVE_MINUTES }),
      threshold: props.apiServerErrorRate ?? 0.05,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** Each function's errors, but those of the functions whose errors are refusals. */
  private alarmOnFunctions(props: MonitoringProps): void {
    for (const [name, fn] of Object.entries(props.functions)) {
      if (props.errorsAreRefusals?.includes(name)) continue;
      this.alarm(
        `${pascal(name)}Errors`,
        atLeast(
          1,
          fn.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }),
          `Synapse ${name}: the function failed (uncaught error or timeout)`,
        ),
      );
    }
  }

  /** Each queue: its dead-letter queue not empty, its oldest message too old. */
  private alarmOnQueues(props: MonitoringProps): void {
    for (const { definition, queue, deadLetterQueue } of props.queues) {
      const dlqNotEmpty = this.alarm(
        `${pascal(definition.name)}DlqNotEmpty`,
        atLeast(
          1,
          deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            statistic: 'Maximum',
            period: FIVE_MINUTES,
          }),
          `Synapse ${definition.name} queue: messages reached the dead-letter queue`,
        ),
      );
      this.lostWork.push(dlqNotEmpty);
      const maxAge =
        props.oldestMessageAge ??
        Duration.seconds(definition.oldestMessageAlarmSeconds ?? definition.visibilityTimeoutSeconds);
      this.alarm(`${pascal(definition.name)}OldestMessageAge`, {
        alarmDescription: `Synapse ${definition.name} queue: a message has waited longer than ${maxAge.toHumanString()}`,
        metric: queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: FIVE_MINUTES }),
        threshold: maxAge.toSeconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
  }

  /** The stream relay: changes it could not relay, and how far behind the table's stream it is. */
  private alarmOnRelay(props: MonitoringProps, relayLag: cloudwatch.Metric | undefined): void {
    if (props.relayFailures) {
      const relayFailures = this.alarm(
        'RelayFailuresNotEmpty',
        atLeast(
          1,
          props.relayFailures.metricApproximateNumberOfMessagesVisible({
            statistic: 'Maximum',
            period: FIVE_MINUTES,
          }),
          'Synapse relay: committed task changes could not be relayed (see the failures queue)',
        ),
      );
      this.lostWork.push(relayFailures);
    }
    if (relayLag) {
      const maxLag = props.relayLag ?? FIVE_MINUTES;
      this.alarm('RelayLag', {
        alarmDescription: `Synapse relay: it is more than ${maxLag.toHumanString()} behind the table's stream`,
        metric: relayLag,
        threshold: maxLag.toMilliseconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
  }

  /** The dashboard, row by row (each `addWidgets` call is a row). */
  private addDashboardRows(
    props: MonitoringProps,
    service: string,
    relayLag: cloudwatch.Metric | undefined,
  ): void {
    const functionsByName = Object.keys(props.functions).join(', ');
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `# Synapse — ${Stack.of(this).stackName}\nFunctions: ${functionsByName}. Custom metrics: namespace \`${METRICS_NAMESPACE}\`, service \`${service}\`.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(...apiWidgets(props.restApi));
    this.dashboard.addWidgets(...functionWidgets(props.functions));
    this.dashboard.addWidgets(...tableAndTaskWidgets(props.table, service));
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Heartbeats lost',
        width: 24,
        left: [customMetric(service, MetricName.HeartbeatsLost, 'runs lost (run again or failed)')],
      }),
    );
    if (props.deliveries) this.dashboard.addWidgets(...deliveryWidgets(props.deliveries, service));
    this.dashboard.addWidgets(...queueWidgets(props.queues));
    if (relayLag) {
      this.dashboard.addWidgets(
        new cloudwatch.GraphWidget({
          title: 'Relay: behind the table stream (ms)',
          width: 24,
          left: [relayLag.with({ label: 'iterator age (max)' })],
        }),
      );
    }
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', width: 24, alarms: this.alarms }),
    );
  }
}

/** Requests, 4xx and 5xx; latency. */
const apiWidgets = (api: apigateway.RestApi): cloudwatch.IWidget[] => [
  new cloudwatch.GraphWidget({
    title: 'API requests and errors',
    width: 12,
    left: [
      api.metricCount({ statistic: 'Sum', period: ONE_MINUTE, label: 'requests' }),
      api.metricClientError({ statistic: 'Sum', period: ONE_MINUTE, label: '4xx' }),
      api.metricServerError({ statistic: 'Sum', period: ONE_MINUTE, label: '5xx' }),
    ],
  }),
  new cloudwatch.GraphWidget({
    title: 'API latency (ms)',
    width: 12,
    left: [
      api.metricLatency({ statistic: 'p50', period: ONE_MINUTE, label: 'p50' }),
      api.metricLatency({ statistic: 'p99', period: ONE_MINUTE, label: 'p99' }),
      api.metricIntegrationLatency({
        statistic: 'p99',
        period: ONE_MINUTE,
        label: 'integration p99',
      }),
    ],
  }),
];

/** Errors, throttles and duration, one line per function. */
const functionWidgets = (functions: Record<string, lambda.IFunction>): cloudwatch.IWidget[] => {
  const perFunction = (title: string, metric: (fn: lambda.IFunction) => cloudwatch.Metric) =>
    new cloudwatch.GraphWidget({
      title,
      width: 8,
      left: Object.entries(functions).map(([name, fn]) => metric(fn).with({ label: name })),
    });
  return [
    perFunction('Lambda errors', (fn) => fn.metricErrors({ statistic: 'Sum', period: ONE_MINUTE })),
    perFunction('Lambda throttles', (fn) => fn.metricThrottles({ statistic: 'Sum', period: ONE_MINUTE })),
    perFunction('Lambda duration p99 (ms)', (fn) =>
      fn.metricDuration({ statistic: 'p99', period: ONE_MINUTE }),
    ),
  ];
};

/** DynamoDB throttling next to the lost races (ConflictsLost); the task metrics and transitions. */
const tableAndTaskWidgets = (table: dynamodb.ITableV2, service: string): cloudwatch.IWidget[] => [
  new cloudwatch.GraphWidget({
    title: 'DynamoDB throttling and lost races',
    width: 12,
    left: [
      table.metricThrottledRequestsForOperations({
        operations: [
          dynamodb.Operation.GET_ITEM,
          dynamodb.Operation.QUERY,
          dynamodb.Operation.PUT_ITEM,
          dynamodb.Operation.BATCH_GET_ITEM,
          dynamodb.Operation.BATCH_WRITE_ITEM,
        ],
        period: ONE_MINUTE,
        label: 'throttled requests',
      }),
    ],
    right: [customMetric(service, MetricName.ConflictsLost, 'conflicts lost (custom)')],
  }),
  new cloudwatch.GraphWidget({
    title: 'Tasks',
    width: 12,
    left: [
      customMetric(service, MetricName.TasksCreated),
      customMetric(service, MetricName.TasksExpired),
      customMetric(service, MetricName.DeliveriesRetried),
      customMetric(service, MetricName.DlqArrivals),
    ],
    right: [
      new cloudwatch.MathExpression({
        expression: `SEARCH('{${METRICS_NAMESPACE},${MetricDimension.EventType},${MetricDimension.Service}} MetricName="${MetricName.Transitions}" ${MetricDimension.Service}="${service}"', 'Sum', 60)`,
        label: 'transitions by event type',
        period: ONE_MINUTE,
      }),
    ],
  }),
];

/** Push deliveries: delivered, retried, failed (with the DLQ), and their latency. */
const deliveryWidgets = (deliveries: QueueRef, service: string): cloudwatch.IWidget[] => {
  const latency = (statistic: string) =>
    customMetric(service, MetricName.DeliveryLatency, `latency ${statistic}`).with({ statistic });
  return [
    new cloudwatch.GraphWidget({
      title: 'Push deliveries',
      width: 12,
      left: [
        customMetric(service, MetricName.DeliveriesSucceeded, 'delivered'),
        customMetric(service, MetricName.DeliveriesRetried, 'retried'),
        customMetric(service, MetricName.DeliveriesFailed, 'failed (to the DLQ)'),
      ],
      right: [
        deliveries.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          statistic: 'Maximum',
          period: ONE_MINUTE,
          label: 'in the DLQ',
        }),
      ],
    }),
    new cloudwatch.GraphWidget({
      title: 'Push delivery latency (ms)',
      width: 12,
      left: [latency('p50'), latency('p99')],
    }),
  ];
};

/** Every queue's oldest message, every dead-letter queue's depth. */
const queueWidgets = (queues: readonly QueueRef[]): cloudwatch.IWidget[] => [
  new cloudwatch.GraphWidget({
    title: 'Queues: age of oldest message (s)',
    width: 12,
    left: queues.map(({ definition, queue }) =>
      queue.metricApproximateAgeOfOldestMessage({
        statistic: 'Maximum',
        period: ONE_MINUTE,
        label: definition.name,
      }),
    ),
  }),
  new cloudwatch.GraphWidget({
    title: 'Dead-letter queues: messages visible',
    width: 12,
    left: queues.map(({ definition, deadLetterQueue }) =>
      deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: ONE_MINUTE,
        label: `${definition.name}-dlq`,
      }),
    ),
  }),
];

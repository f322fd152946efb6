/**
 * Sweeper: run by an EventBridge schedule every minute; expires live tasks
 * whose deadline has passed.
 */
import type { ScheduledEvent } from 'aws-lambda';
import { type SweepResult, sweepExpiredTasks } from '../shared/app/tasks/expiry.ts';
import { taskEngine } from '../shared/composition-roots/core.ts';
import { countMetric, logger, MetricName, withObservability } from '../shared/observability/index.ts';

export const sweeperHandler = async (_event: ScheduledEvent): Promise<SweepResult> => {
  const result = await sweepExpiredTasks(taskEngine());
  if (result.expired) countMetric(MetricName.TasksExpired, result.expired);
  logger.info('sweep finished', { ...result });
  return result;
};

export const handler = withObservability(sweeperHandler, { functionName: 'sweeper' });

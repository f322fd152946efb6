/**
 * The in-memory DeliveryLog (shared/adapters/memory/delivery-log.ts): the port's contract
 * (test/contract/delivery-log.ts, which DynamoDeliveryLog runs on DynamoDB Local too).
 */
import { InMemoryDeliveryLog } from '../../../../shared/adapters/memory/delivery-log.ts';
import { deliveryLogContract } from '../../../contract/delivery-log.ts';

deliveryLogContract('in memory', { make: () => new InMemoryDeliveryLog() });

/**
 * AWS SDK clients. In Lambda the defaults apply; locally the endpoints come
 * from the standard AWS_ENDPOINT_URL_* variables that the SDK reads itself.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export const createDynamoClient = (endpoint?: string): DynamoDBClient =>
  new DynamoDBClient(endpoint ? { endpoint } : {});

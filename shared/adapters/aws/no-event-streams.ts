/**
 * `@smithy/core/event-streams` as the Lambda bundles get it. The SDK loads it (a dynamic import) only
 * for operations with an event-stream member (Kinesis SubscribeToShard, Bedrock streams, S3 Select…);
 * the clients the hub bundles (DynamoDB, its streams, SQS, Secrets Manager, EventBridge) have none,
 * so its 15 KB would only be parsed at every cold start. infra/bundling.ts aliases the module to this
 * file for the bundles; unbundled code (npm start, the tests) keeps the real one. If a client with
 * event streams is ever added, the first such call fails here, saying so.
 */
const notBundled = (): never => {
  throw new Error(
    'AWS SDK event streams are not bundled (infra/bundling.ts aliases @smithy/core/event-streams away): ' +
      'remove the alias to use an operation with an event stream',
  );
};

export class EventStreamSerde {
  constructor() {
    notBundled();
  }
}

export const eventStreamSerdeProvider = (): never => notBundled();

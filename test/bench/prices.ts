/**
 * AWS list prices the benchmark turns measured usage into dollars with
 * (us-east-1, on-demand, no free tier; checked 2026-12-01 against the public
 * pricing pages). One place, so a price change is one edit and shows in
 * docs/benchmarks.md at the next `npm run bench`.
 */
export const PRICES = {
  region: 'us-east-1',
  checked: '2026-12-01',
  dynamodb: {
    /** On-demand, per write request unit (1 KB of item, each index entry its own). */
    perWriteUnit: 0.625 / 1e6,
    /** On-demand, per read request unit (4 KB strongly consistent; half for eventually consistent). */
    perReadUnit: 0.125 / 1e6,
    /** Standard table class, per GB-month (items and their index entries). */
    perGbMonth: 0.25,
    /** DynamoDB Streams read by a Lambda event source mapping are free. */
    streamReadsByLambda: 0,
  },
  lambda: {
    /** arm64, per GB-second of duration (billed per ms). */
    perGbSecond: 0.0000133334,
    perRequest: 0.2 / 1e6,
  },
  apiGateway: {
    /** REST API, per request (first 333 million a month). */
    perRestRequest: 3.5 / 1e6,
  },
  sqs: {
    /** Standard queue, per request (each 64 KB of payload is one request). */
    perRequest: 0.4 / 1e6,
  },
  eventBridge: {
    /** Custom events put on a bus (each 64 KB is one event). */
    perEvent: 1.0 / 1e6,
  },
  sources: [
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    'https://aws.amazon.com/lambda/pricing/',
    'https://aws.amazon.com/api-gateway/pricing/',
    'https://aws.amazon.com/sqs/pricing/',
    'https://aws.amazon.com/eventbridge/pricing/',
  ],
} as const;

/**
 * The local SQS: `local-aws-sqs` (counting receives as SQS does, ./sqs-emulator.ts) served in this process on 127.0.0.1, with
 * every queue of the definitions and its dead-letter queue created as the
 * CDK stack creates them (visibility timeout, redrive after maxReceiveCount;
 * the emulator itself moves a message to the DLQ when its visibility expires
 * for the maxReceiveCount-th time). Messages live in memory only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { deadLetterName, QUEUES, type QueueDefinition } from '../shared/adapters/sqs/queues.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './lambda-context.ts';
import { loadSqsEmulator } from './sqs-emulator.ts';

export interface LocalQueue {
  definition: QueueDefinition;
  url: string;
  arn: string;
  deadLetterUrl: string;
  deadLetterArn: string;
}

export interface LocalSqs {
  endpoint: string;
  port: number;
  /** A client for the emulator (dummy credentials, no retries); destroyed by stop(). */
  client: SQSClient;
  /** By logical queue name. */
  queues: Record<string, LocalQueue>;
  /** Queue URL by queue name, dead-letter queues (`<name>-dlq`) included. */
  urls: Record<string, string>;
  stop(): Promise<void>;
}

export interface LocalSqsOptions {
  queues?: readonly QueueDefinition[];
  /** Plain queues nobody consumes here (e.g. the stream relay's failure destination), by name. */
  plainQueues?: readonly string[];
  port?: number;
  host?: string;
}

export const createLocalSqsClient = (endpoint: string): SQSClient =>
  new SQSClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

export const startLocalSqs = async (options: LocalSqsOptions = {}): Promise<LocalSqs> => {
  const host = options.host ?? '127.0.0.1';
  // our own http server around the emulator's request handler, so a listen error rejects instead of crashing
  const { service, requestHandler } = loadSqsEmulator().createRequestHandler({
    port: options.port ?? 0,
    hostname: host,
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT,
    // a fresh in-memory emulator per start: AWS's 60 s wait before re-creating a name only gets in the way
    emulateQueueCreationLifecycle: false,
  });
  const server = createServer((req, res) => void requestHandler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  service.PORT = port; // queue URLs carry the bound port
  const endpoint = `http://${host}:${port}`;
  const client = createLocalSqsClient(endpoint);

  const stop = async () => {
    client.destroy();
    service.resetAll();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };

  try {
    const create = async (name: string, attributes: Record<string, string>) => {
      const { QueueUrl } = await client.send(
        new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
      );
      const { Attributes } = await client.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      return { url: QueueUrl!, arn: Attributes!.QueueArn! };
    };
    const queues: Record<string, LocalQueue> = {};
    const urls: Record<string, string> = {};
    for (const definition of options.queues ?? QUEUES) {
      const dlq = await create(deadLetterName(definition), {});
      const queue = await create(definition.name, {
        VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlq.arn,
          maxReceiveCount: definition.maxReceiveCount,
        }),
      });
      queues[definition.name] = {
        definition,
        url: queue.url,
        arn: queue.arn,
        deadLetterUrl: dlq.url,
        deadLetterArn: dlq.arn,
      };
      urls[definition.name] = queue.url;
      urls[deadLetterName(definition)] = dlq.url;
    }
    for (const name of options.plainQueues ?? []) urls[name] = (await create(name, {})).url;
    return { endpoint, port, client, queues, urls, stop };
  } catch (e) {
    await stop();
    throw e;
  }
};

/**
 * Composition root of the inspector function: the page's assets (a folder: INSPECTOR_ASSETS_DIR, else
 * `inspector/` beside this bundle, where the CDK stack copies the built page) and the read API on the
 * task table (its tasks and delivery log, read only). Each built on first use: a request for the page
 * makes no DynamoDB client.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsClient, SDK_RETRY } from '../adapters/aws/clients.ts';
import { DynamoDeliveryLog } from '../adapters/dynamodb/delivery-log.ts';
import { DynamoTaskStore } from '../adapters/dynamodb/task-store.ts';
import { DirectoryAssets } from '../adapters/files/static-assets.ts';
import { InspectorReadApi } from '../app/inspector/read-api.ts';
import { InspectorSite } from '../app/inspector/site.ts';
import { TABLE_NAME } from '../config/deployment.ts';
import { INSPECTOR_ASSETS_DIR } from '../config/inspector.ts';
import { readSetting, requireSetting } from '../config/settings.ts';

/** Where the CDK stack puts the built page: `inspector/` beside the bundle (infra/constructs/api.ts). */
export const BUNDLED_ASSETS_FOLDER = 'inspector';

let site: InspectorSite | undefined;
export const inspectorSite = (): InspectorSite => {
  site ??= new InspectorSite(
    new DirectoryAssets(
      readSetting(INSPECTOR_ASSETS_DIR) ??
        join(dirname(fileURLToPath(import.meta.url)), BUNDLED_ASSETS_FOLDER),
    ),
  );
  return site;
};

let api: InspectorReadApi | undefined;
export const inspectorReadApi = (): InspectorReadApi => {
  if (!api) {
    const client = awsClient(new DynamoDBClient(SDK_RETRY));
    const tableName = requireSetting(TABLE_NAME);
    api = new InspectorReadApi(
      new DynamoTaskStore(client, { tableName }),
      new DynamoDeliveryLog(client, tableName),
    );
  }
  return api;
};

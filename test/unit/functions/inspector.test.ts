/**
 * functions/inspector.ts: the page's routes go to the site, `/hub/…` to the read API with the request's
 * principal (from the authorizer's context; none is a 401 outside dev mode), as JSON never cached.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createInspectorHandler } from '../../../functions/inspector.ts';
import { InMemoryDeliveryLog } from '../../../shared/adapters/memory/delivery-log.ts';
import { InMemoryStaticAssets } from '../../../shared/adapters/memory/static-assets.ts';
import { InMemoryTaskStore } from '../../../shared/adapters/memory/task-store.ts';
import { InspectorReadApi } from '../../../shared/app/inspector/read-api.ts';
import { InspectorSite } from '../../../shared/app/inspector/site.ts';

const handler = createInspectorHandler(
  () => new InspectorSite(new InMemoryStaticAssets({ 'index.html': '<!doctype html>' })),
  () => new InspectorReadApi(new InMemoryTaskStore(), new InMemoryDeliveryLog()),
);

const event = (resource: string, path: string, authorizer?: Record<string, unknown>, method = 'GET') =>
  ({
    httpMethod: method,
    resource,
    path,
    headers: {},
    queryStringParameters: null,
    requestContext: { requestId: 'r1', ...(authorizer ? { authorizer } : {}) },
  }) as unknown as APIGatewayProxyEvent;

describe('inspector handler', () => {
  it('serves the page at /inspector under its CSP', async () => {
    const res = await handler(event('/inspector', '/inspector'));
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '<!doctype html>');
    assert.match(String(res.headers?.['Content-Security-Policy']), /script-src 'self'/);
    assert.equal((await handler(event('/inspector', '/inspector', undefined, 'POST'))).statusCode, 405);
  });

  it("answers the read API with the authorizer's principal, as JSON that is never cached", async () => {
    const res = await handler(
      event('/hub/{proxy+}', '/hub/me', {
        tenant: 'acme',
        owner: 'alice',
        rights: 'read write',
        scheme: 'api-key',
      }),
    );
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers?.['Cache-Control'], 'no-store');
    assert.deepEqual(JSON.parse(res.body), {
      tenant: 'acme',
      principal: 'alice',
      rights: ['read', 'write'],
      scheme: 'api-key',
    });
  });

  it('refuses the read API without a principal (401) outside dev mode', async () => {
    const res = await handler(event('/hub/{proxy+}', '/hub/me'));
    assert.equal(res.statusCode, 401);
    assert.equal(JSON.parse(res.body).error.code, 'unauthenticated');
  });
});

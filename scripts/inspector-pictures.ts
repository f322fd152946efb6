/**
 * `npm run inspector:pictures`: the pictures of docs/inspector.md, made anew from the page as it is built
 * now. A local hub (the demo agent, its authorizer on, a tenant `acme` and its principal `alice`), a few
 * tasks of each kind, and Debian's chromium (test/e2e/fixtures/browser.ts) photographing each view into
 * docs/inspector/. Every view is checked for console errors and CSP violations before it is kept.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startLocalHub } from '../local/hub.ts';
import { LOCAL_REGION } from '../local/lambda-context.ts';
import { authCli, rpc } from '../test/e2e/fixtures/auth.ts';
import { launchBrowser, openPage } from '../test/e2e/fixtures/browser.ts';
import { startWebhookReceiver } from '../test/support/webhook-receiver.ts';

const OUT = join(import.meta.dirname, '..', 'docs', 'inspector');
const VIEWPORT = { width: 1280, height: 860 };
const WAIT = { timeout: 30_000 };

process.env.AWS_REGION ??= LOCAL_REGION;

const receiver = await startWebhookReceiver();
receiver.script('/down', [503]);
const hub = await startLocalHub({
  port: 0,
  host: '127.0.0.1',
  log: () => {},
  auth: { throttle: false },
  env: {
    PUSH_URL_ALLOWLIST: '127.0.0.1',
    PUSH_URL_ALLOW_HTTP: 'true',
    DELIVERY_MAX_ATTEMPTS: '3',
    DELIVERY_BASE_DELAY_SECONDS: '1',
    DELIVERY_JITTER: '0',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  },
});
const browser = await launchBrowser();
try {
  const admin = authCli(hub);
  await admin.addTenant('acme');
  const { key } = await admin.createKey('acme', 'alice', 'read,write');
  admin.close();

  // biome-ignore lint/suspicious/noExplicitAny: wire JSON
  const send = async (text: string, configuration: Record<string, unknown> = {}): Promise<any> => {
    const { json } = await rpc(hub, key, 'SendMessage', {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
      configuration,
    });
    if (json?.error) throw new Error(`SendMessage ${text}: ${JSON.stringify(json.error)}`);
    return json.result.task;
  };
  await send('hello');
  await send('parts');
  const pushed = await send('hello, receiver', {
    taskPushNotificationConfig: { url: receiver.url('/down'), id: 'ops-webhook' },
  });
  const slow = await send('slow 3');
  await send('fail');
  await send('ask');
  const deciding = await send('approve');
  await send('chunks 4', { returnImmediately: true });

  mkdirSync(OUT, { recursive: true });
  const watched = await openPage(browser, hub.url, VIEWPORT);
  const { page, problems } = watched;
  const picture = async (name: string, full = false) => {
    if (problems.length) throw new Error(`${name}: ${problems.join('; ')}`);
    // the live region and timers settle
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: full });
    console.log(`wrote docs/inspector/${name}.png`);
  };
  const openTask = async (id: string, state: string) => {
    await page.goto(`${hub.url}/inspector#/tasks/${id}`);
    await page.locator(`[data-testid="task-state"][data-state="${state}"]`).waitFor(WAIT);
  };

  await page.goto(`${hub.url}/inspector`);
  await page.getByTestId('signin').waitFor(WAIT);
  await picture('signin');
  await page
    .getByTestId('signin')
    .getByLabel(/key|token/i)
    .fill(key);
  await page.getByTestId('signin').getByRole('button').click();
  await page.getByTestId('task-row').first().waitFor(WAIT);
  await picture('tasks');

  await openTask(slow.id, 'completed');
  await picture('task', true);

  await openTask(deciding.id, 'need_human');
  await page.getByTestId('decision-notes').fill('Checked the figures with finance; ship it.');
  await page.getByTestId('decision-notes').scrollIntoViewIfNeeded();
  await picture('decision');

  await openTask(pushed.id, 'completed');
  await page
    .locator('[data-testid="delivery-row"][data-status="failed"]')
    .first()
    .waitFor({ timeout: 60_000 });
  await scrollTo(page, 'delivery-row');
  await picture('deliveries');

  await page.goto(`${hub.url}/inspector#/agent`);
  await page.locator('[data-testid="card-signature"][data-status="verified"]').waitFor(WAIT);
  await page.getByTestId('registry-agent').first().waitFor(WAIT);
  await picture('agent', true);
  await watched.context.close();
} finally {
  await browser.close();
  await hub.stop();
  await receiver.close();
}

/** Scrolls the first element of a test id to the top of the view. */
async function scrollTo(page: Page, testId: string): Promise<void> {
  await page
    .getByTestId(testId)
    .first()
    .evaluate((el: { scrollIntoView(o: object): void }) => el.scrollIntoView({ block: 'center' }));
}

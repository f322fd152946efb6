/**
 * The inspector in a real browser (docs/inspector.md): Debian's chromium, headless, through playwright-core,
 * against the hub as `npm start` runs it (local/main.ts in a child process, dev mode, the demo agent), and
 * against a local hub with its authorizer on (API keys of two tenants made with the admin CLI).
 *
 * Dev mode: the page and its headers (CSP, caching, the script's size), the task list (live: a task sent
 * while the page is open appears; filtered by state and context), a task's timeline and state machine,
 * `slow 5` watched live to completed, `ask` answered through the form, `approve` approved and rejected with
 * notes (recorded as the principal who decided), a task canceled, a push delivery's failed retries and
 * its dead-letter, a new task sent from the page, the agent's card, signature and the registry's agents.
 * Auth on: the sign-in form, a wrong key refused, a key kept for the session only (never in a URL or
 * localStorage), another tenant's task neither listed nor readable, and a task of 10,000 events shown
 * virtualised. Every page is watched for console errors, CSP violations and requests to another origin.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import type { LocalHub } from '../../local/hub.ts';
import { startLocalHub } from '../../local/hub.ts';
import { SYNAPSE_CALLBACK_PATH, SYNAPSE_TASKS_PATH } from '../../shared/contracts/routes.ts';
import { writeLongTask } from '../support/long-task.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { authCli, rpc } from './fixtures/auth.ts';
import { launchBrowser, openPage, screenshot, type WatchedPage } from './fixtures/browser.ts';
import { startHubProcess, stopHubProcess } from './fixtures/hub-process.ts';
import { freePort, until } from './fixtures/registry.ts';

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any;

const WAIT = { timeout: 20_000 };
/** A 1×1 PNG. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PEER_KEY = { id: 'ab-1', secret: 'the-secret-hub-a-and-hub-b-share-32+' };

let browser: Browser;

/** A v1.0 JSON-RPC call to the hub at `base`. */
const call = async (base: string, method: string, params: unknown, token?: string): Promise<Json> => {
  const { json } = await rpc({ url: base }, token, method, params);
  if (json?.error) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
};

const message = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});

/** Sends `text` and answers the task at once (returnImmediately): its id. */
const startTask = async (base: string, text: string, token?: string, extra: Record<string, unknown> = {}) =>
  (
    await call(
      base,
      'SendMessage',
      { ...message(text), configuration: { returnImmediately: true }, ...extra },
      token,
    )
  ).task.id as string;

/** Sends `text` and waits for the task to be terminal or interrupted: the task. */
const runTask = async (base: string, text: string, token?: string): Promise<Json> =>
  (await call(base, 'SendMessage', message(text), token)).task;

const stateOf = (page: Page) => page.getByTestId('task-state').getAttribute('data-state');

const openTask = async (watched: WatchedPage, base: string, taskId: string) => {
  await watched.page.goto(`${base}/inspector#/tasks/${encodeURIComponent(taskId)}`);
  await watched.page.getByTestId('task-state').waitFor(WAIT);
};

/** The task ids of the rows the list shows. */
const rowIds = (page: Page) =>
  page.getByTestId('task-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-task-id')));

const noProblems = (watched: WatchedPage) =>
  assert.deepEqual(watched.problems, [], watched.problems.join('\n'));

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

describe('the inspector on `npm start` (dev mode)', () => {
  let hub: ChildProcess | undefined;
  /** A second hub, the Synapse executor this one delegates to. */
  let peer: ChildProcess | undefined;
  let base = '';
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await startWebhookReceiver();
    const [port, peerPort] = [await freePort(), await freePort()];
    const common = {
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      DELIVERY_BASE_DELAY_SECONDS: '1',
      DELIVERY_JITTER: '0',
    };
    const peerOf = (peerId: string, at: number) =>
      JSON.stringify([
        {
          peerId,
          tenant: 'default',
          endpoint: `http://127.0.0.1:${at}${SYNAPSE_CALLBACK_PATH}`,
          keys: [PEER_KEY],
        },
      ]);
    [hub, peer] = await Promise.all([
      startHubProcess({
        port,
        env: {
          ...common,
          PUSH_URL_ALLOW_HTTP: 'true',
          DELIVERY_MAX_ATTEMPTS: '3',
          SYNAPSE_AGENT_ID: 'hub-a',
          SYNAPSE_PEERS: peerOf('hub-b', peerPort),
        },
      }),
      startHubProcess({
        port: peerPort,
        env: { ...common, SYNAPSE_AGENT_ID: 'hub-b', SYNAPSE_PEERS: peerOf('hub-a', port) },
      }),
    ]);
    base = `http://127.0.0.1:${port}`;
  });

  after(async () => {
    await Promise.all([stopHubProcess(hub), stopHubProcess(peer)]);
    await receiver?.close();
  });

  it('serves the page under its CSP, revalidated, its hashed assets cached for good, its script under 150 KB gzip', async () => {
    const page = await fetch(`${base}/inspector`);
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const html = await page.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    const assets = [...html.matchAll(/(?:src|href)="(\/inspector\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), html);
    let scriptGzip = 0;
    for (const asset of assets) {
      const response = await fetch(`${base}${asset}`);
      assert.equal(response.status, 200, asset);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
      const etag = response.headers.get('etag')!;
      const body = Buffer.from(await response.arrayBuffer());
      if (asset.endsWith('.js')) scriptGzip += gzipSync(body).length;
      const again = await fetch(`${base}${asset}`, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304, asset);
    }
    assert.ok(scriptGzip > 0 && scriptGzip <= 150 * 1024, `script ${scriptGzip} B gzip`);
    assert.equal((await fetch(`${base}/inspector/assets/nope.js`)).status, 404);
  });

  it('lists tasks with their state as text, live (a task sent while the page is open appears), filtered by state and context', async () => {
    const first = await runTask(base, 'hello list');
    const watched = await openPage(browser, base);
    const { page } = watched;
    await page.goto(`${base}/inspector`);
    await page.getByTestId('whoami').waitFor(WAIT);
    const row = page.locator(`[data-testid="task-row"][data-task-id="${first.id}"]`);
    await row.waitFor(WAIT);
    assert.equal(await row.getAttribute('data-state'), 'TASK_STATE_COMPLETED');
    assert.match((await row.textContent()) ?? '', /completed/i, 'the state as text');
    const later = await runTask(base, 'hello live', undefined);
    await page.locator(`[data-testid="task-row"][data-task-id="${later.id}"]`).waitFor(WAIT);
    await screenshot(page, 'tasks');
    // filter: a context shows its tasks alone
    await page.getByLabel(/context/i).fill(later.contextId);
    await page.getByLabel(/context/i).press('Enter');
    await until(
      'the context filter',
      async () => {
        const ids = await rowIds(page);
        return ids.length === 1 && ids[0] === later.id ? true : undefined;
      },
      WAIT.timeout,
    );
    await page.getByLabel(/context/i).fill('');
    await page.getByLabel(/context/i).press('Enter');
    // filter: a state shows tasks in that state alone
    const asking = await startTask(base, 'ask');
    await page.getByLabel(/state/i).selectOption('TASK_STATE_INPUT_REQUIRED');
    // the filtered page replaces the list (the ask task may be listed already, still submitted, before it)
    const rowsOf = () =>
      page
        .getByTestId('task-row')
        .evaluateAll((rows) =>
          rows.map((r) => [r.getAttribute('data-task-id'), r.getAttribute('data-state')]),
        );
    const filtered = await until(
      'the list filtered by state',
      async () => {
        const rows = await rowsOf();
        return rows.some(([id]) => id === asking) &&
          rows.every(([, state]) => state === 'TASK_STATE_INPUT_REQUIRED')
          ? rows
          : undefined;
      },
      WAIT.timeout,
    );
    assert.ok(filtered.length > 0);
    assert.ok(!filtered.some(([id]) => id === first.id), 'a completed task is not listed');
    noProblems(watched);
    await watched.context.close();
  });

  it('opens a task: its timeline with every event and the time between them, its state machine with the path taken', async () => {
    const task = await runTask(base, 'hello timeline');
    const watched = await openPage(browser, base);
    await openTask(watched, base, task.id);
    const { page } = watched;
    assert.equal(await stateOf(page), 'completed');
    const types = await page
      .getByTestId('timeline-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')));
    assert.deepEqual(types.slice(0, 3), ['created', 'confirm', 'start']);
    assert.equal(types.at(-1), 'complete');
    assert.ok(types.includes('artifact'), types.join());
    assert.match(
      (await page.getByTestId('timeline-row').last().textContent()) ?? '',
      /\+\s?\d/,
      'the time since the previous event',
    );
    assert.match((await page.locator('main').textContent()) ?? '', /hello timeline/, "the artifact's text");
    const current = page.locator('[data-testid="state-machine"] [data-current="true"]');
    assert.equal(await current.count(), 1);
    assert.match(
      (await current.textContent()) ?? (await current.getAttribute('aria-label')) ?? '',
      /completed/i,
    );
    await screenshot(page, 'task');
    noProblems(watched);
    await watched.context.close();
  });

  it("shows a message's parts: an image from its inline bytes (blob:, under the CSP), a file to download, data as a collapsible tree", async () => {
    const task = (
      await call(base, 'SendMessage', {
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [
            { text: 'hello parts' },
            { raw: PNG_1X1, mediaType: 'image/png', filename: 'dot.png' },
            {
              raw: Buffer.from('a,b\n1,2\n').toString('base64'),
              mediaType: 'text/csv',
              filename: 'table.csv',
            },
            { data: { answer: 42, nested: { list: [1, 2, 3] } } },
          ],
        },
      })
    ).task;
    const watched = await openPage(browser, base);
    await openTask(watched, base, task.id);
    const { page } = watched;
    const created = page.locator('[data-testid="timeline-row"][data-type="created"]');
    const image = created.locator('img');
    await image.waitFor(WAIT);
    assert.match((await image.getAttribute('src')) ?? '', /^blob:/);
    assert.ok(
      await image.evaluate(
        (img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth === 1,
      ),
      'the image loaded',
    );
    const download = created.locator('a[download="table.csv"]');
    assert.match((await download.getAttribute('href')) ?? '', /^blob:/);
    const tree = created.locator('details').first();
    await tree.waitFor(WAIT);
    assert.match((await created.textContent()) ?? '', /answer/);
    noProblems(watched);
    await watched.context.close();
  });

  it('is usable from the keyboard: Tab reaches a task, Enter opens it; the views pass axe-core (labels, contrast, roles)', async () => {
    await runTask(base, 'hello keyboard');
    const watched = await openPage(browser, base);
    const { page } = watched;
    await page.goto(`${base}/inspector`);
    await page.getByTestId('task-row').first().waitFor(WAIT);
    let focused = '';
    for (let i = 0; i < 40 && !focused.includes('#/tasks/'); i++) {
      await page.keyboard.press('Tab');
      focused = (await page.evaluate("document.activeElement?.getAttribute('href') ?? ''")) as string;
    }
    assert.match(focused, /#\/tasks\/.+/, 'a task link takes the focus');
    await page.keyboard.press('Enter');
    await page.getByTestId('task-state').waitFor(WAIT);
    await watched.context.close();
    // axe-core needs its script in the page: a context of its own that lets it in
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
    const audited = await context.newPage();
    const taskId = await startTask(base, 'approve');
    for (const view of ['', `#/tasks/${taskId}`, '#/agent']) {
      await audited.goto(`${base}/inspector${view}`);
      await audited.locator('main h1, main h2').first().waitFor(WAIT);
      await audited.waitForTimeout(1000);
      await audited.addScriptTag({ path: AXE });
      const violations = (await audited.evaluate(
        "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')))",
      )) as string[];
      assert.deepEqual(violations, [], `${view || 'tasks'}: ${violations.join('; ')}`);
    }
    await context.close();
  });

  it('watches a `slow 5` task move live to completed: progress events appear without a reload', async () => {
    // the list open first: the task appears in it, and is opened from it while it runs
    const watched = await openPage(browser, base);
    const { page } = watched;
    await page.goto(`${base}/inspector`);
    await page.getByTestId('whoami').waitFor(WAIT);
    const taskId = await startTask(base, 'slow 5');
    await page.locator(`[data-testid="task-row"][data-task-id="${taskId}"] a`).click(WAIT);
    await page.getByTestId('task-state').waitFor(WAIT);
    assert.notEqual(await stateOf(page), 'completed', 'open while it runs');
    await page.locator('[data-testid="timeline-row"][data-type="status_update"]').first().waitFor(WAIT);
    await page.locator('[data-testid="task-state"][data-state="completed"]').waitFor(WAIT);
    await page.locator('[data-testid="timeline-row"][data-type="complete"]').waitFor(WAIT);
    const updates = await page.locator('[data-testid="timeline-row"][data-type="status_update"]').count();
    assert.ok(updates >= 4, `${updates} progress reports shown`);
    noProblems(watched);
    await watched.context.close();
  });

  it('answers an `ask` task through its form: the task completes with the answer', async () => {
    const taskId = await startTask(base, 'ask');
    const watched = await openPage(browser, base);
    await openTask(watched, base, taskId);
    const { page } = watched;
    await page.locator('[data-testid="task-state"][data-state="info_needed"]').waitFor(WAIT);
    const form = page.getByTestId('answer-form');
    await form.getByRole('textbox').first().fill('forty-two');
    await screenshot(page, 'answer');
    await form.getByRole('button', { name: /answer|send/i }).click();
    await page.locator('[data-testid="task-state"][data-state="completed"]').waitFor(WAIT);
    await page.getByText('You answered: forty-two').first().waitFor(WAIT);
    const task = await call(base, 'GetTask', { id: taskId });
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    noProblems(watched);
    await watched.context.close();
  });

  for (const decision of ['approve', 'reject'] as const) {
    it(`${decision}s an \`approve\` task with notes, recorded as the principal who decided`, async () => {
      const taskId = await startTask(base, 'approve');
      const watched = await openPage(browser, base);
      await openTask(watched, base, taskId);
      const { page } = watched;
      await page.locator('[data-testid="task-state"][data-state="need_human"]').waitFor(WAIT);
      await page.getByTestId('decision-notes').fill(`notes for ${decision}`);
      if (decision === 'approve') await screenshot(page, 'decision');
      await page.getByTestId(decision).click();
      const final = decision === 'approve' ? 'completed' : 'rejected';
      await page.locator(`[data-testid="task-state"][data-state="${final}"]`).waitFor(WAIT);
      const row = page.locator(`[data-testid="timeline-row"][data-type="human_${decision}"]`);
      await row.waitFor(WAIT);
      const text = (await row.textContent()) ?? '';
      assert.match(text, /anonymous/, 'the principal who decided');
      assert.match(text, new RegExp(`notes for ${decision}`));
      const task = await call(base, 'GetTask', { id: taskId });
      assert.equal(
        task.status.state,
        decision === 'approve' ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_REJECTED',
      );
      noProblems(watched);
      await watched.context.close();
    });
  }

  it('cancels a running task', async () => {
    const taskId = await startTask(base, 'slow 30');
    const watched = await openPage(browser, base);
    await openTask(watched, base, taskId);
    const { page } = watched;
    page.on('dialog', (dialog) => void dialog.accept());
    await page.getByTestId('cancel-task').click();
    await page.locator('[data-testid="task-state"][data-state="cancelled"]').waitFor(WAIT);
    assert.equal((await call(base, 'GetTask', { id: taskId })).status.state, 'TASK_STATE_CANCELED');
    assert.equal(await page.getByTestId('cancel-task').count(), 0, 'no cancel for a finished task');
    noProblems(watched);
    await watched.context.close();
  });

  it("shows a push delivery's failed attempts, their HTTP statuses and delays, and its dead-letter", async () => {
    receiver.script('/failing', [500]);
    const task = await call(base, 'SendMessage', {
      ...message('hello push'),
      configuration: { taskPushNotificationConfig: { url: receiver.url('/failing'), id: 'hook' } },
    });
    const taskId = task.task.id as string;
    const watched = await openPage(browser, base);
    await openTask(watched, base, taskId);
    const { page } = watched;
    await page
      .locator('[data-testid="delivery-row"][data-status="failed"]')
      .first()
      .waitFor({ timeout: 60_000 });
    const rows = await page
      .getByTestId('delivery-row')
      .evaluateAll((all) => all.map((r) => [r.getAttribute('data-status'), r.textContent ?? '']));
    assert.ok(
      rows.some(([status, text]) => status === 'retrying' && /500/.test(text)),
      JSON.stringify(rows),
    );
    assert.ok(
      rows.some(([status, text]) => status === 'failed' && /attempts|dead/i.test(text)),
      JSON.stringify(rows),
    );
    await screenshot(page, 'deliveries');
    noProblems(watched);
    await watched.context.close();
  });

  it("shows a Synapse task's peer and the p2p messages exchanged with it, in order, and answers the peer's question", async () => {
    const made = await fetch(`${base}${SYNAPSE_TASKS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ peer: 'hub-b', type: 'ask', text: 'ask' }),
    });
    assert.equal(made.status, 201);
    const taskId = ((await made.json()) as Json).task.id as string;
    const watched = await openPage(browser, base);
    await openTask(watched, base, taskId);
    const { page } = watched;
    // hub-b's agent asks; the question reaches this hub as p2p:task_need_info, answered here and sent back
    await page.locator('[data-testid="task-state"][data-state="info_needed"]').waitFor(WAIT);
    assert.match((await page.locator('main').textContent()) ?? '', /hub-b/, 'the peer');
    await page.getByTestId('answer-form').getByRole('textbox').first().fill('from the inspector');
    await page
      .getByTestId('answer-form')
      .getByRole('button', { name: /answer|send/i })
      .click();
    await page.locator('[data-testid="task-state"][data-state="completed"]').waitFor(WAIT);
    const expected = [
      ['sent', 'p2p:task_request'],
      ['received', 'p2p:task_need_info'],
      ['sent', 'p2p:task_info_provided'],
      ['received', 'p2p:task_complete'],
    ];
    const shown = async () =>
      page
        .getByTestId('peer-message')
        .evaluateAll((rows) =>
          rows.map((r) => [r.getAttribute('data-direction'), r.getAttribute('data-type')]),
        );
    const messages = await until(
      'the completion among the messages',
      async () => ((await shown()).some(([, type]) => type === 'p2p:task_complete') ? shown() : undefined),
      WAIT.timeout,
    );
    // in the task's order: each expected message after the one before it (progress reports may come between)
    let at = -1;
    for (const [direction, type] of expected) {
      const found = messages.findIndex(([d, t], i) => i > at && d === direction && t === type);
      assert.ok(found > at, `${direction} ${type} after #${at} in ${JSON.stringify(messages)}`);
      at = found;
    }
    await screenshot(page, 'synapse');
    noProblems(watched);
    await watched.context.close();
  });

  it('sends a new task from the page and opens it', async () => {
    const watched = await openPage(browser, base);
    const { page } = watched;
    await page.goto(`${base}/inspector`);
    const form = page.getByTestId('new-task');
    await form.getByRole('textbox').fill('hello from the page');
    await form.getByRole('button').click();
    await page.getByTestId('task-state').waitFor(WAIT);
    assert.match(page.url(), /#\/tasks\/.+/);
    await page.getByText('hello from the page').first().waitFor(WAIT);
    noProblems(watched);
    await watched.context.close();
  });

  it("shows the agent's card (v1.0 and v0.3), its skills, its verified signature and the registry's agents with their health", async () => {
    const watched = await openPage(browser, base);
    const { page } = watched;
    await page.goto(`${base}/inspector#/agent`);
    await page.getByTestId('agent-card').waitFor(WAIT);
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as Json;
    assert.match((await page.getByTestId('agent-card').textContent()) ?? '', new RegExp(card.name));
    for (const skill of card.skills as Json[]) await page.getByText(skill.name).first().waitFor(WAIT);
    const signature = page.getByTestId('card-signature');
    await page.locator('[data-testid="card-signature"][data-status="verified"]').waitFor(WAIT);
    assert.match((await signature.textContent()) ?? '', /verified/i);
    await page.getByTestId('registry-agent').first().waitFor(WAIT);
    assert.match(
      (await page.getByTestId('registry-agent').first().textContent()) ?? '',
      /healthy|unknown|unhealthy|degraded/i,
    );
    await screenshot(page, 'agent');
    noProblems(watched);
    await watched.context.close();
  });
});

describe('the inspector with authentication on', () => {
  let hub: LocalHub;
  const keys = { alice: '', carol: '' };

  before(async () => {
    hub = await startLocalHub({
      port: 0,
      host: '127.0.0.1',
      sweepIntervalMs: 60_000,
      auth: { throttle: false },
    });
    const cli = authCli(hub);
    await cli.addTenant('acme');
    await cli.addTenant('globex');
    keys.alice = (await cli.createKey('acme', 'alice')).key;
    keys.carol = (await cli.createKey('globex', 'carol')).key;
    cli.close();
  });

  after(async () => {
    await hub?.stop();
  });

  const signIn = async (watched: WatchedPage, key: string) => {
    const { page } = watched;
    await page.goto(`${hub.url}/inspector`);
    const form = page.getByTestId('signin');
    await form.waitFor(WAIT);
    await form.getByLabel(/key|token/i).fill(key);
    await form.getByRole('button').click();
  };

  it('asks for credentials, refuses a wrong key, keeps a right one for the session only', async () => {
    const watched = await openPage(browser, hub.url);
    const { page } = watched;
    await signIn(watched, 'sk_not_a_key');
    await page.getByRole('alert').first().waitFor(WAIT);
    await screenshot(page, 'signin');
    await signIn(watched, keys.alice);
    await page.getByTestId('whoami').waitFor(WAIT);
    assert.match((await page.getByTestId('whoami').textContent()) ?? '', /alice/);
    const storage = (await page.evaluate(
      '({ local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }) })',
    )) as { local: string; session: string };
    assert.doesNotMatch(storage.local, new RegExp(keys.alice), 'not in localStorage');
    assert.match(storage.session, new RegExp(keys.alice), 'in sessionStorage');
    assert.doesNotMatch(page.url(), new RegExp(keys.alice), 'never in a URL');
    // a new session (another context) starts signed out
    const other = await openPage(browser, hub.url);
    await other.page.goto(`${hub.url}/inspector`);
    await other.page.getByTestId('signin').waitFor(WAIT);
    await other.context.close();
    await watched.context.close();
  });

  it("shows a principal its own tasks only: another tenant's task is neither listed nor readable", async () => {
    const mine = await runTask(hub.url, 'hello alice', keys.alice);
    const theirs = await runTask(hub.url, 'hello carol', keys.carol);
    const watched = await openPage(browser, hub.url);
    const { page } = watched;
    await signIn(watched, keys.alice);
    await page.locator(`[data-testid="task-row"][data-task-id="${mine.id}"]`).waitFor(WAIT);
    assert.equal(await page.locator(`[data-testid="task-row"][data-task-id="${theirs.id}"]`).count(), 0);
    await page.goto(`${hub.url}/inspector#/tasks/${theirs.id}`);
    await page
      .getByText(/not found|no such task/i)
      .first()
      .waitFor(WAIT);
    assert.equal(await page.getByTestId('timeline-row').count(), 0);
    noProblems(watched);
    await watched.context.close();
  });

  it('shows a task of 10,000 events virtualised: a few rows in the page, the last one reached by scrolling', async () => {
    const long = await writeLongTask(hub, { tenant: 'acme', owner: 'alice', events: 10_000 });
    const watched = await openPage(browser, hub.url);
    const { page } = watched;
    await signIn(watched, keys.alice);
    await page.getByTestId('whoami').waitFor(WAIT);
    await page.goto(`${hub.url}/inspector#/tasks/${long.taskId}`);
    await page.locator('[data-testid="timeline-row"][data-version="1"]').waitFor(WAIT);
    const rendered = await page.getByTestId('timeline-row').count();
    assert.ok(rendered > 0 && rendered < 200, `${rendered} rows in the page`);
    // every page of events loaded, then the last row is reached by scrolling, still with few rows rendered
    await page
      .getByText(/10,000 events/)
      .first()
      .waitFor({ timeout: 60_000 });
    const last = page.locator('[data-testid="timeline-row"][data-version="10000"]');
    for (let i = 0; i < 200 && (await last.count()) === 0; i++) {
      await page.getByTestId('timeline').evaluate((el: { scrollTop: number; scrollHeight: number }) => {
        el.scrollTop = el.scrollHeight;
      });
      await page.waitForTimeout(100);
    }
    await last.waitFor(WAIT);
    const renderedAtEnd = await page.getByTestId('timeline-row').count();
    assert.ok(renderedAtEnd < 200, `${renderedAtEnd} rows in the page at the end`);
    noProblems(watched);
    await watched.context.close();
  });
});

/**
 * The inspector (docs/inspector.md), as a person meets it, on the hub of `npm start` (the page as
 * inspector/build.ts builds it, served by the inspector function): what the page weighs gzipped, how long
 * the task list takes to paint in a fresh browser context (no cache), and a task of 10,000 events scrolled
 * from its first event to its last (frame intervals while scrolling, rows in the page). Debian's chromium,
 * headless, through playwright-core. Issue 22's goals: first paint ≤ 1 s, script ≤ 150 KB gzip, smooth.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildInspector } from '../../inspector/build.ts';
import { startLocalHub } from '../../local/hub.ts';
import { rpc } from '../e2e/fixtures/auth.ts';
import { launchBrowser } from '../e2e/fixtures/browser.ts';
import { writeLongTask } from '../support/long-task.ts';
import { reportIsolated, runIsolated, runsAsEntry } from './isolated.ts';
import { percentile } from './latency.ts';

export interface InspectorBenchResult {
  scriptGzipBytes: number;
  styleGzipBytes: number;
  /** Fresh contexts (nothing cached) opening the task list. */
  loads: number;
  /** First contentful paint, as the browser reports it (ms from navigation start). */
  firstPaint: { p50Ms: number; p95Ms: number };
  /** Until the first task row of the list is in the page (the list read through ListTasks). */
  listShown: { p50Ms: number; p95Ms: number };
  longTask: {
    events: number;
    /** From opening the task until its 10,000 events are all loaded (pages of 1,000 from the read API). */
    loadedMs: number;
    /** Rows in the page at the top and after scrolling to the last event. */
    rowsAtTop: number;
    rowsAtEnd: number;
    /** Frames drawn while scrolling from top to bottom in `scrollSteps` animation frames. */
    scrollSteps: number;
    frameP50Ms: number;
    frameP95Ms: number;
    frameMaxMs: number;
    /** Frames over 50 ms (a visible stutter). */
    longFrames: number;
  };
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const p = (sorted: number[], q: number) => round(percentile(sorted, q) ?? Number.NaN);

/**
 * Scrolls the timeline from top to bottom, one step per animation frame, and answers the frame intervals.
 * A string: the page's own code is bundled, and this runs as the page's (CDP evaluate, allowed by its CSP).
 */
const SCROLL = (steps: number) => `(async () => {
  const el = document.querySelector('[data-testid="timeline"]');
  const frames = [];
  let last = performance.now();
  for (let i = 1; i <= ${steps}; i++) {
    el.scrollTop = (el.scrollHeight - el.clientHeight) * (i / ${steps});
    await new Promise((r) => requestAnimationFrame(r));
    const now = performance.now();
    frames.push(now - last);
    last = now;
  }
  // the rows measured as they came into view move the end: settle on the last event
  for (let i = 0; i < 20; i++) {
    el.scrollTop = el.scrollHeight;
    await new Promise((r) => requestAnimationFrame(r));
  }
  return frames;
})()`;

async function benchInspector(loads = 15): Promise<InspectorBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'synapse-inspector-bench-'));
  // dev mode whatever an earlier section left in the environment: the page opens on the list
  const hub = await startLocalHub({
    port: 0,
    host: '127.0.0.1',
    sweepIntervalMs: 60_000,
    auth: 'dev',
    log: () => {},
  });
  const browser = await launchBrowser();
  try {
    const built = await buildInspector(dir);
    const gzipOf = (suffix: string) =>
      built.files.filter((f) => f.path.endsWith(suffix)).reduce((sum, f) => sum + f.gzipBytes, 0);
    // a few tasks to list
    for (const text of ['hello', 'parts', 'fail', 'ask']) {
      const sent = await rpc(hub, undefined, 'SendMessage', {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
      });
      if (sent.status !== 200 || sent.json?.error) throw new Error(`SendMessage ${text}: ${sent.text}`);
    }
    const paints: number[] = [];
    const lists: number[] = [];
    // one unmeasured load warms the hub's handlers (a container's first request)
    for (let i = 0; i <= loads; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const started = Date.now();
      await page.goto(`${hub.url}/inspector`);
      await page
        .getByTestId('task-row')
        .first()
        .waitFor({ timeout: 30_000 })
        .catch(async (e) => {
          throw new Error(`the task list did not show: ${await page.locator('main').textContent()}`, {
            cause: e,
          });
        });
      const shown = Date.now() - started;
      const fcp = (await page.evaluate(
        "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1",
      )) as number;
      await context.close();
      if (i === 0) continue;
      paints.push(fcp);
      lists.push(shown);
    }
    paints.sort((a, b) => a - b);
    lists.sort((a, b) => a - b);

    const long = await writeLongTask(hub, {
      tenant: 'default',
      owner: 'anonymous',
      events: 10_000,
      withMessages: true,
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const opened = Date.now();
    await page.goto(`${hub.url}/inspector#/tasks/${long.taskId}`);
    await page
      .getByText(/10,000 events/)
      .first()
      .waitFor({ timeout: 120_000 });
    const loadedMs = Date.now() - opened;
    await page.locator('[data-testid="timeline-row"][data-version="1"]').waitFor();
    const rowsAtTop = await page.getByTestId('timeline-row').count();
    const steps = 300;
    const frames = ((await page.evaluate(SCROLL(steps))) as number[]).sort((a, b) => a - b);
    await page.locator('[data-testid="timeline-row"][data-version="10000"]').waitFor({ timeout: 10_000 });
    const rowsAtEnd = await page.getByTestId('timeline-row').count();
    await context.close();
    return {
      scriptGzipBytes: gzipOf('.js'),
      styleGzipBytes: gzipOf('.css'),
      loads,
      firstPaint: { p50Ms: p(paints, 0.5), p95Ms: p(paints, 0.95) },
      listShown: { p50Ms: p(lists, 0.5), p95Ms: p(lists, 0.95) },
      longTask: {
        events: long.version,
        loadedMs,
        rowsAtTop,
        rowsAtEnd,
        scrollSteps: steps,
        frameP50Ms: p(frames, 0.5),
        frameP95Ms: p(frames, 0.95),
        frameMaxMs: round(frames.at(-1) ?? Number.NaN),
        longFrames: frames.filter((f) => f > 50).length,
      },
    };
  } finally {
    await browser.close();
    await hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const printInspector = (r: InspectorBenchResult): void => {
  console.log('\nThe inspector');
  console.table({
    'script gzip KB': round(r.scriptGzipBytes / 1024),
    'styles gzip KB': round(r.styleGzipBytes / 1024),
    'first paint p50 ms': r.firstPaint.p50Ms,
    'task list shown p50 ms': r.listShown.p50Ms,
  });
  console.table([r.longTask]);
};

/** The section in a process of its own (./isolated.ts): its hub is not the process's first. */
export const benchInspectorIsolated = (): Promise<InspectorBenchResult> =>
  runIsolated<InspectorBenchResult>(import.meta.filename, 'INSPECTOR_RESULT');

if (runsAsEntry(import.meta.url)) reportIsolated('INSPECTOR_RESULT', await benchInspector());

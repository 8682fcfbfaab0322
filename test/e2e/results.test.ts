/**
 * Results in the real browser (issue 21): a tool called from the composer shows its text answer
 * under the form; the request detail pane shows the request, the response and the engine's
 * audit; the "copy as probe" command, run through a real `sh -c` (with the repo's CLI in place
 * of `npx pipescope`), makes the same call again. Servers: @modelcontextprotocol/server-everything
 * (a devDependency) started from the custom server form under a host profile, and the
 * oversized-result demo for an answer too large to load whole.
 * PIPESCOPE_E2E_SHOTS=<dir> also saves screenshots of what the tests look at.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  PROBE_PREFIX,
  probeCommand,
  shellWord,
} from '../../renderer/features/results/probe-command.js';
import type { ReportRequest } from '../../shared/requests.js';
import { SESSION_DEFAULTS } from '../../shared/session-options.js';
import { setupApp } from './app.js';
import { chromiumAvailable } from './harness.js';
import { ROOT } from './launch.mjs';
import {
  callTool,
  MiB,
  openSessionBy,
  requestRow,
  SOON,
  showStartScreen,
  startDemo,
  waitForStatus,
} from './session.js';

const EVERYTHING = path.join(
  ROOT,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const CLI = path.join(ROOT, 'bin/pipescope.js');
/** Everything a shell could read otherwise, in one argument (an <input> keeps no newline). */
const HOSTILE = `it's "q" $(echo pwned) \`id\` $HOME !x; a|b * ✓ — ünï 🎉`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(command: string, timeout = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { cwd: ROOT, timeout }, (error, stdout, stderr) => {
      const code = error && typeof error.code === 'number' ? error.code : error ? null : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The probe command with the repo's CLI for `npx pipescope probe`, and `--json` added. */
function local(command: string): string {
  expect(command).toContain(PROBE_PREFIX);
  return command.replace(
    PROBE_PREFIX,
    `${shellWord(process.execPath)} ${shellWord(CLI)} probe --json`,
  );
}

async function shot(target: Page | Locator, name: string): Promise<void> {
  const dir = process.env.PIPESCOPE_E2E_SHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await target.screenshot({ path: path.join(dir, `${name}.png`) });
}

async function startEverything(page: Page, profile: string): Promise<string> {
  await showStartScreen(page);
  await page.getByTestId('custom-command').fill(process.execPath);
  await page.getByTestId('custom-args').fill(`${EVERYTHING}\nstdio`);
  await page.getByTestId('custom-host-profile').selectOption(profile);
  return openSessionBy(page, page.getByTestId('custom-start'));
}

describe.runIf(chromiumAvailable())('results: the answer, the detail pane, copy as probe', () => {
  const app = setupApp();

  it('echo from the composer: its answer, the detail pane, and the probe command re-runs it', async () => {
    const { page } = app;
    await startEverything(page, 'claude-desktop');
    const chip = page.getByTestId('session-host-profile');
    expect(await chip.getAttribute('data-profile')).toBe('claude-desktop');
    expect(await chip.textContent()).toContain('Claude Desktop');

    const id = await callTool(page, 'echo', { message: HOSTILE });
    await waitForStatus(page, id, 'completed');
    // The answer under the form, as text.
    const answer = page.locator(`[data-testid="call-answer"][data-request-id="${id}"]`);
    await answer.locator('[data-testid="result-text"]').waitFor({ timeout: SOON });
    expect(await answer.getAttribute('data-status')).toBe('completed');
    expect(await answer.getByTestId('result-text').textContent()).toBe(`Echo: ${HOSTILE}`);
    await shot(page.getByTestId('composer'), 'results-composer');

    // The detail pane: request and response side by side, the audit above.
    await requestRow(page, id).click();
    const detail = page.locator(`[data-testid="request-detail"][data-request-id="${id}"]`);
    await detail.waitFor({ timeout: SOON });
    const requestJson = detail.getByTestId('request-json');
    await requestJson.waitFor({ timeout: SOON });
    const sent = JSON.parse((await requestJson.textContent()) ?? '');
    expect(sent).toMatchObject({
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: HOSTILE } },
    });
    const response = detail.getByTestId('detail-response');
    expect(await response.getByTestId('result-text').textContent()).toBe(`Echo: ${HOSTILE}`);
    await response.getByTestId('response-mode-json').click();
    const got = JSON.parse((await response.getByTestId('response-json').textContent()) ?? '');
    expect(got.result.content).toEqual([{ type: 'text', text: `Echo: ${HOSTILE}` }]);
    await response.getByTestId('response-mode-rendered').click();

    const audit = detail.getByTestId('audit');
    await audit.waitFor({ timeout: SOON });
    const auditBytes = Number(await audit.getAttribute('data-bytes'));
    expect(auditBytes).toBeGreaterThan(0);
    expect(await detail.getByTestId('audit-blocks').textContent()).toContain('1 text');
    expect(await detail.getByTestId('audit-is-error').textContent()).toContain('false');
    expect(await detail.getByTestId('audit-tokens').textContent()).toContain('estimated');
    expect(await detail.getByTestId('audit-hosts').getAttribute('data-broken')).toBe('');
    await shot(detail, 'results-detail');

    // Copy as probe: the command the pane shows (and copies), run as a shell would.
    const command = await detail.getByTestId('probe-command').getAttribute('data-command');
    if (!command) throw new Error('no probe command in the detail pane');
    expect(command.startsWith(`${PROBE_PREFIX} --call echo --args `)).toBe(true);
    expect(command).toContain(' --host claude-desktop ');
    const run = await sh(local(command));
    expect(run.stderr, 'probe stderr').not.toMatch(/error: /i);
    const report = JSON.parse(run.stdout) as {
      server: { command: string; args: string[] };
      requests: ReportRequest[];
    };
    expect(report.server).toMatchObject({ command: process.execPath, args: [EVERYTHING, 'stdio'] });
    const call = report.requests.find((r) => r.method === 'tools/call');
    expect(call?.status).toBe('completed');
    // The same call, the same answer: the audit measured as many bytes as the pane's.
    expect(call?.audit?.bytes).toBe(auditBytes);
    expect(call?.audit?.textChars).toBe(`Echo: ${HOSTILE}`.length);
  });

  it('an 8 MiB answer: its first page, the hosts it breaks, the rest in the frame viewer', async () => {
    const { page } = app;
    await startDemo(page, 'oversized-result');
    const id = await callTool(page, 'dump');
    await waitForStatus(page, id, 'completed', 30_000);
    const answer = page.locator(`[data-testid="call-answer"][data-request-id="${id}"]`);
    await answer.getByTestId('result-text').waitFor({ timeout: SOON });
    expect(((await answer.getByTestId('result-text').textContent()) ?? '').length).toBeGreaterThan(
      0,
    );

    await requestRow(page, id).click();
    const detail = page.locator(`[data-testid="request-detail"][data-request-id="${id}"]`);
    await detail.getByTestId('exchange-large').waitFor({ timeout: SOON });
    const audit = detail.getByTestId('audit');
    await audit.waitFor({ timeout: 30_000 });
    expect(Number(await audit.getAttribute('data-bytes'))).toBeGreaterThan(8 * MiB);
    // Over Claude Desktop's reported 1 MiB, under the SDK's 10 MiB line cap.
    const broken = (await detail.getByTestId('audit-hosts').getAttribute('data-broken')) ?? '';
    expect(broken.split(' ')).toContain('claude-desktop');
    expect(broken.split(' ')).not.toContain('ts-sdk');
    expect(await detail.getByTestId('copy-response').isDisabled()).toBe(true);
    await shot(detail, 'results-large');

    await detail.getByTestId('open-frame-viewer').click();
    await page
      .locator('[data-testid="frame-viewer"][data-state="ready"]')
      .waitFor({ timeout: SOON });
    await shot(page, 'results-large-viewer');
    await page.keyboard.press('Escape');
    await page.getByTestId('frame-viewer').waitFor({ state: 'detached', timeout: SOON });
  });
});

describe('copy as probe: quoting read back by a real sh', () => {
  it('every hostile string comes back as the same argv word', async () => {
    const hostile = [
      '',
      ' ',
      "it's",
      "'\\''",
      '"d"',
      '$(id)',
      '`id`',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a hostile string, literally
      '${HOME}',
      'a\nb',
      'tab\t',
      '\\',
      '!h',
      '*',
      '~',
      'a;b|c&d',
      '#c',
      '-rf',
      'ünï ✓ 🎉',
    ];
    const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-argv-'));
    const printer = path.join(dir, 'argv.cjs');
    writeFileSync(printer, 'process.stdout.write(JSON.stringify(process.argv.slice(2)))');
    for (const s of hostile) {
      const r = probeCommand({
        session: {
          command: s || 'cmd',
          args: [s, `--x=${s}`],
          cwd: null,
          envNames: [],
          hostProfile: null,
          maxFrameBytes: SESSION_DEFAULTS.maxFrameBytes,
          onOversize: SESSION_DEFAULTS.onOversize,
          resultBudgetBytes: SESSION_DEFAULTS.resultBudgetBytes,
          readerMode: 'drain',
          consumerDelayMs: 0,
        },
        method: 'tools/call',
        params: { name: `t${s}`, arguments: { [s]: s } },
      });
      if (!r?.ok) throw new Error('expected a command');
      const out = await sh(
        r.text.replace(PROBE_PREFIX, `${shellWord(process.execPath)} ${shellWord(printer)}`),
        10_000,
      );
      expect(out.code, out.stderr).toBe(0);
      const argv = JSON.parse(out.stdout) as string[];
      expect(argv, JSON.stringify(s)).toEqual([
        '--call',
        `t${s}`,
        '--args',
        JSON.stringify({ [s]: s }),
        '--',
        s || 'cmd',
        s,
        `--x=${s}`,
      ]);
    }
    rmSync(dir, { recursive: true, force: true });
  });
});

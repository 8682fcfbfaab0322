/**
 * Replay: re-sends a trace's client→server messages to a new server process (issue 5).
 *
 * `planReplay` reads the trace into steps: each recorded request (new ids are mapped to the
 * old ones), notification, cancellation (re-aimed at the mapped id) and reader-mode change,
 * with the requests whose responses had arrived before it was sent (its causal wait).
 * `runReplay` owns one Session for the replay: it sends the steps in order — at their
 * recorded offsets with `recorded` timing, back to back with `fast` — waits for each causal
 * response at most `timeoutMs`, captures every response, stops the server through the ladder
 * and hands the result to trace-replay-diff.ts. Responses the engine sends by itself (answers
 * to server pings) are not replayed: the new session answers its own.
 */
import { createHash } from 'node:crypto';
import type { JsonRpcId, RequestRecord } from '../../../shared/requests.js';
import type { ReaderMode } from '../../../shared/session-options.js';
import type { FrameSummary } from '../session/frame-store.js';
import { CLIENT_INFO } from '../session/mcp-client.js';
import { Session } from '../session/session.js';
import { type Sent, SessionError } from '../session/types.js';
import type { TraceReader } from './reader.js';

interface StepBase {
  t: number;
  /** Old ids whose responses had arrived before this message was sent. */
  waitFor: JsonRpcId[];
}

export type ReplayStep =
  | (StepBase & {
      kind: 'request';
      oldId: JsonRpcId;
      method: string;
      params?: Record<string, unknown>;
      progress: boolean;
      redacted: boolean;
    })
  | (StepBase & { kind: 'notify'; method: string; params?: Record<string, unknown> })
  | (StepBase & { kind: 'cancel'; oldId: JsonRpcId; reason: string })
  | (StepBase & { kind: 'mode'; readerMode: ReaderMode; consumerDelayMs: number });

export interface RecordedResponse {
  /** Line index of the response frame in the trace. */
  index: number;
  bytes: number;
  truncated: boolean;
  redacted: boolean;
  sha256: string | null;
}

export interface ReplayPlan {
  steps: ReplayStep[];
  notes: string[];
  /** First recorded response of each old id (key: idKey). */
  responses: Map<string, RecordedResponse>;
  /** Final recorded state of each request (key: idKey). */
  records: Map<string, RequestRecord>;
}

export function idKey(id: JsonRpcId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

interface Message {
  id?: JsonRpcId;
  method?: string;
  params?: Record<string, unknown>;
}

/** Reads the trace's outgoing messages and incoming responses into a replay plan. */
export async function planReplay(reader: TraceReader): Promise<ReplayPlan> {
  const steps: ReplayStep[] = [];
  const notes: string[] = [];
  const responses = new Map<string, RecordedResponse>();
  const records = new Map<string, RequestRecord>();
  const sent = new Set<string>();
  let answered: JsonRpcId[] = [];
  for (let i = 0; i < reader.count; i++) {
    const type = reader.type(i);
    if (type === 'request' || type === 'mode') {
      const e = await reader.read(i);
      if (e?.type === 'request') records.set(idKey(e.record.id), e.record);
      if (e?.type === 'mode') {
        steps.push({ kind: 'mode', t: e.t, waitFor: [], ...pickMode(e) });
      }
      continue;
    }
    if (type !== 'frame') continue;
    if (reader.frameDir(i) === 'in') {
      const m = await reader.frameMeta(i);
      if (m?.kind !== 'response' || m.id === undefined || m.id === null) continue;
      const key = idKey(m.id);
      if (!sent.has(key) || responses.has(key)) continue;
      responses.set(key, {
        index: i,
        bytes: m.bytes,
        truncated: m.truncated === true,
        redacted: m.redacted === true,
        sha256: m.sha256 ?? null,
      });
      answered.push(m.id);
      continue;
    }
    const e = await reader.read(i);
    if (e?.type !== 'frame') continue;
    if (e.text === undefined) {
      notes.push(
        `frame #${e.seq} (${e.method ?? e.kind}) not replayed: its text is not in the trace`,
      );
      continue;
    }
    let msg: Message;
    try {
      msg = JSON.parse(e.text) as Message;
    } catch {
      notes.push(`frame #${e.seq} not replayed: not JSON`);
      continue;
    }
    if (msg.method === undefined) continue; // our answer to a server request: not replayed
    const waitFor = answered;
    answered = [];
    if (msg.id === undefined) {
      if (msg.method === 'notifications/cancelled') {
        const target = msg.params?.requestId;
        const reason = typeof msg.params?.reason === 'string' ? msg.params.reason : '';
        if (typeof target === 'string' || typeof target === 'number')
          steps.push({ kind: 'cancel', t: e.t, waitFor, oldId: target, reason });
      } else
        steps.push({ kind: 'notify', t: e.t, waitFor, method: msg.method, params: msg.params });
      continue;
    }
    sent.add(idKey(msg.id));
    const { params, progress } = withoutProgressToken(msg.params);
    steps.push({
      kind: 'request',
      t: e.t,
      waitFor,
      oldId: msg.id,
      method: msg.method,
      params,
      progress,
      redacted: e.redacted === true,
    });
    if (e.redacted) notes.push(`request ${String(msg.id)} (${msg.method}) is replayed redacted`);
  }
  ensureInitializeFirst(steps, notes);
  return { steps, notes, responses, records };
}

function pickMode(e: { readerMode: ReaderMode; consumerDelayMs: number }): {
  readerMode: ReaderMode;
  consumerDelayMs: number;
} {
  return { readerMode: e.readerMode, consumerDelayMs: e.consumerDelayMs };
}

/** Our progress tokens are per id (`pipescope-<id>`): the new session attaches its own. */
function withoutProgressToken(params: Record<string, unknown> | undefined): {
  params: Record<string, unknown> | undefined;
  progress: boolean;
} {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (!params || !meta || meta.progressToken === undefined) return { params, progress: false };
  const { progressToken: _token, ...restMeta } = meta;
  const { _meta: _drop, ...rest } = params;
  return {
    params: Object.keys(restMeta).length ? { ...rest, _meta: restMeta } : rest,
    progress: true,
  };
}

function ensureInitializeFirst(steps: ReplayStep[], notes: string[]): void {
  const first = steps.findIndex((s) => s.kind === 'request');
  if (first !== -1 && steps[first].kind === 'request' && steps[first].method === 'initialize')
    return;
  notes.push('the trace has no initialize first: a default initialize is sent before replaying');
  const t = steps[0]?.t ?? 0;
  steps.unshift(
    {
      kind: 'request',
      t,
      waitFor: [],
      oldId: 'pipescope-replay-initialize',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT_INFO },
      progress: false,
      redacted: false,
    },
    {
      kind: 'notify',
      t,
      waitFor: ['pipescope-replay-initialize'],
      method: 'notifications/initialized',
    },
  );
}

export interface ReplayOptions {
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  timing: 'recorded' | 'fast';
  /** The longest wait for one response (and for the stragglers at the end). */
  timeoutMs: number;
  onSession?(session: Session): void;
}

export interface CapturedResponse {
  bytes: number;
  sha256: string | null;
  /** The text, when held and at most COMPARE_TEXT_BYTES. */
  text: string | null;
}

export interface ReplayRun {
  session: Session;
  /** Old id key → the new request. */
  sent: Map<string, Sent>;
  responses: Map<string, CapturedResponse>;
  notes: string[];
  startError: string | null;
}

/** Responses larger than this are compared by size and sha-256 only. */
export const COMPARE_TEXT_BYTES = 8 * 1024 * 1024;

export async function runReplay(
  reader: TraceReader,
  plan: ReplayPlan,
  o: ReplayOptions,
): Promise<ReplayRun> {
  const {
    readerMode: _r,
    consumerDelayMs: _c,
    requestTimeoutMs: _t,
    ...config
  } = reader.header.config;
  const session = new Session({
    ...config,
    command: o.command,
    args: o.args,
    cwd: o.cwd,
    env: o.env ?? {},
    requestTimeoutMs: 0, // the replay bounds its own waits
  });
  o.onSession?.(session);
  const run: ReplayRun = {
    session,
    sent: new Map(),
    responses: new Map(),
    notes: [],
    startError: null,
  };
  session.on('frame', (f) => capture(session, run, f));
  try {
    await session.whenStarted();
    await sendSteps(run, plan.steps, o);
    await waitAll([...run.sent.values()], o.timeoutMs);
    // A cancelled request settles at once; give a response the trace had (late) time to come.
    // Responses are captured under the new ids: an old id looked up there (a trace whose ids
    // the replay renumbers: one recorded mid-session) waited the whole timeout for nothing.
    const owed = [...plan.responses.keys()].flatMap((k) => {
      const sent = run.sent.get(k);
      return sent ? [idKey(sent.id)] : [];
    });
    await waitUntil(
      () => session.state !== 'running' || owed.every((k) => run.responses.has(k)),
      o.timeoutMs,
    );
    const late = session.timeoutPending();
    if (late.length)
      run.notes.push(`${late.length} request(s) still pending at the end: timed out`);
  } catch (e) {
    if (e instanceof SessionError) run.startError = e.message;
    else throw e;
  } finally {
    await session.stop();
  }
  return run;
}

function capture(session: Session, run: ReplayRun, f: FrameSummary): void {
  if (f.dir !== 'in' || f.kind !== 'response' || f.id === undefined || f.id === null) return;
  const key = idKey(f.id);
  if (run.responses.has(key)) return;
  const page = session.frames.page(f.seq, 0, f.bytes);
  run.responses.set(key, {
    bytes: f.bytes,
    sha256: page ? createHash('sha256').update(page.data).digest('hex') : null,
    text: page && f.bytes <= COMPARE_TEXT_BYTES ? page.data.toString('utf8') : null,
  });
}

async function sendSteps(run: ReplayRun, steps: ReplayStep[], o: ReplayOptions): Promise<void> {
  const s = run.session;
  const t0 = steps[0]?.t ?? 0;
  const started = performance.now();
  for (const step of steps) {
    const deps = step.waitFor.flatMap((id) => run.sent.get(idKey(id)) ?? []);
    if (!(await waitAll(deps, o.timeoutMs))) {
      run.notes.push(
        `waited ${o.timeoutMs} ms for ${deps.map((d) => d.id).join(', ')}; went on without it`,
      );
    }
    if (o.timing === 'recorded') {
      const due = started + (step.t - t0) - performance.now();
      if (due > 0) await sleep(due);
    }
    if (s.state !== 'running') {
      run.notes.push(
        `the server stopped (${s.state}); ${steps.length - steps.indexOf(step)} step(s) not sent`,
      );
      return;
    }
    switch (step.kind) {
      case 'request':
        run.sent.set(
          idKey(step.oldId),
          s.send(step.method, step.params, { progress: step.progress, timeoutMs: 0 }),
        );
        break;
      case 'notify':
        await s.notify(step.method, step.params);
        break;
      case 'cancel': {
        const target = run.sent.get(idKey(step.oldId));
        const r = target ? s.cancel(target.id, step.reason) : { ok: false, error: 'never sent' };
        if (!r.ok) {
          run.notes.push(`cancellation of ${String(step.oldId)} not sent: ${r.error}`);
        }
        break;
      }
      case 'mode':
        s.setReaderMode(step.readerMode);
        s.setConsumerDelay(step.consumerDelayMs);
        break;
    }
  }
}

/** Whether every request settled within `ms`. */
async function waitAll(sent: Sent[], ms: number): Promise<boolean> {
  if (sent.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([Promise.all(sent.map((x) => x.done)).then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!check() && performance.now() < until) await sleep(20);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

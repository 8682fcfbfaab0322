/** Builders of host data for unit tests (store reducers, selectors, components' logic). */
import type { LiveFinding } from '../../shared/findings';
import type { FrameSummary } from '../../shared/frames';
import { quietPoint, type SessionInfo, type SessionSnapshot } from '../../shared/host-api';
import { emptyLiveMetrics } from '../../shared/metrics';
import { type RequestRecord, sentRecord } from '../../shared/requests';

export function makeInfo(over: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id: 's1',
    title: 'oversized-result',
    command: 'node',
    args: ['srv.js'],
    cwd: null,
    envNames: [],
    demoId: 'oversized-result',
    pid: 100,
    state: 'running',
    exit: null,
    startError: null,
    serverInfo: null,
    handshakeError: null,
    tools: [],
    readerMode: 'drain',
    consumerDelayMs: 0,
    overloadPolicy: 'drop',
    onOversize: 'discard',
    maxFrameBytes: 32 * 1024 * 1024,
    startedAt: 1_700_000_000_000,
    recording: null,
    trace: null,
    ...over,
  };
}

export function makeRequest(over: Partial<RequestRecord> = {}): RequestRecord {
  return { ...sentRecord({ id: 1, method: 'tools/call', sentAt: 0, requestBytes: 50 }), ...over };
}

export function makeFrame(seq: number, over: Partial<FrameSummary> = {}): FrameSummary {
  return {
    seq,
    dir: 'in',
    t: seq,
    offset: 0,
    bytes: 100,
    kind: 'response',
    preview: '{}',
    held: true,
    ...over,
  };
}

export function makeFinding(over: Partial<LiveFinding> = {}): LiveFinding {
  return {
    code: 'stdout-pollution',
    level: 'error',
    message: 'banner on stdout',
    firstAt: 10,
    lastAt: 10,
    count: 1,
    ...over,
  };
}

export function makeSnapshot(seq: number, over: Partial<SessionSnapshot> = {}): SessionSnapshot {
  const metrics = { ...emptyLiveMetrics(), elapsedMs: seq * 50 };
  return {
    sessionId: 's1',
    seq,
    info: makeInfo(),
    metrics,
    point: quietPoint(seq * 50),
    requests: [],
    frames: [],
    framesSkipped: 0,
    frameSizes: [],
    stderr: '',
    stderrSkipped: 0,
    findings: [],
    ...over,
  };
}

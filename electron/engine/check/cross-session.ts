/**
 * Verdicts judged across every session of the run, once all have stopped: `stdout-clean`
 * (no line on stdout that is not JSON-RPC, wherever it was written), `buffered-output` (no
 * answer sat in a block-buffered stdout, in any case), and processes left behind by any stop,
 * which fail `shutdown`. Pure reads of the stopped sessions.
 */
import type { LiveFinding } from '../../../shared/findings.js';
import type { CallsStage } from './calls-stage.js';
import type { LabelledSession } from './context.js';
import { brief, failed, list, passed, size, skipped, type Verdict } from './verdict.js';

const POLLUTION_SHOWN = 5;

/** Where a polluting line was written: a phase of the calls stage, or another case. */
function whereWritten(x: LabelledSession, t: number, stage: CallsStage | null): string {
  if (x.session === stage?.session) {
    const phase = stage.phases.find((p) => t >= p.from && t <= p.to);
    return phase ? `during ${phase.label}` : 'between calls';
  }
  return `in the ${x.caseId} case`;
}

export function stdoutCleanVerdict(
  all: readonly LabelledSession[],
  stage: CallsStage | null,
  started: boolean,
): Verdict {
  const lines: { where: string; offset: number; bytes: number; preview: string }[] = [];
  const found: LiveFinding[] = [];
  let stdout = 0;
  for (const x of all) {
    const s = x.session.session;
    stdout += s.liveMetrics().stdoutBytes;
    for (const p of s.pollution) {
      lines.push({
        where: whereWritten(x, p.t, stage),
        offset: p.offset,
        bytes: p.bytes,
        preview: p.preview.slice(0, 120),
      });
    }
    found.push(...x.session.findings(['stdout-pollution', 'invalid-message']));
  }
  const evidence = {
    lines: lines.slice(0, POLLUTION_SHOWN),
    total: lines.length,
    stdoutBytes: stdout,
    sessions: all.length,
  };
  if (lines.length > 0 || found.length > 0) {
    const first = lines[0];
    const head = first
      ? `${lines.length} line(s) on stdout that are not JSON, the first ${first.where} at offset ${first.offset}: ${JSON.stringify(first.preview)}`
      : brief(found[0].message);
    const places = [...new Set(lines.map((l) => l.where))];
    const more = places.length > 1 ? ` (also ${list(places.slice(1, 4))})` : '';
    return failed(`${head}${more}; logs belong on stderr`, found, evidence);
  }
  if (!started)
    return skipped(
      'the handshake failed: only start-up was seen (no line that is not JSON in it)',
      evidence,
    );
  return passed(
    `${size(stdout)} of stdout over ${all.length} server run(s), every line JSON-RPC: start-up, the handshake, every call`,
    evidence,
  );
}

export function bufferedVerdict(all: readonly LabelledSession[], started: boolean): Verdict {
  const found: LiveFinding[] = [];
  const where: string[] = [];
  let answers = 0;
  for (const x of all) {
    const f = x.session.findings(['server-output-buffered']);
    if (f.length) where.push(x.caseId);
    found.push(...f);
    answers += x.session.session.requests.all().filter((r) => r.responseBytes !== null).length;
  }
  if (found.length > 0) {
    return failed(
      `${brief(found[0].message, 400)}${where.length > 1 ? ` (seen in ${list(where)})` : ''}`,
      found,
      { cases: where },
    );
  }
  if (!started && answers === 0) return skipped('the handshake failed: no answer to judge');
  return passed(
    `${answers} answer(s) reached the pipe as they were written, none only when stdin closed`,
    { answers },
  );
}

/** `shutdown`'s verdict, failed if any stop of the run left processes behind. */
export function leftBehind(v: Verdict, all: readonly LabelledSession[]): Verdict {
  const found: LiveFinding[] = [];
  const where: string[] = [];
  for (const x of all) {
    const f = x.session.findings(['processes-left']);
    if (f.length) where.push(x.caseId);
    found.push(...f);
  }
  if (found.length === 0 || v.codes.includes('processes-left')) return v;
  const reason = `${brief(found[0].message)} (after the ${list(where)} case${where.length > 1 ? 's' : ''})`;
  return failed(v.status === 'failed' ? `${v.reason}; ${reason}` : reason, found, v.evidence);
}

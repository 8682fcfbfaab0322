/**
 * A case's verdict as the battery builds it (passed / failed / skipped, the reason in plain
 * words, the codes that failed it, the findings and evidence it rests on), and the words the
 * cases share. Pure.
 */
import type { CheckStatus } from '../../../shared/check-report.js';
import { type Finding, type FindingCode, foldByCode } from '../../../shared/findings.js';

export interface Verdict {
  status: CheckStatus;
  reason: string;
  codes: FindingCode[];
  findings: Finding[];
  evidence: Record<string, unknown>;
}

type Found = Finding & { count: number; requestId?: string | number };

export function passed(reason: string, evidence: Record<string, unknown> = {}): Verdict {
  return { status: 'passed', reason, codes: [], findings: [], evidence };
}

export function skipped(reason: string, evidence: Record<string, unknown> = {}): Verdict {
  return { status: 'skipped', reason, codes: [], findings: [], evidence };
}

/** A failure; `found`: the findings behind it (their codes become the case's codes). */
export function failed(
  reason: string,
  found: readonly Found[] = [],
  evidence: Record<string, unknown> = {},
): Verdict {
  const findings = foldByCode(found);
  return { status: 'failed', reason, codes: findings.map((f) => f.code), findings, evidence };
}

/** A verdict that passed on its assertions still lists the findings worth a look (warns). */
export function withNotes(v: Verdict, found: readonly Found[]): Verdict {
  if (found.length === 0) return v;
  return { ...v, findings: [...v.findings, ...foldByCode(found)] };
}

/** `1234.5` → `1.2 s`, `80` → `80 ms`. */
export function duration(ms: number | null): string {
  if (ms === null) return '-';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** `1536` → `1.5 KiB`. */
export function size(n: number | null): string {
  if (n === null) return '-';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

/** `a, b and c`. */
export function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The first sentence-ish of a finding's message, for a reason line. */
export function brief(message: string, max = 240): string {
  return message.length > max ? `${message.slice(0, max - 1)}…` : message;
}

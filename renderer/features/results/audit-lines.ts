/**
 * The result audit (shared/result-audit.ts, made by the engine) as lines for the detail pane,
 * and the host profiles the answer breaks (shared/host-profiles.ts `hostsBroken`). Pure: the
 * pane only draws these. Every estimate says it is one.
 */
import {
  HOST_PROFILES,
  type HostBreak,
  hostsBroken,
  type SourceStatus,
} from '../../../shared/host-profiles';
import type { ResultAudit } from '../../../shared/result-audit';
import { formatBytes, formatCount } from '../../components/format';

export type AuditTone = 'ok' | 'info' | 'warn' | 'error';

export interface AuditLine {
  /** Stable key, also the row's data-testid suffix. */
  key: string;
  label: string;
  value: string;
  tone?: AuditTone;
}

const plural = (n: number, one: string, many = `${one}s`): string =>
  `${formatCount(n)} ${n === 1 ? one : many}`;

export function auditLines(a: ResultAudit): AuditLine[] {
  const lines: AuditLine[] = [];
  if (a.partial) {
    lines.push({ key: 'partial', label: 'audit', value: `size only: ${a.partial}`, tone: 'warn' });
  }
  lines.push({
    key: 'bytes',
    label: 'size',
    value: `${formatBytes(a.bytes)} (${formatCount(a.bytes)} bytes)`,
  });
  if (!a.partial) {
    lines.push({
      key: 'blocks',
      label: 'content',
      value:
        a.blocks.length === 0
          ? 'no content blocks'
          : a.blocks
              .map((b) => `${plural(b.count, b.kind, b.kind)} (${formatBytes(b.bytes)})`)
              .join(', '),
    });
    if (a.largestBlock && a.blocks.reduce((n, b) => n + b.count, 0) > 1) {
      lines.push({
        key: 'largest',
        label: 'largest block',
        value: `${a.largestBlock.kind}, ${formatBytes(a.largestBlock.bytes)}`,
      });
    }
  }
  lines.push({
    key: 'is-error',
    label: 'isError',
    value: a.isError ? 'true: the tool reports a failure' : 'false',
    tone: a.isError ? 'error' : undefined,
  });
  if (!a.partial) {
    lines.push({
      key: 'tokens',
      label: 'text',
      value: `${formatBytes(a.textBytes)}, ${plural(a.textChars, 'character')}, ≈ ${formatCount(a.estimatedTokens)} tokens (estimated: 4 characters a token)`,
    });
  } else {
    lines.push({
      key: 'tokens',
      label: 'text',
      value: `≈ ${formatCount(Math.ceil(a.bytes / 4))} tokens (estimated from its bytes: the body was not read)`,
      tone: 'info',
    });
  }
  if (!a.partial) {
    lines.push({
      key: 'structured',
      label: 'structuredContent',
      value: a.structuredBytes === null ? 'none' : formatBytes(a.structuredBytes),
    });
    lines.push({
      key: 'duplicated',
      label: 'sent twice',
      value:
        a.duplicatedBytes > 0
          ? `${formatBytes(a.duplicatedBytes)} of text also in structuredContent`
          : 'no',
      tone: a.duplicatedBytes > 0 ? 'warn' : undefined,
    });
    lines.push({
      key: 'base64',
      label: 'base64 in text',
      value:
        a.base64.count > 0
          ? `${plural(a.base64.count, 'run')}, ${formatBytes(a.base64.bytes)}: a download inside the text`
          : 'none',
      tone: a.base64.count > 0 ? 'warn' : undefined,
    });
    lines.push({
      key: 'incomplete',
      label: 'says incomplete',
      value: a.incomplete.length > 0 ? `yes: ${a.incomplete.join(', ')}` : 'no',
      tone: a.incomplete.length > 0 ? 'info' : undefined,
    });
  }
  return lines;
}

export const STATUS_LABEL: Record<SourceStatus, string> = {
  package: 'package',
  source: 'source',
  documented: 'documented',
  reported: 'reported',
};

export interface HostsVerdict {
  broken: HostBreak[];
  /** Profiles with no known limit at all (no verdict possible for them). */
  unknown: string[];
}

export function hostsVerdict(a: ResultAudit): HostsVerdict {
  return {
    broken: hostsBroken(a),
    unknown: HOST_PROFILES.filter((p) => !p.transportCap && !p.resultLimit).map((p) => p.name),
  };
}

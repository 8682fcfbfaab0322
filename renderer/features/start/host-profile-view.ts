/**
 * A host profile (shared/host-profiles.ts) in a few words for the start forms' picker and the
 * session header: its line cap and what happens past it, its request timeout, its result
 * limit, each marked "reported" when no document or source says so. Pure.
 */
import {
  HOST_PROFILES,
  type HostProfile,
  type HostProfileId,
  hostProfile,
  type Sourced,
  sizeText,
} from '../../../shared/host-profiles';
import { SESSION_DEFAULTS } from '../../../shared/session-options';

const mark = (s: Sourced<unknown>): string => (s.status === 'reported' ? ' (reported)' : '');

function capText(p: HostProfile): string {
  const c = p.transportCap;
  if (!c) return 'line cap not known';
  if (!c.value) return `no line cap${mark(c)}`;
  const past = c.value.past === 'terminate' ? 'closes the connection past it' : 'drops the line';
  return `${sizeText(c.value.bytes)} line cap, ${past}${mark(c)}`;
}

/** 60 s, 5 min, ≈ 28 h: a timeout as its docs would say it. */
export function durationText(ms: number): string {
  const [n, unit] =
    ms < 60_000 ? [ms / 1000, 's'] : ms < 3_600_000 ? [ms / 60_000, 'min'] : [ms / 3_600_000, 'h'];
  const r = Math.round(n);
  return `${r === n ? '' : '≈ '}${r} ${unit}`;
}

function timeoutText(p: HostProfile): string {
  const t = p.requestTimeout;
  if (!t) return 'timeout not known';
  if (t.value === null) return `no request timeout${mark(t)}`;
  return `${durationText(t.value)} request timeout${mark(t)}`;
}

function limitText(p: HostProfile): string {
  const l = p.resultLimit;
  if (!l) return 'no result limit known';
  const parts: string[] = [];
  if (l.value.bytes !== undefined) parts.push(sizeText(l.value.bytes));
  if (l.value.tokens !== undefined) parts.push(`${l.value.tokens.toLocaleString('en-US')} tokens`);
  return `results up to ${parts.join(' / ')}${mark(l)}`;
}

/** "10 MiB line cap, closes the connection past it · 60.0 s request timeout · …" */
export function profileSummary(id: HostProfileId): string {
  const p = hostProfile(id);
  return [capText(p), timeoutText(p), limitText(p)].join(' · ');
}

export interface ProfileOption {
  id: HostProfileId | '';
  label: string;
}

/** The picker's options: none first (Pipescope's own limits), then every profile. */
export const PROFILE_OPTIONS: readonly ProfileOption[] = [
  { id: '', label: 'none (Pipescope’s limits)' },
  ...HOST_PROFILES.map((p) => ({ id: p.id, label: p.name })),
];

/** The max-frame field's value (MiB) for a profile: its line cap, else Pipescope's default. */
export function maxFrameMiBFor(id: HostProfileId | null): string {
  const cap = id ? hostProfile(id).transportCap?.value : null;
  return String((cap ? cap.bytes : SESSION_DEFAULTS.maxFrameBytes) / (1024 * 1024));
}

/**
 * `pipescope check`: the battery's cases and its report (DESIGN.md "Tap, attach and check";
 * docs/check.md). A public contract: case ids are stable, and `check --json` prints exactly one
 * CheckReport. Made by electron/engine/check/, printed by electron/cli/check/ (text, JSON,
 * JUnit). Pure types and words: no DOM, no Node.
 */
import type { Finding, FindingCode } from './findings.js';

/** The battery, in the order it runs and is reported. */
export const CHECK_CASE_IDS = [
  'handshake',
  'stdout-clean',
  'tool-calls',
  'result-contract',
  'buffered-output',
  'stderr-slow',
  'paused-host',
  'cancel-before-work',
  'cancel-mid-output',
  'cancel-subprocess',
  'stdin-while-writing',
  'shutdown',
] as const;
export type CheckCaseId = (typeof CHECK_CASE_IDS)[number];

export function isCheckCaseId(s: string): s is CheckCaseId {
  return (CHECK_CASE_IDS as readonly string[]).includes(s);
}

/** What each case asks of the server, in one line (the human summary, JUnit, docs). */
export const CHECK_CASE_TITLES: Record<CheckCaseId, string> = {
  handshake: 'initialize, initialized and tools/list (every page) answer',
  'stdout-clean': 'nothing but JSON-RPC on stdout: at start-up, in the handshake, in every call',
  'tool-calls': 'every selected tool answers within its budget',
  'result-contract':
    'every answer is under the result budget or says it is incomplete; no base64 in text',
  'buffered-output': 'answers reach the pipe when written, not when stdin closes',
  'stderr-slow': 'the server keeps answering while its stderr is read slowly',
  'paused-host':
    'the host stops reading during the largest call; resumed, the answer is intact and a second request answers',
  'cancel-before-work':
    'a call cancelled at once stops, sends nothing more, and a ping answers fast',
  'cancel-mid-output': 'a call cancelled once its output began stops, and a ping answers fast',
  'cancel-subprocess':
    'a call cancelled while its subprocess runs ends the subprocess, and a ping answers fast',
  'stdin-while-writing': 'a 1 MiB request is read while the server writes an answer',
  shutdown: 'the server exits when its stdin closes, within the grace period, leaving nothing',
};

export type CheckStatus = 'passed' | 'failed' | 'skipped';

export interface CheckCase {
  id: CheckCaseId;
  title: string;
  status: CheckStatus;
  /** Plain words: what was seen (passed), what went wrong (failed), or why it could not run. */
  reason: string;
  durationMs: number;
  /** Finding codes that failed the case (empty when it passed or failed on an assertion). */
  codes: FindingCode[];
  /** The findings the case rests on (its sessions' error and warn findings that matter). */
  findings: Finding[];
  /** What the verdict rests on: tools, sizes, latencies, pids, … */
  evidence: Record<string, unknown>;
}

/** Where a tool to call came from. */
export type CheckToolSource = 'cli' | 'config' | 'default';

/** A tool the battery called, and what its first call (the `tool-calls` case) showed. */
export interface CheckTool {
  name: string;
  args: Record<string, unknown>;
  source: CheckToolSource;
  /** Budget of one call (ms). */
  timeoutMs: number;
  /** `completed`, `failed`, `timed-out`, … of its first call (null: never called). */
  status: string | null;
  latencyMs: number | null;
  responseBytes: number | null;
  /** Progress notifications during its first call. */
  progress: number;
  /** Processes seen under the server while it ran (pid and command). */
  subprocesses: { pid: number; command: string }[];
  /** What the battery used it for: `largest`, `slow`, `subprocess`. */
  roles: string[];
}

export interface CheckReport {
  format: 'pipescope-check';
  version: 1;
  server: { command: string; args: string[] };
  /** ISO time the check started. */
  startedAt: string;
  durationMs: number;
  /** The server's name and version from initialize (null: the handshake failed). */
  serverInfo: { name: string; version: string; protocolVersion: string } | null;
  tools: CheckTool[];
  /** Tools listed but not called, and why (a required parameter, a destructive hint). */
  notCalled: { name: string; why: string }[];
  cases: CheckCase[];
  /** Every server process the battery ran: the case that ran it, its pid and how it ended. */
  runs: {
    case: string;
    pid: number | null;
    exit: { code: number | null; signal: string | null } | null;
  }[];
  summary: { cases: number; passed: number; failed: number; skipped: number };
  /** 0: no case failed; 1: one did (usage errors exit 2 before any report). */
  exitCode: 0 | 1;
}

/** Counts the statuses of `cases`. */
export function summarize(cases: readonly CheckCase[]): CheckReport['summary'] {
  const n = (s: CheckStatus): number => cases.filter((c) => c.status === s).length;
  return { cases: cases.length, passed: n('passed'), failed: n('failed'), skipped: n('skipped') };
}

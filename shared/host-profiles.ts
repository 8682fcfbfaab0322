/**
 * Host profiles (DESIGN.md "Results and host profiles"): what each real MCP host is known to do
 * with a server's answers — the longest line its stdio reader takes and what it does past it,
 * its request timeout, its limit on a tool result — in one table, every number with its source
 * and how sure it is: read from the SDK's own package, in the vendor's documentation, or only
 * reported by users. Where no value could be found, the table says so (null), never a guess.
 * `pipescope hosts` prints it; `--host <id>` applies one; the result audit names the hosts an
 * answer breaks.
 */
import type { ResultAudit } from './result-audit.js';
import { MIB } from './units.js';

export const HOST_PROFILE_IDS = [
  'ts-sdk',
  'python-sdk',
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
] as const;
export type HostProfileId = (typeof HOST_PROFILE_IDS)[number];

/** How a number is known: `package` (the installed SDK's own constant), `source` (the host's
 *  source code), `documented` (the vendor's docs), `reported` (users' issues and posts). */
export type SourceStatus = 'package' | 'source' | 'documented' | 'reported';

export interface Sourced<T> {
  value: T;
  status: SourceStatus;
  /** Where it comes from: a URL, or a file of an installed package. */
  source: string;
  /** What happens at the limit, in words. */
  note: string;
}

export interface ResultLimit {
  bytes?: number;
  tokens?: number;
}

export interface HostProfile {
  id: HostProfileId;
  name: string;
  /** The longest line the host's stdio reader takes; `terminate`: it closes the connection
   *  past it. Value null: it has none (known); null: nothing is known. */
  transportCap: Sourced<{ bytes: number; past: 'terminate' | 'discard' } | null> | null;
  /** The host's request timeout (ms); value null: none. null: not known. */
  requestTimeout: Sourced<number | null> | null;
  /** The largest tool result the host takes. null: no limit is known. */
  resultLimit: Sourced<ResultLimit> | null;
  /** Other behaviour worth knowing, with its source. */
  notes: Sourced<string>[];
}

const TS_SDK_PKG = '@modelcontextprotocol/sdk';
const CLAUDE_CODE_DOCS = 'https://code.claude.com/docs/en/mcp';
const PY_CLIENT =
  'https://github.com/modelcontextprotocol/python-sdk/blob/v1.29.0/src/mcp/client/stdio/__init__.py';

export const HOST_PROFILES: readonly HostProfile[] = [
  {
    id: 'ts-sdk',
    name: 'TypeScript SDK client',
    transportCap: {
      value: { bytes: 10 * MIB, past: 'terminate' },
      status: 'package',
      source: `${TS_SDK_PKG} dist/esm/shared/stdio.js STDIO_DEFAULT_MAX_BUFFER_SIZE (since 1.30.0, PR #2239)`,
      note:
        'its ReadBuffer throws "ReadBuffer exceeded maximum size" and the client closes the ' +
        'connection (every pending request fails)',
    },
    requestTimeout: {
      value: 60_000,
      status: 'package',
      source: `${TS_SDK_PKG} dist/esm/shared/protocol.js DEFAULT_REQUEST_TIMEOUT_MSEC`,
      note:
        'the request fails with RequestTimeout (-32001) and a cancellation is sent; progress ' +
        'resets it only with resetTimeoutOnProgress',
    },
    resultLimit: null,
    notes: [],
  },
  {
    id: 'python-sdk',
    name: 'Python SDK client',
    transportCap: {
      value: null,
      status: 'source',
      source: PY_CLIENT,
      note: 'no limit: a huge line grows its buffer (copied again with each chunk) until it ends',
    },
    requestTimeout: {
      value: null,
      status: 'source',
      source:
        'https://github.com/modelcontextprotocol/python-sdk/blob/v1.29.0/src/mcp/client/session.py',
      note: 'read_timeout_seconds defaults to None: a request waits for ever',
    },
    resultLimit: null,
    notes: [],
  },
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    transportCap: null,
    requestTimeout: {
      value: 60_000,
      status: 'reported',
      source: 'https://github.com/anthropics/claude-code/issues/22542',
      note:
        'the call is abandoned and a later answer dropped (about 4 min is also reported, ' +
        'https://github.com/anthropics/claude-code/issues/44032; not configurable)',
    },
    resultLimit: {
      value: { bytes: MIB },
      status: 'reported',
      source: 'https://github.com/PrefectHQ/fastmcp/issues/1036',
      note:
        'the result is refused ("Tool result is too large. Maximum size is 1MB", formerly ' +
        '"result exceeds maximum length of 1048576")',
    },
    notes: [],
  },
  {
    id: 'claude-code',
    name: 'Claude Code',
    transportCap: null,
    requestTimeout: {
      value: 100_000_000,
      status: 'documented',
      source: CLAUDE_CODE_DOCS,
      note: 'MCP_TOOL_TIMEOUT, about 28 h; progress does not extend it (idle stdio calls: 30 min)',
    },
    resultLimit: {
      value: { tokens: 25_000 },
      status: 'documented',
      source: CLAUDE_CODE_DOCS,
      note: 'MAX_MCP_OUTPUT_TOKENS (default 25,000); a warning from 10,000 tokens',
    },
    notes: [
      {
        value: 'text results over 50,000 characters are saved to a file and replaced by a preview',
        status: 'reported',
        source: 'https://qiita.com/akihidem/items/32e331a9cbe0abf3af11',
        note: 'the docs say "the default threshold" without the number',
      },
    ],
  },
  {
    id: 'cursor',
    name: 'Cursor',
    transportCap: null,
    requestTimeout: {
      value: 300_000,
      status: 'reported',
      source: 'https://github.com/cursor/cursor/issues/3510',
      note: 'the request is cancelled after 5 min; no setting',
    },
    resultLimit: null,
    notes: [
      {
        value: 'only the first 40 tools are sent to the agent',
        status: 'documented',
        source: 'docs.cursor.com, "Limitations: Tool Quantity" (older docs)',
        note: 'not confirmed in the current docs',
      },
    ],
  },
  {
    id: 'vscode',
    name: 'VS Code',
    transportCap: null,
    requestTimeout: {
      value: null,
      status: 'source',
      source:
        'https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/mcp/common/mcpServerRequestHandler.ts',
      note: 'no timer in its MCP client (a 5 min cancellation is reported: microsoft/vscode#261734)',
    },
    resultLimit: null,
    notes: [
      {
        value: 'large results are cut silently to fit the context window',
        status: 'reported',
        source: 'https://github.com/microsoft/vscode/issues/311068',
        note: 'no number documented',
      },
      {
        value: 'at most 128 tools per request',
        status: 'reported',
        source: 'https://github.com/microsoft/vscode-copilot-release/issues/10496',
        note: 'the request fails past it',
      },
    ],
  },
];

export function hostProfile(id: HostProfileId): HostProfile {
  const p = HOST_PROFILES.find((h) => h.id === id);
  if (!p) throw new Error(`unknown host profile ${id}`);
  return p;
}

export function isHostProfileId(s: string): s is HostProfileId {
  return (HOST_PROFILE_IDS as readonly string[]).includes(s);
}

/** The default result budget (DESIGN.md): a result larger than this is `result-over-budget`. */
export const DEFAULT_RESULT_BUDGET_BYTES = MIB;

/** What `--host <id>` sets, where the profile knows it (each still overridable by its flag). */
export interface ProfileSettings {
  maxFrameBytes?: number;
  onOversize?: 'discard' | 'terminate';
  requestTimeoutMs?: number;
  resultBudgetBytes?: number;
}

export function profileSettings(id: HostProfileId): ProfileSettings {
  const p = hostProfile(id);
  const out: ProfileSettings = {};
  const cap = p.transportCap?.value;
  if (cap) {
    out.maxFrameBytes = cap.bytes;
    out.onOversize = cap.past;
  }
  // A host with no timeout: none here either (0 disables it).
  if (p.requestTimeout) out.requestTimeoutMs = p.requestTimeout.value ?? 0;
  if (p.resultLimit?.value.bytes !== undefined) out.resultBudgetBytes = p.resultLimit.value.bytes;
  return out;
}

/** A host an answer breaks, and why in words. */
export interface HostBreak {
  host: HostProfileId;
  name: string;
  status: SourceStatus;
  why: string;
}

/** A size as people read it: `42.4 MiB`, `10 MiB`, `512.0 KiB`, `900 B`. */
export function sizeText(n: number): string {
  if (n >= MIB) return `${(n / MIB).toFixed(n % MIB === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
  return `${n.toLocaleString('en-US')} B`;
}

/** The profiles whose known limits this answer passes (every profile, whatever `--host`). */
export function hostsBroken(audit: ResultAudit): HostBreak[] {
  const out: HostBreak[] = [];
  // An answer whose body was not read: its tokens estimated from its bytes.
  const tokens = audit.partial ? Math.ceil(audit.bytes / 4) : audit.estimatedTokens;
  for (const p of HOST_PROFILES) {
    const cap = p.transportCap;
    const limit = p.resultLimit;
    if (cap?.value && audit.bytes > cap.value.bytes) {
      out.push({
        host: p.id,
        name: p.name,
        status: cap.status,
        why: `a line over ${sizeText(cap.value.bytes)}: ${cap.note}`,
      });
    } else if (limit?.value.bytes !== undefined && audit.bytes > limit.value.bytes) {
      out.push({
        host: p.id,
        name: p.name,
        status: limit.status,
        why: `a result over ${sizeText(limit.value.bytes)}: ${limit.note}`,
      });
    } else if (limit?.value.tokens !== undefined && tokens > limit.value.tokens) {
      out.push({
        host: p.id,
        name: p.name,
        status: limit.status,
        why:
          `≈${tokens.toLocaleString('en-US')} tokens (estimated at 4 characters a token), over ` +
          `${limit.value.tokens.toLocaleString('en-US')}: ${limit.note}`,
      });
    }
  }
  return out;
}

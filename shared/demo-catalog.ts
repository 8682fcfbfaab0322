/**
 * Demo catalog types: what a bundled misbehaving MCP server is, how to show it and what a
 * headless probe of it must see. The data lives in electron/demo-servers/catalog.ts (and
 * catalog-transport.ts); this file is pure types so the renderer, the CLI and the tests read the
 * same shape. No DOM, no Node.
 */

import type { CheckConfigInput } from './check-config.js';
import type { CheckCaseId } from './check-report.js';
import type { FindingCode } from './findings.js';
import type { ReportMetrics } from './metrics.js';
import type { RequestStatus } from './requests.js';

/** One command-line knob of a demo server, passed as `--name=value`. */
export interface DemoKnob {
  name: string;
  description: string;
  /** Default as it would be typed on the command line. */
  default: string;
  /** 'bytes', 'ms', 'count', 'boolean', … (absent for free-form values). */
  unit?: string;
}

/** The headless recipe (what `pipescope probe --demo <id>` runs) that shows the scenario. */
export interface DemoProbe {
  /** Tool to call after the handshake; absent = handshake and stop only. */
  call?: string;
  args?: Record<string, unknown>;
  /**
   * When set, the runner adds a string argument `pad` of this many 'x' to `args`, so the
   * request itself is larger than the stdin pipe (kept out of `args` to keep the catalog small).
   */
  argsPadBytes?: number;
  reader?: 'drain' | 'paused' | 'naive';
  cancelAfterMs?: number;
  consumerDelayMs?: number;
  timeoutMs?: number;
  maxFrameBytes?: number;
  onOversize?: 'discard' | 'terminate';
  /** Knobs for this probe run (on top of the defaults). */
  knobs?: Record<string, string>;
}

/** What the probe must show: the catalog entry is the specification the tests read. */
export interface DemoExpected {
  /** Finding codes that must appear. */
  findings: FindingCode[];
  /** Finding codes that must not appear. */
  absentFindings?: FindingCode[];
  /** Report metrics that must be > 0. */
  metrics: (keyof ReportMetrics)[];
  /** Final status of the `call` request, when the scenario determines it. */
  requestStatus?: RequestStatus;
  /** How the process must end, when the scenario determines it. */
  exit?: { code?: number | null; signal?: string | null };
}

/**
 * How `pipescope check --demo <id>` runs the scenario, and which cases it must fail and skip
 * (every other case must pass). The integration tests read this: one place for the prediction.
 */
export interface DemoCheck {
  /** The tools to call (absent: the default selection, tools without a required parameter). */
  tools?: CheckConfigInput['tools'];
  /** Budget of one call (ms). */
  timeoutMs?: number;
  /** Knobs for the check's runs (on top of the defaults). */
  knobs?: Record<string, string>;
  /** The cases that fail, each for the reason in `why`. */
  failed: CheckCaseId[];
  /** The cases that cannot run against this server (no tool fits them). */
  skipped: CheckCaseId[];
  /** Why the cases fail (and skip), in a sentence: what `demo list` and docs/check.md say. */
  why: string;
}

export interface DemoScenario {
  /** Also the file name: electron/demo-servers/<id>.ts. */
  id: string;
  title: string;
  /** One paragraph in plain words: what goes wrong and why. */
  lesson: string;
  /** 'sdk' = McpServer + StdioServerTransport; 'raw' = hand-written JSON-RPC (and why). */
  implementation: 'sdk' | 'raw';
  /** Tool names the server lists (the conformance test checks them). */
  tools: string[];
  knobs: DemoKnob[];
  /** How to show it by hand, in the app. */
  steps: string[];
  probe: DemoProbe;
  expected: DemoExpected;
  /** What `pipescope check` of it runs and must find (every bundled demo has it: a test says). */
  check?: DemoCheck;
  /**
   * Set when the plain SDK-client conformance check (initialize + tools/list) cannot pass
   * because misbehaving at start-up is the point; the string says why.
   */
  conformanceExcluded?: string;
}

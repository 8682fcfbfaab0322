/**
 * The Chrome trace-event format (JSON object form) that Perfetto and chrome://tracing open:
 * the shapes perfetto.ts and perfetto-process.ts write. Types only.
 */
export interface ChromeTraceEvent {
  name: string;
  ph: 'X' | 'B' | 'E' | 'i' | 'C' | 'M';
  /** Microseconds since the session's start. */
  ts: number;
  pid: number;
  tid: number;
  cat?: string;
  dur?: number;
  /** Scope of an instant event: thread, process or global. */
  s?: 't' | 'p' | 'g';
  args?: Record<string, unknown>;
}

export interface ChromeTrace {
  traceEvents: ChromeTraceEvent[];
  displayTimeUnit: 'ms';
  otherData: Record<string, string | number | boolean | null>;
}

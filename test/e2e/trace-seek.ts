/**
 * Where to seek a recorded trace (JSONL text) to see the server's child in the process tree
 * with its finding raised: pure, so that its cases are tested without a browser
 * (trace-seek.test.ts); process.test.ts seeks there.
 */

/** The time (ms, whole) at which the trace shows the child in the tree and its finding: the
 *  last sample with the child, or, should the finding have come after it (the sample gate keeps
 *  no repeat of an unchanged tree), the finding's time, as long as the tree still had the child
 *  then (no sample came between that lacked it). Throws, saying which, when there is none. */
export function childWithFinding(trace: string, code: string): number {
  let withChild = -1;
  /** The first sample after the last one with the child (every later one lacks it). */
  let gone = -1;
  let finding = -1;
  for (const line of trace.split('\n')) {
    if (line.includes('"type":"finding"') && line.includes(`"code":"${code}"`) && finding < 0)
      finding = (JSON.parse(line) as { t: number }).t;
    if (!line.includes('"type":"process"')) continue;
    const e = JSON.parse(line) as { t: number; snapshot: { processes: unknown[] } | null };
    if ((e.snapshot?.processes.length ?? 0) >= 2) {
      withChild = e.t;
      gone = -1;
    } else if (withChild >= 0 && gone < 0) gone = e.t;
  }
  if (withChild < 0) throw new Error('no sample with the child');
  if (finding < 0) throw new Error(`no ${code} finding`);
  if (finding <= withChild) return Math.ceil(withChild);
  if (gone >= 0 && gone <= finding)
    throw new Error(`the child was gone from the tree before ${code} was found`);
  return Math.ceil(finding);
}

/**
 * Benchmark generator: `node generator.mjs <workload> <stamp-file>`.
 *
 * Builds the workload in memory first, then writes it to stdout as fast as the pipe allows and
 * exits. Just before the first byte is written it takes a CLOCK_MONOTONIC stamp
 * (process.hrtime, shared by every process on the machine) and leaves it in <stamp-file>, so
 * the reader can time the transfer without the generator's start-up and generation.
 */
import { writeFileSync } from 'node:fs';
import { generateWorkload } from './workloads.mjs';

const [spec, stampFile] = process.argv.slice(2);
if (!spec || !stampFile) {
  process.stderr.write('usage: generator.mjs <workload> <stamp-file>\n');
  process.exit(2);
}

const data = generateWorkload(spec);
const startedWriting = process.hrtime.bigint();
process.stdout.on('error', () => process.exit(1)); // reader went away (e.g. a capped reader)
process.stdout.write(data, (err) => {
  writeFileSync(stampFile, `${startedWriting}\n`);
  process.exit(err ? 1 : 0);
});

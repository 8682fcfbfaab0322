/**
 * The JSON scanner module's entry (what `npm run build:wasm` compiles): the machine's exports
 * for a line fed whole or in pieces, and the one-call splitting and scanning of a chunk's lines.
 */
export { feed, finish, input, inputMax, reset } from './json-scan';
export {
  outAt,
  plainRunEnd,
  runBytes,
  runColumns,
  runLargest,
  splitScan,
  splitStop,
} from './lines';
export { setTemplates, templateLines } from './template';

/**
 * The attach report and its candidates: the types live in shared/attach.ts (the renderer reads
 * them over `attach:run` and `attach:list`); re-exported here for the engine and the CLI.
 */
export type {
  AttachBlock,
  AttachReport,
  AttachStdio,
  AttachTreeEntry,
  Candidate,
  ProcRef,
  StdioKind,
  StdioPeer,
} from '../../../shared/attach.js';

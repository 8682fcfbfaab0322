/**
 * Who holds the other end of each of the server's stdio fds, for a server some other host
 * started: a pipe's other end is the holder of the same `pipe:[ino]` with the opposite access
 * mode; a socket's is the holder of its peer's inode, which /proc does not give but `ss` does
 * (without `ss`, the inode next to it, as a socketpair's two ends are made together: a guess,
 * said as one). The host's own processes are searched first (the server's ancestors), then
 * every process. The server's tree is never the other end: it holds the same ends by
 * inheritance.
 */
import type { ProcessSnapshot, StdioEnd } from '../../../shared/process.js';
import type { Holder } from '../process/source.js';
import type { AttachProc, SocketTable } from './proc.js';
import type { AttachStdio, StdioKind, StdioPeer } from './types.js';

/** How far up the server's ancestry the host is looked for first. */
const ANCESTORS = 16;

export function stdioKind(target: string | null): StdioKind {
  if (target === null) return 'unknown';
  if (target.startsWith('pipe:')) return 'pipe';
  if (target.startsWith('socket:')) return 'socket';
  if (target === '/dev/null') return 'null';
  if (/^\/dev\/(pts\/\d+|tty\w*|console)$/.test(target)) return 'tty';
  if (target.startsWith('/')) return 'file';
  return 'other';
}

export function inodeOf(target: string | null): number | null {
  const m = target === null ? null : /^(?:pipe|socket):\[(\d+)\]$/.exec(target);
  return m ? Number(m[1]) : null;
}

export interface PeerContext {
  proc: AttachProc;
  holders(target: string, pids: readonly number[]): Promise<Holder[]>;
  /** The server's tree: it holds the same ends as the server, never the other one. */
  tree: ReadonlySet<number>;
  sockets: SocketTable | null;
}

/** The server's ancestors, nearest first (the host is usually the parent). */
export function ancestorsOf(pid: number, proc: AttachProc): number[] {
  const out: number[] = [];
  let cur = proc.parentOf(pid);
  while (cur !== null && cur > 0 && out.length < ANCESTORS && !out.includes(cur)) {
    out.push(cur);
    cur = proc.parentOf(cur);
  }
  return out;
}

/** The end wanted: a reader for what the server writes, a writer for its stdin. */
function wantedMode(fd: 0 | 1 | 2): Holder['mode'] {
  return fd === 0 ? 'write' : 'read';
}

async function findHolder(
  target: string,
  accept: (h: Holder) => boolean,
  order: readonly (readonly number[])[],
  ctx: PeerContext,
): Promise<Holder | null> {
  for (const pids of order) {
    const held = (await ctx.holders(target, pids)).filter((h) => !ctx.tree.has(h.pid) && accept(h));
    // In the search order (the nearest ancestor first), not in the order /proc lists fds.
    held.sort((a, b) => pids.indexOf(a.pid) - pids.indexOf(b.pid));
    if (held[0]) return held[0];
  }
  return null;
}

function peerOf(h: Holder, how: string, ctx: PeerContext): StdioPeer {
  return { pid: h.pid, command: ctx.proc.commandOf(h.pid) ?? '', fd: h.fd, how };
}

/** Resolves fds 0-2 of the server (`targets`: their /proc links). */
export async function resolveStdio(
  rootPid: number,
  targets: readonly (string | null)[],
  ctx: PeerContext,
): Promise<AttachStdio[]> {
  const ancestors = ancestorsOf(rootPid, ctx.proc).filter((p) => !ctx.tree.has(p));
  let everyone: number[] | null = null;
  const rest = (): number[] => {
    everyone ??= ctx.proc
      .allPids()
      .filter((p) => !ctx.tree.has(p) && !ancestors.includes(p) && p !== process.pid);
    return everyone;
  };
  const out: AttachStdio[] = [];
  for (const fd of [0, 1, 2] as const) {
    const target = targets[fd] ?? null;
    const kind = stdioKind(target);
    const inode = inodeOf(target);
    let peer: StdioPeer | null = null;
    let unread: AttachStdio['unread'] = null;
    if (target !== null && kind === 'pipe') {
      const mode = wantedMode(fd);
      const h =
        (await findHolder(target, (x) => x.mode === mode, [ancestors], ctx)) ??
        (await findHolder(target, (x) => x.mode === mode, [rest()], ctx));
      const end = mode === 'read' ? 'read end' : 'write end';
      if (h) peer = peerOf(h, `holds the ${end} of ${target} as fd ${h.fd}`, ctx);
    } else if (kind === 'socket' && inode !== null) {
      const row = ctx.sockets?.get(inode);
      if (row) {
        const other = `socket:[${row.peer}]`;
        const h =
          (await findHolder(other, () => true, [ancestors], ctx)) ??
          (await findHolder(other, () => true, [rest()], ctx));
        if (h) peer = peerOf(h, `holds the other end, ${other} (ss), as fd ${h.fd}`, ctx);
        const readerRow = fd === 0 ? row : ctx.sockets?.get(row.peer);
        if (readerRow) unread = { start: readerRow.recvQ, end: readerRow.recvQ };
      } else if (ctx.sockets === null) {
        peer = await guessSocketPeer(inode, ancestors, ctx);
      }
    }
    out.push({ fd, kind, target, inode, peer, unread });
  }
  return out;
}

/** Without `ss`: an ancestor holding the inode next to ours is likely the other end. */
async function guessSocketPeer(
  inode: number,
  ancestors: readonly number[],
  ctx: PeerContext,
): Promise<StdioPeer | null> {
  for (const near of [inode - 1, inode + 1]) {
    const other = `socket:[${near}]`;
    const h = await findHolder(other, () => true, [ancestors], ctx);
    if (h) {
      return {
        ...peerOf(h, '', ctx),
        how: `likely: holds ${other}, the inode next to it, as fd ${h.fd} (a socketpair's ends are made together; without ss the peer cannot be confirmed)`,
      };
    }
  }
  return null;
}

/** The host: whoever reads the server's stdout, else whoever writes its stdin. */
export function hostOf(stdio: readonly AttachStdio[]): (StdioPeer & { how: string }) | null {
  const out = stdio.find((s) => s.fd === 1)?.peer;
  if (out) return { ...out, how: `reads its stdout: ${out.how}` };
  const input = stdio.find((s) => s.fd === 0)?.peer;
  if (input) return { ...input, how: `writes its stdin: ${input.how}` };
  return null;
}

/** The same snapshot with the ends the sampler could not know: the host's, on every process
 *  of the tree that shares one of the server's stdio fds, and sockets whose peer ss names. */
export function withPeers(
  snap: ProcessSnapshot,
  stdio: readonly AttachStdio[],
  socketPeer: (target: string) => StdioEnd['peer'] | undefined,
): ProcessSnapshot {
  const byTarget = new Map<string, AttachStdio>();
  for (const s of stdio) if (s.target !== null && s.peer) byTarget.set(s.target, s);
  const names = ['stdin', 'stdout', 'stderr'];
  return {
    ...snap,
    processes: snap.processes.map((p) => ({
      ...p,
      stdio: p.stdio.map((e) => {
        const link = e.target === null ? undefined : byTarget.get(e.target);
        if (link?.peer) {
          const note = `the server's ${names[link.fd]}: ${link.peer.how}`;
          return { ...e, peer: { pid: link.peer.pid, command: link.peer.command, note } };
        }
        if (e.peer === null && e.target?.startsWith('socket:')) {
          const named = socketPeer(e.target);
          if (named) return { ...e, peer: named };
        }
        return e;
      }),
    })),
  };
}

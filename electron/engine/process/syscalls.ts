/**
 * Linux system call numbers → names, for the calls that tell why a process is quiet. The
 * numbers are per architecture (x86-64 has its own table; arm64 uses the generic one); an
 * architecture not listed gives names as null and the number is shown as it is. Which of them
 * take an fd first and a byte count third is what `read`/`write` evidence rests on.
 */

type Table = Readonly<Record<number, string>>;

const X64: Table = {
  0: 'read',
  1: 'write',
  7: 'poll',
  17: 'pread64',
  18: 'pwrite64',
  19: 'readv',
  20: 'writev',
  23: 'select',
  34: 'pause',
  35: 'nanosleep',
  42: 'connect',
  43: 'accept',
  44: 'sendto',
  45: 'recvfrom',
  46: 'sendmsg',
  47: 'recvmsg',
  61: 'wait4',
  130: 'rt_sigsuspend',
  202: 'futex',
  230: 'clock_nanosleep',
  232: 'epoll_wait',
  247: 'waitid',
  270: 'pselect6',
  271: 'ppoll',
  275: 'splice',
  281: 'epoll_pwait',
  288: 'accept4',
  441: 'epoll_pwait2',
};

const GENERIC: Table = {
  22: 'epoll_pwait',
  63: 'read',
  64: 'write',
  65: 'readv',
  66: 'writev',
  67: 'pread64',
  68: 'pwrite64',
  72: 'pselect6',
  73: 'ppoll',
  76: 'splice',
  95: 'waitid',
  98: 'futex',
  101: 'nanosleep',
  115: 'clock_nanosleep',
  133: 'rt_sigsuspend',
  202: 'accept',
  203: 'connect',
  206: 'sendto',
  207: 'recvfrom',
  211: 'sendmsg',
  212: 'recvmsg',
  242: 'accept4',
  260: 'wait4',
  441: 'epoll_pwait2',
};

export function syscallTable(arch: string = process.arch): Table | null {
  if (arch === 'x64') return X64;
  if (arch === 'arm64') return GENERIC;
  return null;
}

export type SyscallClass = 'write' | 'read' | 'wait-child' | 'event-loop' | 'other';

const CLASSES: Readonly<Record<string, SyscallClass>> = {
  write: 'write',
  writev: 'write',
  pwrite64: 'write',
  sendto: 'write',
  sendmsg: 'write',
  splice: 'write',
  read: 'read',
  readv: 'read',
  pread64: 'read',
  recvfrom: 'read',
  recvmsg: 'read',
  wait4: 'wait-child',
  waitid: 'wait-child',
  // A shell's `wait` builtin (dash) waits for its children in rt_sigsuspend.
  rt_sigsuspend: 'wait-child',
  epoll_wait: 'event-loop',
  epoll_pwait: 'event-loop',
  epoll_pwait2: 'event-loop',
  poll: 'event-loop',
  ppoll: 'event-loop',
  select: 'event-loop',
  pselect6: 'event-loop',
};

export function classOf(name: string | null): SyscallClass {
  return name === null ? 'other' : (CLASSES[name] ?? 'other');
}

/** Calls whose first argument is an fd. */
const FD_FIRST = new Set([
  'read',
  'write',
  'readv',
  'writev',
  'pread64',
  'pwrite64',
  'sendto',
  'sendmsg',
  'recvfrom',
  'recvmsg',
  'accept',
  'accept4',
  'connect',
  'splice',
]);

/** Calls whose third argument is a byte count. */
const BYTES_THIRD = new Set(['read', 'write', 'pread64', 'pwrite64', 'sendto', 'recvfrom']);

export function takesFd(name: string | null): boolean {
  return name !== null && FD_FIRST.has(name);
}

export function takesBytes(name: string | null): boolean {
  return name !== null && BYTES_THIRD.has(name);
}

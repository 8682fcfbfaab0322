/**
 * A thread's own priority, for bulk work whose result may come late but which must never take
 * the CPU from what it observes (the result audit's JSON.parse of a 40 MiB answer beside the
 * server writing it and the reader draining it). Linux: nice is per thread, set through the
 * thread's id (/proc/thread-self); threads it starts inherit it. Elsewhere, and where it is not
 * permitted, nothing changes. Not for anything a person waits on: on a busy machine a thread at
 * nice 10 gets a tenth of a core's share (the tap's observer at nice 10 fell 15 s behind under
 * two CPU hogs, docs/performance.md).
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export function lowerThisThread(nice: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

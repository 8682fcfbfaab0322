/*
 * `--yield-to-host PID` (PID is the tap, the relay's parent; any other pid is ignored, relay.c):
 * the tap's observing threads give way to the host's path.
 *
 * Why: on a small machine the tap's observer (Node, ~0.1 ms of CPU per message) shares the CPUs
 * with the host, the server and this relay. A task of the host's path that wakes on the CPU the
 * observer is running on waits for the observer's slice to end, up to ~1.5 ms, while the other
 * CPU may be idle (`perf sched timehist`: the tap added 1.3-1.9 ms to a small message's p99). So
 * the tap's threads but its main one are kept on one CPU, the last they may use, at nice 5
 * (never less nice than they already are): the host's path has the other CPUs to itself, and the
 * observer works in the time the path leaves. The tap's main thread (signals, the exit the host
 * waits for), this relay and the server (spawned before) are not touched.
 *
 * When: at the relay's start (V8's and libuv's threads), and again on C_YIELD, which the tap sends
 * once it has started its observer thread; the threads that thread starts inherit from it.
 *
 * Measured (docs/performance.md, sixth round): p99 of a small message's round trip within
 * 0.2 ms of direct (1.4-1.7 ms over it without); nice 10 measured the same, nice 0 (the CPU
 * only) +0.4 to +0.6 ms. What it costs: on a busy machine the observer gets less CPU (nice 5:
 * about a quarter of a CPU a nice-0 task also wants), so it lags: its copies wait in the ring
 * (RING_MAX), past which they are gaps, said as such; the tap's exit, which waits for the
 * observer's files, came 54-67 ms after the server's with two CPU hogs running (33-41 ms
 * without yielding). Linux's per-thread nice and affinity; a thread that refuses (gone, or
 * another user's) is skipped.
 */
#include "relay.h"

#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>

#define YIELD_NICE 5
#define YIELD_SEEN_MAX 256

pid_t yield_pid;
static pid_t seen[YIELD_SEEN_MAX];
static int n_seen;

/* The last CPU `pid` may run on, or -1 when it may run on one only (nothing to give way to). */
static int last_cpu(pid_t pid) {
  cpu_set_t set;
  if (sched_getaffinity(pid, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2) return -1;
  for (int c = CPU_SETSIZE - 1; c >= 0; c--)
    if (CPU_ISSET(c, &set)) return c;
  return -1;
}

static void yield_thread(pid_t tid, int cpu) {
  if (cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(tid, sizeof one, &one);
  }
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, (id_t)tid);
  if (errno == 0 && nice < YIELD_NICE) setpriority(PRIO_PROCESS, (id_t)tid, YIELD_NICE);
}

/* One pass over the tap's threads: how many were new. */
static int yield_pass(int cpu) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)yield_pid);
  DIR *d = opendir(path);
  if (!d) return 0;
  int fresh = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    pid_t tid = (pid_t)atol(e->d_name);
    if (tid <= 0 || tid == yield_pid) continue;
    int known = 0;
    for (int i = 0; i < n_seen && !known; i++) known = seen[i] == tid;
    if (known) continue;
    if (n_seen < YIELD_SEEN_MAX) seen[n_seen++] = tid;
    fresh++;
    yield_thread(tid, cpu);
  }
  closedir(d);
  return fresh;
}

void yield_to_host(void) {
  if (yield_pid <= 0) return;
  /* The main thread's CPUs: the tap's threads may have been moved by the host meanwhile. */
  int cpu = last_cpu(yield_pid);
  /* A thread started during a pass may be missed by it: passes until one finds nothing new. */
  for (int pass = 0; pass < 4; pass++)
    if (yield_pass(cpu) == 0) break;
}

/*
 * pipescope-relay: the byte pump of `pipescope tap` on Linux (electron/tap/native-relay.ts runs
 * it; DESIGN.md "Tap, attach and check"). A relay written in JavaScript costs a host 2.5-4x the
 * time of a direct pipe on a 64 MiB answer (docs/performance.md); this one moves the server's
 * output with splice(2) and copies it for the observer with tee(2), so no byte of it passes
 * through user space and the host reads it about as fast as it would without the tap.
 *
 * The parts (relay.h says what they share): this file starts, loops and ends; out.c moves the
 * server's output to the host, copier.c keeps the copies for the tap, stdin.c moves the host's
 * lines to the server, control.c sends records to the tap and reads its commands.
 *
 * File descriptors, set up by the tap (Node's spawn):
 *   0 host stdin   1 host stdout   2 host stderr (the tap's own)
 *   3 server stdin 4 server stdout 5 server stderr   (the ends the tap holds)
 *   6 control: records to the tap (events, marks, the host's stdin copies); commands from it
 *   7 stdout copies   8 stderr copies   (the bytes the marks on 6 describe, in order)
 *
 * Server -> host (stdout, and stderr the same way): splice the server's socket into a pipe P
 * (one 64 KiB load at a time), tee P's head into the copies' pipe O, splice P into the host's fd.
 * A copier thread per stream moves O's buffers into holds (hold.c: pipes, so a copy stays a
 * reference to the server's own page, never copied while the answer goes by) or, past the
 * holds' bounds, into a ring, and hands them to the tap only once the host's path is still
 * (deliver_due): the tap reads a large answer's copies after it reached the host, not while it
 * competes with it for the CPU. The records that describe them wait with them (cq_due). While a
 * burst is held, this thread tees P's head into the holds itself (hold_here) rather than waking
 * the copier for each load; should the copier fall behind (O full), this thread puts the load
 * into the holds or the ring itself, after what O holds; past RING_MAX waiting a load goes
 * uncopied (a gap): observing never waits. While the host does not take
 * P, the server is not read: it blocks in write() as it would without the tap, and the tap holds
 * nothing but P. Each piece the host took is described on fd 6 by a mark (offset, length, copied
 * or not, when it was read from the server, when the host's pipe took it). A host's fd that
 * splice refuses (a file opened O_APPEND: `2>>log`) is written from a buffer instead (copy_out).
 * Host -> server (stdin): read and write (requests are small), so that Pipescope's own lines (a
 * cancellation) go in between two of the host's lines, never inside one; copies go on fd 6.
 *
 * Nothing here ever writes fd 1 but the server's bytes. SIGPIPE, SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGUSR1 and SIGUSR2 are ignored: the tap forwards the host's signals to the server,
 * and this process ends when the server's output has ended and reached the host and its stdin
 * is closed (by either side), or the server is gone (the tap says abandon: what its pipes held
 * then is delivered first), or with the tap (PR_SET_PDEATHSIG). Memory: fixed buffers, the copies
 * waiting under RING_MAX a stream, in holds (at most HOLD_PIPES pipes, closed once empty but one
 * of a pipe's default size; their pages are the server's, kernel memory, not this process's) and
 * a ring (its pages made resident ahead of the copies it takes, given back once it has been empty
 * for 5 s), and the control queue under CTRL_MAX (past it, no copies, and uncopied pieces are
 * told as one).
 */
#include "relay.h"

uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The host's fds 0 and 1 as the relay found them (-1: let go). O_NONBLOCK goes on their open
 * file descriptions, which others may share (a terminal): they get their flags back once the
 * relay is done with them. (fd 2 is the tap's too: Node puts its flags back as the tap exits.) */
static int host_flags[2] = {-1, -1};
/* Whether the host's fds 0, 1 and 2 are not all apart (`2>&1`, one socket both ways): then the
 * flags come back only once the relay is done with all of them. */
int host_shared;

void host_restore(int fd) {
  if (host_flags[fd] >= 0) fcntl(fd, F_SETFL, host_flags[fd]);
  host_flags[fd] = -1;
}

/* `--server-sndbuf N`: the tap had the server's stdout socket made N bytes (`exec
 * --stdout-sndbuf`), from the system's default (libuv's socketpair sets none). The host's socket,
 * where the host gave the tap one, grows by what the server's lost, until the relay lets go of it:
 * what the two sockets and the relay's pipe hold together (how far the server gets when the host
 * stops reading) stays as it was, but more of it is on the host's side, which the host then reads
 * without waiting for the relay to be scheduled again. A socket's SO_SNDBUF is doubled by the
 * kernel (and capped by wmem_max, root's too): it is set to half what is wanted. */
static long server_sndbuf = -1;
static int host_sndbuf = -1; /* the host's socket's own, to give back (-1: not changed) */

/* A number from /proc/sys, or `fallback` where it cannot be read. */
long sysctl_long(const char *path, long fallback) {
  long v = fallback;
  FILE *f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%ld", &v) != 1) v = fallback;
    fclose(f);
  }
  return v;
}

/* Only a Unix socket (a TCP one sizes itself while it sends: a size set on it stops that, for
 * good), and only one whose size SO_SNDBUF can give back (past wmem_max, which caps it for root
 * too, only SO_SNDBUFFORCE could: it would be made smaller, and stay so). */
static void host_buffer_grow(void) {
  if (server_sndbuf < 0) return;
  long def = sysctl_long("/proc/sys/net/core/wmem_default", 212992); /* the kernel's default */
  long max = sysctl_long("/proc/sys/net/core/wmem_max", -1);
  int cur = 0, domain = 0;
  socklen_t len = sizeof cur, dlen = sizeof domain;
  if (def <= server_sndbuf || getsockopt(HOST_OUT, SOL_SOCKET, SO_SNDBUF, &cur, &len) != 0 ||
      getsockopt(HOST_OUT, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) != 0 || domain != AF_UNIX ||
      cur / 2 > max)
    return;
  int want = (int)((cur + def - server_sndbuf) / 2);
  if (setsockopt(HOST_OUT, SOL_SOCKET, SO_SNDBUF, &want, sizeof want) == 0) host_sndbuf = cur;
}

/* Before the relay lets go of the host's stdout: its socket's own size back. */
void host_buffer_restore(void) {
  if (host_sndbuf < 0) return;
  int v = host_sndbuf / 2;
  setsockopt(HOST_OUT, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
  host_sndbuf = -1;
}

void fail(const char *what) {
  char msg[256];
  int n = snprintf(msg, sizeof msg, "pipescope-relay: %s: %s\n", what, strerror(errno));
  if (n > 0 && write(HOST_ERR, msg, (size_t)n) < 0) { /* nothing left to tell */ }
  host_buffer_restore();
  host_restore(HOST_IN);
  host_restore(HOST_OUT);
  _exit(70);
}

struct out outs[2];
/* Set by the relay's thread (read_commands), read by the copiers too: atomic. */
int abandoning;
int devnull = -1;


/* Tests only: `--slow-copier`: the copier takes a load a millisecond at most, so that O fills
 * and the relay's own thread copies (ring_copy_here); `--no-populate`: as on a kernel without
 * MADV_POPULATE_WRITE (before Linux 5.14 madvise says EINVAL), the ring's pages come as the
 * copies touch them. */
int slow_copier, no_populate;
/* Tests only: `--no-holds`: the copies go to the ring alone, as before there were holds
 * (hold.c); `--hold-pipes N`: at most N holds a stream, so that the ring takes the rest. */
int no_holds, hold_pipes;
/* `--hold-budget N` (tests): the bytes the holds may take of the user's pipe pages, as for a
 * relay that is not root (hold.c hold_budget_init); -1: as the relay is. */
static long long hold_budget = -1;


static void nonblock(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* `pipescope-relay exec <tap pid> -- <command> [args...]`: how the tap starts its server on
 * Linux. The parent-death signal set, then the parent checked (setpriv, which the tap used before,
 * does not check: a tap killed between the fork and its prctl left the server an orphan), then
 * the server exec'd in this process (the same pid, argv, environment and cwd; the death signal
 * survives the exec). Before anything else in main: dispositions the relay changes survive an exec. */
/* After a failed exec of `what`: said on stderr, and the shell's code (127: not found). */
static void exec_failed(const char *what) {
  int e = errno;
  char msg[512];
  int n = snprintf(msg, sizeof msg, "pipescope tap: cannot start %s: %s\n", what, strerror(e));
  if (n > 0 && write(HOST_ERR, msg, (size_t)n) < 0) { /* nothing left to tell */ }
  _exit(e == ENOENT ? 127 : 126);
}

/* `exec <tap pid> --stdout-sndbuf N -- …`: the server's stdout socket made N bytes (see
 * host_buffer_grow); nothing where it is not a socket. */
static int exec_server(int argc, char **argv) {
  pid_t tap = (pid_t)atol(argv[2]);
  int at = 3;
  if (strcmp(argv[3], "--stdout-sndbuf") == 0) {
    if (argc < 7 || strcmp(argv[5], "--") != 0) {
      fprintf(stderr, "pipescope-relay: exec <tap pid> [--stdout-sndbuf N] -- <command>\n");
      _exit(2);
    }
    int v = atoi(argv[4]) / 2;
    if (v > 0) setsockopt(STDOUT_FILENO, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
    at = 5;
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != tap) _exit(137); /* the tap is gone: as its SIGKILL would have ended us */
  execvp(argv[at + 1], &argv[at + 1]);
  exec_failed(argv[at + 1]);
  return 126;
}

/* The variable that carries the host's NODE_EXTRA_CA_CERTS past the tap's own Node (exec_node),
 * as `<this pid>:<value>`: bin/pipescope.js puts the value back only when the pid is its own (or
 * its parent's: a `node` that is a shim starting Node as its child), so that a host's own
 * PIPESCOPE_TAP_FRONT_CA reaches its server as it was. Keep in step with bin/pipescope.js. */
#define FRONT_CA "PIPESCOPE_TAP_FRONT_CA"

/* `pipescope-relay node <node> <bin/pipescope.js> tap ...`: the command `tap install` writes in
 * a host's config on Linux. Node reads and parses the CA bundle NODE_EXTRA_CA_CERTS names
 * before any script runs (~45 ms here), and the server waits for the tap to start: the tap's own
 * Node needs none (it makes no TLS connection), so the variable moves to FRONT_CA, and the tap
 * puts it back before it starts the server (bin/pipescope.js), whose environment is the host's
 * exactly. Then Node is exec'd in this process (the pid the host started; no signal disposition
 * or mask is changed, so Node starts as the host would have started it). A host environment that
 * has FRONT_CA already is left as it is (Node then parses the bundle). */
static int exec_node(char **argv) {
  const char *ca = getenv("NODE_EXTRA_CA_CERTS");
  if (ca && !getenv(FRONT_CA)) {
    size_t size = strlen(ca) + 32;
    char *tagged = malloc(size);
    if (tagged && snprintf(tagged, size, "%ld:%s", (long)getpid(), ca) > 0 &&
        setenv(FRONT_CA, tagged, 1) == 0)
      unsetenv("NODE_EXTRA_CA_CERTS");
    free(tagged);
  }
  execv(argv[2], &argv[2]);
  exec_failed(argv[2]);
  return 126;
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "exec") == 0 &&
      (strcmp(argv[3], "--") == 0 || strcmp(argv[3], "--stdout-sndbuf") == 0))
    return exec_server(argc, argv);
  if (argc >= 3 && strcmp(argv[1], "node") == 0) return exec_node(argv);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--slow-copier") == 0) slow_copier = 1;
    else if (strcmp(argv[i], "--no-populate") == 0) no_populate = 1;
    else if (strcmp(argv[i], "--no-holds") == 0) no_holds = 1;
    else if (strcmp(argv[i], "--hold-pipes") == 0 && i + 1 < argc) hold_pipes = atoi(argv[++i]);
    else if (strcmp(argv[i], "--hold-budget") == 0 && i + 1 < argc) hold_budget = atoll(argv[++i]);
    else if (strcmp(argv[i], "--server-sndbuf") == 0 && i + 1 < argc)
      server_sndbuf = atol(argv[++i]);
    else if (strcmp(argv[i], "--yield-to-host") == 0 && i + 1 < argc)
      yield_pid = (pid_t)atol(argv[++i]);
  }
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(71); /* the tap died before we could follow it */
  /* Only the tap that started us gives way: a pid on the command line that is not our parent
   * (a mistake, or another process's) is left alone. */
  if (yield_pid != parent) yield_pid = 0;
  /* The tap's threads that are there now; its observer's come with C_YIELD (yield.c). */
  yield_to_host();
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  /* The tap's own (a dump) and one it forwards: sent to the host's process group, they reach
   * this process too, whose default is to die of them. */
  signal(SIGUSR1, SIG_IGN);
  signal(SIGUSR2, SIG_IGN);
  for (int fd = 0; fd <= OBS_ERR; fd++) {
    if (fcntl(fd, F_GETFD) < 0) fail("a descriptor the tap should have given");
    if (fd <= HOST_OUT) host_flags[fd] = fcntl(fd, F_GETFL);
    nonblock(fd);
  }
  struct stat st[3];
  for (int fd = 0; fd < 3; fd++)
    if (fstat(fd, &st[fd]) < 0) fail("fstat");
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++)
      if (st[a].st_dev == st[b].st_dev && st[a].st_ino == st[b].st_ino) host_shared = 1;
  devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull < 0) fail("/dev/null");
  host_buffer_grow();
  hold_budget_init(hold_budget);
  out_init(&outs[0], 0, SRV_OUT, HOST_OUT, OBS_OUT);
  out_init(&outs[1], 1, SRV_ERR, HOST_ERR, OBS_ERR);
  uint64_t ready[1] = {now_ns()};
  record(R_READY, 0, 0, ready, 1, NULL, 0);

  for (;;) {
    /* Each step tries only what may have something (src_idle, in_idle); while bytes keep
     * moving, a poll without waiting every SPIN_NS says what the others have. */
    int moved;
    uint64_t spin_from = now_ns();
    do {
      moved = 0;
      for (int i = 0; i < 2; i++) moved |= out_step(&outs[i]);
      moved |= in_step();
    } while (moved && now_ns() - spin_from < SPIN_NS);
    uint64_t t = now_ns();
    if (state_dirty ? t - last_state_at >= STATE_MIN_NS : t - last_state_at >= STATE_EVERY_NS)
      send_state(t, 0);
    /* The server's output has ended and reached the host; its stdin goes on being relayed
     * until one side closes it, or the server is gone (abandon): a server may close stdout and
     * stderr and still read. */
    if (outs[0].done && outs[1].done && (in_closed || abandoning)) break;
    /* What waited for room in the queue, once it has some. */
    for (int i = 0; i < 2; i++)
      if (outs[i].gap_n && cq_room(MARK_BYTES)) gap_flush(&outs[i]);
    if (in_gap_n && cq_room(GAP_BYTES)) in_gap_flush();
    /* What this round said goes to the tap before waiting, once a batch is due. */
    t = now_ns();
    if (cq_due(t)) cq_flush();

    struct pollfd p[12];
    int n = 0;
    for (int i = 0; i < 2; i++) {
      struct out *s = &outs[i];
      if (s->done) continue;
      if (s->in_p == 0 && reading(s)) p[n++] = (struct pollfd){s->src, POLLIN, 0};
      if (s->in_p > 0 && !s->dst_gone) p[n++] = (struct pollfd){s->dst, POLLOUT, 0};
    }
    if (!in_closed) {
      /* Not while a line of Pipescope's waits for the server (in_step reads nothing then):
       * the host's next bytes would wake the poll at once, for as long as the server stalls. */
      if (in_off == in_len && !in_eof && !(inj_head && in_at_line_end))
        p[n++] = (struct pollfd){HOST_IN, POLLIN, 0};
      if (in_off < in_len || (inj_head && in_at_line_end))
        p[n++] = (struct pollfd){SRV_IN, POLLOUT, 0};
      else
        p[n++] = (struct pollfd){SRV_IN, 0, 0}; /* its end closed: POLLHUP/POLLERR, no write */
    }
    if (!ctrl_gone) {
      short ev = cq_due(t) ? POLLIN | POLLOUT : POLLIN;
      /* Past its bound the queue is only drained: stop reading what would add to it. */
      p[n++] = (struct pollfd){CTRL, ev, 0};
    }
    uint64_t wait_ms = state_dirty ? STATE_MIN_NS / 1000000 : STATE_EVERY_NS / 1000000;
    /* A batch of records or copies waiting: wake when it is due. */
    if ((cq_pending() || copies_ending()) && wait_ms > CTRL_BATCH_NS / 1000000)
      wait_ms = CTRL_BATCH_NS / 1000000;
    int r = poll(p, (nfds_t)n, moved ? 0 : (int)wait_ms);
    if (r < 0 && errno != EINTR) fail("poll");
    for (int i = 0; i < n; i++) {
      int has = p[i].revents & (POLLIN | POLLHUP | POLLERR);
      for (int k = 0; k < 2; k++)
        if (has && p[i].fd == outs[k].src) outs[k].src_idle = 0;
      if (has && p[i].fd == HOST_IN) in_idle = 0;
      if (has && p[i].fd == CTRL) read_commands();
      /* The server closed its stdin (or exited) with nothing of ours to write. */
      if (p[i].fd == SRV_IN && p[i].events == 0 && (p[i].revents & (POLLHUP | POLLERR)) &&
          !in_closed)
        stdin_closed();
      /* A peer that hung up reads as EOF or EPIPE in the next step. */
    }
  }
  /* Everything is delivered: say so, and let the tap read the last records. Pipescope's lines
   * still waiting (the host inside a line, the server not reading) will never be written: said,
   * as the Node relay says it (the tap's session waits for each line's outcome). */
  host_buffer_restore();
  host_restore(HOST_IN);
  host_restore(HOST_OUT);
  if (!ctrl_gone) read_commands();
  inject_fail_all("the server is gone");
  send_state(now_ns(), 1);
  uint64_t done[1] = {now_ns()};
  record(R_DONE, 0, 0, done, 1, NULL, 0);
  /* The last records: wait for the tap to take them, so long (it may be gone or stuck). */
  uint64_t until = now_ns() + OBS_DRAIN_NS;
  for (cq_flush(); cq_pending() && now_ns() < until; cq_flush()) {
    struct pollfd p = {CTRL, POLLOUT, 0};
    poll(&p, 1, 100);
  }
  return 0;
}

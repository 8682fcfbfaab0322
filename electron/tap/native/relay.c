/*
 * pipescope-relay: the byte pump of `pipescope tap` on Linux (electron/tap/native-relay.ts runs
 * it; DESIGN.md "Tap, attach and check"). A relay written in JavaScript costs a host 2.5-4x the
 * time of a direct pipe on a 64 MiB answer (docs/performance.md); this one moves the server's
 * output with splice(2) and copies it for the observer with tee(2), so no byte of it passes
 * through user space and the host reads it about as fast as it would without the tap.
 *
 * File descriptors, set up by the tap (Node's spawn):
 *   0 host stdin   1 host stdout   2 host stderr (the tap's own)
 *   3 server stdin 4 server stdout 5 server stderr   (the ends the tap holds)
 *   6 control: records to the tap (events, marks, the host's stdin copies); commands from it
 *   7 stdout copies   8 stderr copies   (the bytes the marks on 6 describe, in order)
 *
 * Server -> host (stdout, and stderr the same way): splice the server's socket into a pipe P
 * (one 64 KiB load at a time), tee P's head into the copies' pipe O, splice P into the host's fd.
 * A copier thread per stream moves O into a ring and hands the ring to the tap only once the
 * host's path is still (deliver_due): the tap reads a large answer's copies after it reached the
 * host, not while it competes with it for the CPU. Should the copier fall behind (O full), this
 * thread copies the load into the ring itself, after what O holds; past the ring's bound a load
 * goes uncopied (a gap): observing never waits. While the host does not take
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
 * then is delivered first), or with the tap (PR_SET_PDEATHSIG). Memory: fixed buffers, a ring per
 * stream under RING_MAX (its pages made resident ahead of the copies, given back but RING_WARM once
 * it has been empty for 5 s), and the control queue under CTRL_MAX (past it, no copies, and
 * uncopied pieces are told as one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { HOST_IN = 0, HOST_OUT = 1, HOST_ERR = 2, SRV_IN = 3, SRV_OUT = 4, SRV_ERR = 5, CTRL = 6,
       OBS_OUT = 7, OBS_ERR = 8 };

/* Records to the tap: an 8-byte header (type, dir, flags, payload length) and a payload of
 * little-endian u64s, then bytes. Keep in step with electron/tap/native-records.ts. */
enum { R_READY = 1, R_MARK = 2, R_EOF = 3, R_STATE = 4, R_STDIN = 5, R_STDIN_GAP = 6,
       R_STDIN_EOF = 7, R_INJECT_DONE = 8, R_HOST_GONE = 9, R_DONE = 10, R_ERROR = 11 };
enum { F_OBSERVED = 1, F_UNDELIVERED = 2 };
/* Commands from the tap: an 8-byte header (type, 0, 0, payload length), then the payload. */
enum { C_INJECT = 1, C_ABANDON = 2 };

#define LOAD (64 * 1024)
#define OBS_PIPE (1024 * 1024)
#define RING_MAX (128 * 1024 * 1024)
#define STDIN_BUF (64 * 1024)
#define CTRL_MAX (16 * 1024 * 1024)
#define CMD_MAX (1024 * 1024)
#define MARK_BYTES (8 + 4 * 8)
#define STATE_BYTES (8 + 11 * 8)
#define GAP_BYTES (8 + 3 * 8)
#define STATE_EVERY_NS 100000000ull
#define STATE_MIN_NS 5000000ull
#define CTRL_BATCH_NS 2000000ull
#define CTRL_BATCH_BYTES (64 * 1024)
#define OBS_DRAIN_NS 5000000000ull
#define RING_KEEP_NS 5000000000ull
/* The ring's pages made resident ahead of the copies (ring_populate), and what of stdout's stays
 * resident while it is empty: a large answer's copies land in memory that is already there. */
#define RING_AHEAD (16 * 1024 * 1024)
#define RING_WARM (4 * 1024 * 1024)
#define POPULATE_STEP (2 * 1024 * 1024)
#define READ_MAX (64 * 1024)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
/* Copies go to the tap in batches (CTRL_BATCH_NS) while they are few (HOLD_MIN_BYTES: a host's
 * traffic of small messages is observed as it goes); more than that, they are a burst that the
 * host is still reading: held until the host's path has been still for QUIET_NS, or the oldest
 * has waited HOLD_MAX_NS, or the ring is nearly full. */
#define HOLD_MIN_BYTES (256 * 1024)
#define QUIET_NS 10000000ull
#define HOLD_MAX_NS 250000000ull
#define SEND_MAX (256 * 1024)
#define HOLD_LOOK_MS 5

static uint64_t now_ns(void) {
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
static int host_shared;

static void host_restore(int fd) {
  if (host_flags[fd] >= 0) fcntl(fd, F_SETFL, host_flags[fd]);
  host_flags[fd] = -1;
}

static void fail(const char *what) {
  char msg[256];
  int n = snprintf(msg, sizeof msg, "pipescope-relay: %s: %s\n", what, strerror(errno));
  if (n > 0 && write(HOST_ERR, msg, (size_t)n) < 0) { /* nothing left to tell */ }
  host_restore(HOST_IN);
  host_restore(HOST_OUT);
  _exit(70);
}

/* ---- the control queue (records to the tap), bounded ---- */

static char *cq;
static size_t cq_len, cq_off, cq_cap;
static int ctrl_gone;
/* Records go to the tap in batches (CTRL_BATCH_NS after the first, or at once when one must not
 * wait): the tap's threads then wake once per batch, not inside every round trip of the host's. */
static uint64_t cq_first_at;
static int cq_urgent;

static int cq_room(size_t n) { return cq_len - cq_off + n <= CTRL_MAX; }

static void cq_put(const void *p, size_t n) {
  if (cq_off > 0 && cq_len + n > cq_cap) {
    memmove(cq, cq + cq_off, cq_len - cq_off);
    cq_len -= cq_off;
    cq_off = 0;
  }
  if (cq_len + n > cq_cap) {
    size_t cap = cq_cap ? cq_cap : 65536;
    while (cap < cq_len + n) cap *= 2;
    char *q = realloc(cq, cap);
    if (!q) fail("out of memory");
    cq = q;
    cq_cap = cap;
  }
  memcpy(cq + cq_len, p, n);
  cq_len += n;
}

static void record(int type, int dir, int flags, const uint64_t *u, int nu, const void *bytes,
                   size_t nbytes) {
  if (ctrl_gone) return;
  uint32_t len = (uint32_t)(nu * 8 + nbytes);
  unsigned char h[8] = {(unsigned char)type, (unsigned char)dir, (unsigned char)flags, 0,
                        (unsigned char)len, (unsigned char)(len >> 8), (unsigned char)(len >> 16),
                        (unsigned char)(len >> 24)};
  if (cq_len == cq_off) cq_first_at = now_ns();
  if (type == R_INJECT_DONE || type == R_HOST_GONE || type == R_EOF || type == R_STDIN_EOF ||
      type == R_DONE)
    cq_urgent = 1;
  cq_put(h, 8);
  if (nu) cq_put(u, (size_t)nu * 8); /* little-endian hosts only (x86-64, arm64) */
  if (nbytes) cq_put(bytes, nbytes);
}

/* Whether the queued records go now (see cq_first_at). */
static int cq_due(uint64_t t) {
  return cq_len > cq_off &&
         (cq_urgent || t - cq_first_at >= CTRL_BATCH_NS || cq_len - cq_off >= CTRL_BATCH_BYTES);
}

static void cq_flush(void) {
  while (!ctrl_gone && cq_off < cq_len) {
    ssize_t w = write(CTRL, cq + cq_off, cq_len - cq_off);
    if (w > 0) cq_off += (size_t)w;
    else if (w < 0 && errno == EINTR) continue;
    else if (w < 0 && errno == EAGAIN) return;
    else ctrl_gone = 1;
  }
  if (cq_off == cq_len) {
    cq_off = cq_len = 0;
    cq_urgent = 0;
  }
}

/* ---- server -> host, one per stream ---- */

struct out {
  int dir, src, dst, obs;
  int p[2], o[2], scratch[2];
  size_t in_p, teed;
  /* The copies, on their way to the tap: O, then the ring, then the tap's socket. The ring is
   * filled by this stream's copier thread from O, or by the relay's thread itself when O is
   * full (the copier fell behind): under ring_mu, O drained first, so the order holds. Only the
   * copier empties it, into the socket, once the host's path is still (deliver_due): the tap
   * then reads them after a burst, not during it. One reservation of RING_MAX (made before the
   * copier starts; NULL if refused: copier_unringed), its pages made resident ahead of the
   * copies (ring_populate) and given back but what it keeps when it has been empty for
   * RING_KEEP_NS. Counters count from the ring's start (head: sent to the tap; tail:
   * copied in), back to 0 whenever it empties; past RING_MAX a load goes uncopied. */
  char *ring;
  uint64_t ring_head, ring_tail;
  pthread_mutex_t ring_mu;
  pthread_t copier;
  /* When the oldest copy not yet sent was made (0: none); set by the producers, under ring_mu. */
  uint64_t copy_first_at;
  /* The copier: O's end seen and everything sent (or dropped: obs_gone). */
  int copier_done;
  /* How much of the ring, from its start, may be resident (under ring_mu): made so ahead of the
   * copies (ring_populate), or touched by them where MADV_POPULATE_WRITE is off; what the idle
   * ring gives back (copier_main). populate_off: no MADV_POPULATE_WRITE. */
  size_t resident;
  int populate_off;
  int o_closed;
  uint64_t off, delivered, load_t;
  int src_eof, done, dst_gone, obs_gone, blocked, released;
  /* The host's fd takes no splice (a file opened O_APPEND, a device without splice_write): its
   * bytes go through copy_out. */
  int copy;
  uint64_t blocked_since, blocked_ns, ending_since;
  /* Once the tap said abandon: what the server's end still held then (FIONREAD), to read. */
  size_t abandon_left;
  /* Uncopied pieces while the control queue is past its bound, one mark once there is room. */
  uint64_t gap_off, gap_n, gap_read, gap_taken;
  int gap_flags;
};

static struct out outs[2];
/* Set by the relay's thread (read_commands), read by the copiers too: atomic. */
static int abandoning;
static int devnull = -1;

/* Whether the server's end is still read: until its end, and once the tap said abandon (the
 * server exited, what it left holds the pipe) only for the bytes it held then: written before
 * the exit, the host would have had them without the tap. */
static int reading(const struct out *s) {
  return !s->src_eof && (!abandoning || s->abandon_left > 0);
}

static void *copier_main(void *arg);

/* Tests only: `--slow-copier`: the copier takes a load a millisecond at most, so that O fills
 * and the relay's own thread copies (ring_copy_here); `--no-populate`: as on a kernel without
 * MADV_POPULATE_WRITE (before Linux 5.14 madvise says EINVAL), the ring's pages come as the
 * copies touch them. */
static int slow_copier, no_populate;

static void out_init(struct out *s, int dir, int src, int dst, int obs) {
  memset(s, 0, sizeof *s);
  s->dir = dir;
  s->src = src;
  s->dst = dst;
  s->obs = obs;
  if (pipe2(s->p, O_NONBLOCK | O_CLOEXEC) < 0 || pipe2(s->o, O_NONBLOCK | O_CLOEXEC) < 0 ||
      pipe2(s->scratch, O_NONBLOCK | O_CLOEXEC) < 0)
    fail("pipe2");
  fcntl(s->p[1], F_SETPIPE_SZ, LOAD);
  fcntl(s->o[1], F_SETPIPE_SZ, OBS_PIPE); /* the copier's slack; best effort */
  s->populate_off = no_populate;
  /* The ring's reservation, before the copier starts (it never changes after): refused (an
   * address-space limit, strict overcommit, where MAP_NORESERVE counts), the copies go without
   * one (copier_unringed). */
  void *m = mmap(NULL, RING_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  s->ring = m == MAP_FAILED ? NULL : m;
  pthread_mutex_init(&s->ring_mu, NULL);
  if (pthread_create(&s->copier, NULL, copier_main, s) != 0) fail("pthread_create");
}

static void gap_flush(struct out *s) {
  if (!s->gap_n) return;
  uint64_t u[4] = {s->gap_off, s->gap_n, s->gap_read, s->gap_taken};
  record(R_MARK, s->dir, s->gap_flags, u, 4, NULL, 0);
  s->gap_n = 0;
}

static void mark(struct out *s, size_t n, int flags, uint64_t t) {
  if (!(flags & F_OBSERVED) && !cq_room(MARK_BYTES)) {
    /* Past the queue's bound (the tap is stuck, or far behind): uncopied pieces that follow
     * each other are told as one, so that the queue stops growing with the traffic. */
    if (s->gap_n && s->gap_flags != flags) gap_flush(s);
    if (!s->gap_n) {
      s->gap_off = s->off;
      s->gap_read = s->load_t;
      s->gap_flags = flags;
    }
    s->gap_n += n;
    s->gap_taken = t;
    s->off += n;
    return;
  }
  gap_flush(s);
  uint64_t u[4] = {s->off, n, s->load_t, t};
  record(R_MARK, s->dir, flags, u, 4, NULL, 0);
  s->off += n;
}

static void set_blocked(struct out *s, int on, uint64_t t);

/* The host closed its end: what P holds is never delivered; the server's next write fails as
 * the relay's did (`err`: EPIPE, or ECONNRESET from a host's socket closed with bytes unread). */
static void out_dst_gone(struct out *s, uint64_t t, int err) {
  if (s->dst_gone) return;
  s->dst_gone = 1;
  set_blocked(s, 0, t);
  gap_flush(s);
  uint64_t u[1] = {t};
  record(R_HOST_GONE, s->dir, 0, u, 1, NULL, 0);
  if (s->teed) mark(s, s->teed, F_OBSERVED | F_UNDELIVERED, t);
  if (s->in_p > s->teed) mark(s, s->in_p - s->teed, F_UNDELIVERED, t);
  s->in_p = s->teed = 0;
  if (s->dir == 0) { /* stdout: as without the tap, the server's writes now fail */
    /* A socket closed with bytes unread makes its peer's next write fail with ECONNRESET, not
     * the EPIPE a closed pipe gives: no more reads first (its writes fail with EPIPE from here
     * on), then what it holds dropped, then the close. */
    if (err != ECONNRESET && shutdown(s->src, SHUT_RD) == 0) {
      static char sink[LOAD];
      while (read(s->src, sink, sizeof sink) > 0) {
      }
    }
    close(s->src);
    s->src = -1;
    s->src_eof = 1;
  }
}

/* P's head to `target` through a buffer, for a host's fd that splice(2) refuses (EINVAL): tee'd
 * out (P keeps it), written, and as many bytes as the host took dropped from P. As splice:
 * returns the bytes taken, or -1 and errno. */
static ssize_t copy_out(struct out *s, int target, size_t k) {
  static char buf[LOAD];
  ssize_t n = tee(s->p[0], s->scratch[1], k < LOAD ? k : LOAD, SPLICE_F_NONBLOCK);
  if (n <= 0) {
    if (n == 0) errno = EAGAIN;
    return -1;
  }
  size_t got = 0;
  while (got < (size_t)n) {
    ssize_t r = read(s->scratch[0], buf + got, (size_t)n - got);
    if (r <= 0) fail("reading the scratch pipe");
    got += (size_t)r;
  }
  ssize_t w = write(target, buf, got);
  if (w > 0 && splice(s->p[0], NULL, devnull, NULL, (size_t)w, SPLICE_F_NONBLOCK) != w)
    fail("dropping what the host took");
  return w;
}

/* ---- the copies: O -> ring -> the tap, on the copier's thread ---- */

/* When the relay last moved a byte towards the host (the copier holds copies while it does). */
static uint64_t host_moved_at;

#define LOAD_U64(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE_U64(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* Room in the ring (none without one: O full, a load goes uncopied); under ring_mu. */
static size_t ring_room(struct out *s) {
  if (!s->ring) return 0;
  return RING_MAX - (size_t)(s->ring_tail - LOAD_U64(s->ring_head));
}

/* What of the ring stays resident while it is empty: stdout's RING_WARM, stderr's nothing. */
static size_t ring_keep(const struct out *s) { return s->dir == 0 ? RING_WARM : 0; }

/* How far the ring should be resident: what it keeps while it is empty, and while copies come
 * in, ahead of its tail by as much as has come (at most RING_AHEAD): a burst finds its pages
 * made before it gets there, while a small message costs no pages past what is kept (making
 * 16 MiB resident takes a copier ~6 ms). The ring starts over at its first byte each time it
 * empties, so what a burst made resident serves the next. */
static size_t ring_want(const struct out *s, uint64_t tail) {
  uint64_t want = tail + (tail < RING_AHEAD ? tail : RING_AHEAD);
  if (want < ring_keep(s)) want = ring_keep(s);
  return want < RING_MAX ? (size_t)want : RING_MAX;
}

/* Makes the ring resident up to `upto` (at least a POPULATE_STEP at a time), under ring_mu: one
 * call for many pages costs much less than a fault for each, and a fault inside a read of O
 * would hold O's lock, which the relay's tee then waits for. The pages' contents are left as
 * they are. Returns whether it did anything. */
static int ring_populate(struct out *s, size_t upto) {
  if (upto > RING_MAX) upto = RING_MAX;
  if (s->populate_off || s->resident >= upto || !s->ring) return 0;
  /* Whole steps: `resident` stays page-aligned, as madvise wants. */
  size_t k = (upto - s->resident + POPULATE_STEP - 1) / POPULATE_STEP * POPULATE_STEP;
  if (s->resident + k > RING_MAX) k = RING_MAX - s->resident;
  if (madvise(s->ring + s->resident, k, MADV_POPULATE_WRITE) != 0) {
    s->populate_off = 1; /* before Linux 5.14: the pages come as they are touched */
    return 0;
  }
  s->resident += k;
  return 1;
}

/* Reads up to `n` bytes of `fd` into the ring (wrapping), under ring_mu: the bytes read, 0 at
 * EOF, -1 with errno (EAGAIN: nothing there). */
static ssize_t ring_read(struct out *s, int fd, size_t n) {
  size_t at = (size_t)(s->ring_tail % RING_MAX);
  size_t k = n < RING_MAX - at ? n : RING_MAX - at;
  if (k > READ_MAX) k = READ_MAX; /* O's lock is held while it copies: not for long */
  ring_populate(s, at + k);
  ssize_t r = read(fd, s->ring + at, k);
  if (r > 0) {
    /* Without populate-ahead the read itself made these pages resident: counted, so that the
     * idle ring gives them back (copier_main) all the same. */
    if (at + (size_t)r > s->resident) s->resident = at + (size_t)r;
    if (s->ring_tail == LOAD_U64(s->ring_head)) STORE_U64(s->copy_first_at, now_ns());
    STORE_U64(s->ring_tail, s->ring_tail + (uint64_t)r);
  }
  return r;
}

/* What O holds into the ring (at most `max`), under ring_mu; returns -1 at O's end, else
 * whether it is empty. */
static int ring_drain_o(struct out *s, size_t max) {
  for (;;) {
    size_t room = ring_room(s);
    if (room > max) room = max;
    if (room == 0) return 0;
    ssize_t r = ring_read(s, s->o[0], room);
    if (r == 0) return -1;
    if (r < 0) return errno == EAGAIN || errno == EINTR ? 1 : -1;
    max -= (size_t)r;
  }
}

/* O is full (the copier is behind): P's head copied into the ring here, after what O holds.
 * Returns the bytes copied (0: no room, the load goes uncopied). */
static size_t ring_copy_here(struct out *s) {
  size_t got = 0;
  pthread_mutex_lock(&s->ring_mu);
  if (ring_drain_o(s, RING_MAX) == 1 && ring_room(s) >= s->in_p) {
    ssize_t n = tee(s->p[0], s->scratch[1], s->in_p, SPLICE_F_NONBLOCK);
    while (n > 0 && got < (size_t)n) {
      ssize_t r = ring_read(s, s->scratch[0], (size_t)n - got);
      if (r <= 0) fail("reading the scratch pipe");
      got += (size_t)r;
    }
  }
  pthread_mutex_unlock(&s->ring_mu);
  return got;
}

/* Whether the copies in the ring go to the tap now: at the stream's end, at abandon, a batch of
 * few, or a burst's once the host's path has been still for QUIET_NS, or when holding them
 * longer would cost: the oldest waited HOLD_MAX_NS, or the ring is nearly full. */
static int deliver_due(struct out *s, int eof, uint64_t t) {
  uint64_t waiting = LOAD_U64(s->ring_tail) - s->ring_head;
  if (waiting == 0) return 0;
  if (eof || __atomic_load_n(&abandoning, __ATOMIC_ACQUIRE) || waiting >= RING_MAX / 8 * 7) return 1;
  /* Both are set by the other threads, maybe after `t` was read. */
  uint64_t first = LOAD_U64(s->copy_first_at), moved = LOAD_U64(host_moved_at);
  uint64_t held = t > first ? t - first : 0, quiet = t > moved ? t - moved : 0;
  return held >= HOLD_MAX_NS ||
         (held >= CTRL_BATCH_NS && (quiet >= QUIET_NS || waiting < HOLD_MIN_BYTES));
}

/* The copier without a ring (out_init): O goes to the tap as it comes, unheld (as before there
 * was a ring); when O is full the loads go uncopied. Nothing else reads O then (ring_drain_o
 * finds no room), so the order holds without ring_mu. */
static void *copier_unringed(struct out *s) {
  for (;;) {
    int gone = __atomic_load_n(&s->obs_gone, __ATOMIC_ACQUIRE);
    ssize_t n = splice(s->o[0], NULL, gone ? devnull : s->obs, NULL, OBS_PIPE,
                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    if (n == 0) break; /* O's end, everything sent */
    if (errno != EAGAIN) {
      if (gone) break; /* /dev/null refused it: nothing left to do */
      __atomic_store_n(&s->obs_gone, 1, __ATOMIC_RELEASE); /* the tap stopped observing */
      continue;
    }
    /* Which side it waits for: O empty, or the tap's socket full. */
    int queued = 0;
    struct pollfd p = {s->o[0], POLLIN, 0};
    if (ioctl(s->o[0], FIONREAD, &queued) == 0 && queued > 0) p = (struct pollfd){s->obs, POLLOUT, 0};
    if (poll(&p, 1, -1) < 0 && errno != EINTR) fail("poll (copies)");
  }
  __atomic_store_n(&s->copier_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *copier_main(void *arg) {
  struct out *s = arg;
  if (!s->ring) return copier_unringed(s);
  int eof = 0;
  uint64_t used_at = 0;
  for (;;) {
    uint64_t t = now_ns();
    int gone = __atomic_load_n(&s->obs_gone, __ATOMIC_ACQUIRE);
    if (slow_copier) usleep(1000);
    pthread_mutex_lock(&s->ring_mu);
    if (!eof && ring_drain_o(s, slow_copier ? LOAD : RING_MAX) < 0) eof = 1;
    uint64_t tail = s->ring_tail;
    if (gone) STORE_U64(s->ring_head, tail); /* nobody to take them */
    if (tail == s->ring_head && tail > 0) {
      /* Empty: start over at the first byte, whose pages are resident. */
      STORE_U64(s->ring_head, 0);
      STORE_U64(s->ring_tail, 0);
      tail = 0;
    }
    size_t keep = ring_keep(s);
    if (tail != s->ring_head) used_at = t;
    else if (s->resident > keep && t - used_at > RING_KEEP_NS) {
      /* Idle for a while: the pages past what it keeps back to the system. */
      madvise(s->ring + keep, RING_MAX - keep, MADV_DONTNEED);
      s->resident = keep;
    }
    int room = ring_room(s) > 0;
    /* Read here, under ring_mu: the relay's thread may be making pages resident (ring_read). */
    int to_give_back = s->resident > keep;
    pthread_mutex_unlock(&s->ring_mu);
    int due = !gone && deliver_due(s, eof, t);
    if (due) {
      size_t at = (size_t)(s->ring_head % RING_MAX);
      size_t k = (size_t)(tail - s->ring_head);
      if (k > RING_MAX - at) k = RING_MAX - at;
      if (k > SEND_MAX) k = SEND_MAX;
      ssize_t w = write(s->obs, s->ring + at, k);
      if (w > 0) {
        STORE_U64(s->ring_head, s->ring_head + (uint64_t)w);
        continue;
      }
      if (w < 0 && errno != EAGAIN && errno != EINTR) {
        __atomic_store_n(&s->obs_gone, 1, __ATOMIC_RELEASE); /* the tap stopped observing */
        continue;
      }
    }
    if (eof && tail == s->ring_head) {
      __atomic_store_n(&s->copier_done, 1, __ATOMIC_RELEASE);
      return NULL;
    }
    /* Nothing to take or to hand over right now: pages for what may come. */
    if (!eof && !gone) {
      pthread_mutex_lock(&s->ring_mu);
      /* A step at a time, O drained in between: a long madvise under ring_mu is a wait for the
       * relay's thread should O fill meanwhile (ring_copy_here). */
      size_t want = ring_want(s, s->ring_tail);
      if (want > s->resident + POPULATE_STEP) want = s->resident + POPULATE_STEP;
      int did = ring_populate(s, want);
      pthread_mutex_unlock(&s->ring_mu);
      if (did) continue;
    }
    struct pollfd p[2];
    int n = 0;
    if (!eof && room) p[n++] = (struct pollfd){s->o[0], POLLIN, 0};
    if (due) p[n++] = (struct pollfd){s->obs, POLLOUT, 0};
    int wait_ms = -1;
    /* Held: look again, a few times a hold rather than at every message (a wake-up of this
     * thread inside the host's round trips is what its p99 would pay). */
    if (tail != s->ring_head && !due) wait_ms = HOLD_LOOK_MS;
    else if (to_give_back) wait_ms = (int)(RING_KEEP_NS / 1000000);
    /* Else it waits on O, or on the tap's socket: a full ring is due, and with the tap gone
     * nothing is held. */
    if (poll(p, (nfds_t)n, wait_ms) < 0 && errno != EINTR) fail("poll (copies)");
  }
}

/* Whether a stream has ended and waits for its copier (the poll looks again soon). */
static int copies_ending(void) {
  for (int i = 0; i < 2; i++)
    if (outs[i].o_closed && !outs[i].done) return 1;
  return 0;
}

/* Moves what it can towards the host without waiting; returns whether anything moved. */
static int out_step(struct out *s) {
  int moved = 0;
  uint64_t t;
  if (s->done) return 0;
  if (s->in_p == 0 && reading(s)) {
    size_t want = abandoning && s->abandon_left < LOAD ? s->abandon_left : LOAD;
    ssize_t n = splice(s->src, NULL, s->p[1], NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n > 0) {
      if (abandoning) s->abandon_left -= (size_t)n < s->abandon_left ? (size_t)n : s->abandon_left;
      s->in_p = (size_t)n;
      s->teed = 0;
      s->load_t = now_ns();
      moved = 1;
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      s->src_eof = 1; /* the server's end is closed (or failed: the same to the host) */
      moved = 1;
    }
  }
  /* Past the control queue's bound no copy is made: the marks that would say where it goes
   * could not be queued (an uncopied piece's can: it merges with the one before). */
  if (s->in_p > 0 && s->teed == 0 && !__atomic_load_n(&s->obs_gone, __ATOMIC_ACQUIRE) &&
      cq_room(MARK_BYTES)) {
    ssize_t n = tee(s->p[0], s->o[1], s->in_p, SPLICE_F_NONBLOCK);
    if (n > 0) s->teed = (size_t)n;
    else s->teed = ring_copy_here(s);
  }
  if (s->in_p > 0) {
    size_t k = s->teed ? s->teed : s->in_p;
    /* stderr the host no longer takes goes on into /dev/null: the server must never block. */
    int target = s->dst_gone ? devnull : s->dst;
    ssize_t n = s->copy ? copy_out(s, target, k)
                        : splice(s->p[0], NULL, target, NULL, k, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n < 0 && errno == EINVAL && !s->copy) {
      s->copy = 1; /* the host's fd is not one splice writes to: not a host gone */
      n = copy_out(s, target, k);
    }
    t = now_ns();
    if (n > 0) {
      if (s->dir == 0) __atomic_store_n(&host_moved_at, t, __ATOMIC_RELEASE);
      set_blocked(s, 0, t);
      mark(s, (size_t)n, (s->teed ? F_OBSERVED : 0) | (s->dst_gone ? F_UNDELIVERED : 0), t);
      if (!s->dst_gone) s->delivered += (size_t)n;
      s->in_p -= (size_t)n;
      if (s->teed) s->teed -= (size_t)n;
      moved = 1;
    } else if (n < 0 && errno == EAGAIN) {
      set_blocked(s, 1, t);
    } else if (n < 0 && errno != EINTR) {
      if (s->dir == 0) out_dst_gone(s, t, errno);
      else {
        s->dst_gone = 1;
        set_blocked(s, 0, t);
        gap_flush(s);
        uint64_t u[1] = {t};
        record(R_HOST_GONE, s->dir, 0, u, 1, NULL, 0);
      }
      moved = 1;
    }
  }
  if (s->in_p == 0 && !reading(s) && !s->released) {
    /* The host has all of it: let go of its fd now, so it sees the end when it would without
     * the tap, while the last copies still go to the tap. */
    s->released = 1;
    if (s->dst == HOST_OUT && !host_shared) host_restore(HOST_OUT);
    if (!s->dst_gone) dup2(devnull, s->dst);
  }
  if (s->in_p == 0 && !reading(s) && !s->o_closed) {
    close(s->o[1]); /* the copier sees O's end once it has taken the rest */
    s->o[1] = -1;
    s->o_closed = 1;
  }
  int copied_all = __atomic_load_n(&s->copier_done, __ATOMIC_ACQUIRE);
  int obs_gone = __atomic_load_n(&s->obs_gone, __ATOMIC_ACQUIRE);
  if (s->in_p == 0 && !reading(s) && !copied_all && !obs_gone) {
    /* The copies still on their way go to the tap first, for so long: it may be gone or stuck. */
    uint64_t t2 = now_ns();
    if (!s->ending_since) s->ending_since = t2;
    else if (t2 - s->ending_since > OBS_DRAIN_NS) {
      __atomic_store_n(&s->obs_gone, 1, __ATOMIC_RELEASE);
      obs_gone = 1;
    }
  }
  if (s->in_p == 0 && !reading(s) && (copied_all || obs_gone) && !s->done) {
    s->done = 1;
    gap_flush(s);
    uint64_t u[2] = {now_ns(), s->off};
    record(R_EOF, s->dir, 0, u, 2, NULL, 0);
    if (s->src >= 0) close(s->src);
    s->src = -1;
    moved = 1;
  }
  return moved;
}

/* ---- host -> server ---- */

static char in_buf[STDIN_BUF];
static size_t in_len, in_off;
/* The host's bytes read while the control queue was past its bound: one gap once there is room. */
static uint64_t in_gap_t, in_gap_off, in_gap_n;

static void in_gap_flush(void) {
  if (!in_gap_n) return;
  uint64_t g[3] = {in_gap_t, in_gap_off, in_gap_n};
  record(R_STDIN_GAP, 0, 0, g, 3, NULL, 0);
  in_gap_n = 0;
}

static int in_eof, in_closed, in_at_line_end = 1, in_blocked;
static uint64_t in_read, in_written, in_blocked_since, in_wait_ns;

struct inject {
  uint64_t seq, at;
  char *data;
  size_t len, off;
  struct inject *next;
};
static struct inject *inj_head, *inj_tail;

static void inject_done(struct inject *j, const char *error) {
  uint64_t u[2] = {j->seq, now_ns() - j->at};
  record(R_INJECT_DONE, 0, 0, u, 2, error, error ? strlen(error) : 0);
  inj_head = j->next;
  if (!inj_head) inj_tail = NULL;
  free(j->data);
  free(j);
}

static void inject_fail_all(const char *error) {
  while (inj_head) inject_done(inj_head, error);
}

static void stdin_closed(void) {
  if (in_closed) return;
  in_closed = 1;
  in_len = in_off = 0;
  /* The host's next write fails (EPIPE), as it would have without the tap: the tap itself has
   * let go of fd 0 already; /dev/null takes its number here. */
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (!host_shared) host_restore(HOST_IN);
  if (fd >= 0) {
    dup2(fd, HOST_IN);
    close(fd);
  }
  in_eof = 1;
  inject_fail_all("server closed stdin");
}

/* One write to the server's stdin; returns bytes taken, 0 when it must wait, -1 when closed. */
static ssize_t to_server(const char *p, size_t n) {
  ssize_t w = write(SRV_IN, p, n);
  uint64_t t = now_ns();
  if (w > 0) {
    in_written += (size_t)w;
    if (in_blocked) {
      in_blocked = 0;
      in_wait_ns += t - in_blocked_since;
    }
    if ((size_t)w < n && !in_blocked) {
      in_blocked = 1;
      in_blocked_since = t;
    }
    return w;
  }
  if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
    if (!in_blocked) {
      in_blocked = 1;
      in_blocked_since = t;
    }
    return 0;
  }
  stdin_closed();
  return -1;
}

static int in_step(void) {
  int moved = 0;
  if (in_closed) return 0;
  /* Pipescope's lines first, whenever the host's stream is at a line's end. */
  while (inj_head && in_at_line_end) {
    struct inject *j = inj_head;
    ssize_t w = to_server(j->data + j->off, j->len - j->off);
    if (w < 0) return 1;
    if (w == 0) return moved;
    j->off += (size_t)w;
    moved = 1;
    if (j->off == j->len) inject_done(j, NULL);
  }
  if (in_off < in_len) {
    size_t n = in_len - in_off;
    if (inj_head) { /* only up to the end of the host's line: a line of ours is waiting */
      char *nl = memchr(in_buf + in_off, '\n', n);
      if (nl) n = (size_t)(nl - (in_buf + in_off)) + 1;
    }
    ssize_t w = to_server(in_buf + in_off, n);
    if (w < 0) return 1;
    if (w > 0) {
      in_at_line_end = in_buf[in_off + (size_t)w - 1] == '\n';
      in_off += (size_t)w;
      moved = 1;
    }
  }
  if (in_off == in_len && !in_eof) {
    ssize_t r = read(HOST_IN, in_buf, STDIN_BUF);
    uint64_t t = now_ns();
    if (r > 0) {
      in_len = (size_t)r;
      in_off = 0;
      uint64_t u[2] = {t, in_read};
      if (cq_room((size_t)r + 24)) {
        in_gap_flush();
        record(R_STDIN, 0, 0, u, 2, in_buf, (size_t)r);
      } else {
        if (!in_gap_n) {
          in_gap_t = t;
          in_gap_off = in_read;
        }
        in_gap_n += (uint64_t)r;
      }
      in_read += (size_t)r;
      moved = 1;
    } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
      in_eof = 1;
      in_gap_flush();
      uint64_t u[1] = {t};
      record(R_STDIN_EOF, 0, 0, u, 1, NULL, 0);
      moved = 1;
    }
  }
  if (in_eof && in_off == in_len && !in_closed) {
    /* The host closed its end: the server sees EOF once our lines are written. */
    if (!inj_head) {
      close(SRV_IN);
      in_closed = 1;
    } else if (!in_at_line_end) inject_fail_all("the host closed stdin inside a line");
  }
  return moved;
}

/* ---- state, commands ---- */

static uint64_t last_state_at;
static int state_dirty = 1;

static void set_blocked(struct out *s, int on, uint64_t t) {
  if (s->blocked == on) return;
  s->blocked = on;
  if (on) s->blocked_since = t;
  else s->blocked_ns += t - s->blocked_since;
  if (s->dir == 0) state_dirty = 1;
}

/* Past the control queue's bound a state is left out (the next one says it all), unless `last`. */
static void send_state(uint64_t t, int last) {
  struct out *s = &outs[0];
  last_state_at = t;
  state_dirty = 0;
  if (!last && !cq_room(STATE_BYTES)) return;
  uint64_t u[11] = {t,
                    (uint64_t)s->blocked,
                    s->blocked ? s->blocked_since : 0,
                    s->blocked_ns + (s->blocked ? t - s->blocked_since : 0),
                    s->in_p,
                    s->delivered,
                    in_written,
                    in_blocked ? (uint64_t)(in_len - in_off) : 0,
                    in_blocked ? in_blocked_since : 0,
                    in_wait_ns + (in_blocked ? t - in_blocked_since : 0),
                    (uint64_t)in_closed};
  record(R_STATE, 0, 0, u, 11, NULL, 0);
}

static char cmd_buf[CMD_MAX + 16];
static size_t cmd_len;
/* Bytes of a command over CMD_MAX still to drop as they come (it was refused whole). */
static size_t cmd_skip;

static void read_commands(void) {
  for (;;) {
    ssize_t r = read(CTRL, cmd_buf + cmd_len, sizeof cmd_buf - cmd_len);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
      ctrl_gone = 1; /* the tap is gone: relay on, unobserved, until the streams end */
      return;
    }
    if (r < 0) break;
    cmd_len += (size_t)r;
    for (;;) {
      if (cmd_skip > 0) {
        size_t k = cmd_skip < cmd_len ? cmd_skip : cmd_len;
        memmove(cmd_buf, cmd_buf + k, cmd_len - k);
        cmd_len -= k;
        cmd_skip -= k;
        if (cmd_skip > 0) break;
      }
      if (cmd_len < 8) break;
      unsigned char *h = (unsigned char *)cmd_buf;
      uint32_t len = (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 |
                     (uint32_t)h[7] << 24;
      if (len > CMD_MAX) {
        /* A line of Pipescope's this long (no cancellation is): refused, the relay goes on. */
        if (h[0] != C_INJECT || len < 8) {
          errno = EPROTO;
          fail("a command over its limit");
        }
        if (cmd_len < 16) break; /* its sequence number first */
        uint64_t u[2] = {0, 0};
        memcpy(&u[0], cmd_buf + 8, 8);
        const char *error = "a line over 1 MiB: not written";
        record(R_INJECT_DONE, 0, 0, u, 2, error, strlen(error));
        cmd_skip = 8 + (size_t)len;
        continue;
      }
      if (cmd_len < 8 + (size_t)len) break;
      if (h[0] == C_INJECT && len >= 8 && (in_closed || len == 8)) {
        /* Nowhere to write it, or nothing to write (a write of 0 bytes returns 0, which
         * to_server would take for a closed stdin): done at once. */
        uint64_t u[2] = {0, 0};
        memcpy(&u[0], cmd_buf + 8, 8);
        const char *error = in_closed ? "server closed stdin" : NULL;
        record(R_INJECT_DONE, 0, 0, u, 2, error, error ? strlen(error) : 0);
      } else if (h[0] == C_INJECT && len > 8) {
        struct inject *j = calloc(1, sizeof *j);
        if (!j || !(j->data = malloc(len - 8))) fail("out of memory");
        memcpy(&j->seq, cmd_buf + 8, 8);
        memcpy(j->data, cmd_buf + 16, len - 8);
        j->len = len - 8;
        j->at = now_ns();
        if (inj_tail) inj_tail->next = j;
        else inj_head = j;
        inj_tail = j;
      } else if (h[0] == C_ABANDON && !abandoning) {
        __atomic_store_n(&abandoning, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < 2; i++) {
          struct out *s = &outs[i];
          int queued = 0;
          if (!s->src_eof && ioctl(s->src, FIONREAD, &queued) == 0 && queued > 0)
            s->abandon_left = (size_t)queued;
        }
      }
      memmove(cmd_buf, cmd_buf + 8 + len, cmd_len - 8 - len);
      cmd_len -= 8 + len;
    }
  }
}

static void nonblock(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* `pipescope-relay exec <tap pid> -- <command> [args...]`: how the tap starts its server on
 * Linux. The parent-death signal set, then the parent checked (setpriv, which the tap used before,
 * does not check: a tap killed between the fork and its prctl left the server an orphan), then
 * the server exec'd in this process (the same pid, argv, environment and cwd; the death signal
 * survives the exec). Before anything else in main: dispositions the relay changes survive an exec. */
static int exec_server(char **argv) {
  pid_t tap = (pid_t)atol(argv[2]);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != tap) _exit(137); /* the tap is gone: as its SIGKILL would have ended us */
  execvp(argv[4], &argv[4]);
  int e = errno;
  char msg[512];
  int n = snprintf(msg, sizeof msg, "pipescope tap: cannot start %s: %s\n", argv[4], strerror(e));
  if (n > 0 && write(HOST_ERR, msg, (size_t)n) < 0) { /* nothing left to tell */ }
  _exit(e == ENOENT ? 127 : 126);
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "exec") == 0 && strcmp(argv[3], "--") == 0)
    return exec_server(argv);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--slow-copier") == 0) slow_copier = 1;
    else if (strcmp(argv[i], "--no-populate") == 0) no_populate = 1;
  }
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(71); /* the tap died before we could follow it */
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
  out_init(&outs[0], 0, SRV_OUT, HOST_OUT, OBS_OUT);
  out_init(&outs[1], 1, SRV_ERR, HOST_ERR, OBS_ERR);
  uint64_t ready[1] = {now_ns()};
  record(R_READY, 0, 0, ready, 1, NULL, 0);

  for (;;) {
    int moved;
    do {
      moved = 0;
      for (int i = 0; i < 2; i++) moved |= out_step(&outs[i]);
      moved |= in_step();
    } while (moved);
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
      if (in_off == in_len && !in_eof) p[n++] = (struct pollfd){HOST_IN, POLLIN, 0};
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
    if (((cq_len > cq_off && !ctrl_gone) || copies_ending()) && wait_ms > CTRL_BATCH_NS / 1000000)
      wait_ms = CTRL_BATCH_NS / 1000000;
    int r = poll(p, (nfds_t)n, (int)wait_ms);
    if (r < 0 && errno != EINTR) fail("poll");
    for (int i = 0; i < n; i++) {
      if (p[i].fd == CTRL && (p[i].revents & (POLLIN | POLLHUP | POLLERR))) read_commands();
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
  host_restore(HOST_IN);
  host_restore(HOST_OUT);
  if (!ctrl_gone) read_commands();
  inject_fail_all("the server is gone");
  send_state(now_ns(), 1);
  uint64_t done[1] = {now_ns()};
  record(R_DONE, 0, 0, done, 1, NULL, 0);
  /* The last records: wait for the tap to take them, so long (it may be gone or stuck). */
  uint64_t until = now_ns() + OBS_DRAIN_NS;
  for (cq_flush(); !ctrl_gone && cq_off < cq_len && now_ns() < until; cq_flush()) {
    struct pollfd p = {CTRL, POLLOUT, 0};
    poll(&p, 1, 100);
  }
  return 0;
}

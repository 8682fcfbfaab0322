/*
 * pipescope-relay: the pipes that hold a stream's copies while the host's path moves. See
 * relay.c and struct out.
 *
 * A copy tee'd into O is a pipe buffer that refers to a page of the server's output: no byte of
 * it was copied. Read into the ring, it is copied into pages the ring must first be given,
 * allocated and cleared while the answer goes by: most of what a large answer cost the host
 * beyond a relay that copies into memory it already has (docs/performance.md, seventh round). A
 * hold is a pipe that O's buffers are spliced into whole: the references move, the bytes stay
 * where the server's write put them, and they are copied once, into the tap's socket, after
 * the burst.
 *
 * Bounds. A hold counts HOLD_PIPE_SIZE against the user's pipe pages (pipe-user-pages-soft: past
 * it, the user's new pipes are small ones), so a stream has at most HOLD_PIPES (fewer with
 * `--hold-pipes N`), both streams together at most a quarter of those pages when the relay is
 * not root (hold_budget), and only while copies wait in them: an empty hold is closed, but the newest,
 * which goes back to a pipe's default size (hold_idle) and takes the next copies. A buffer pins
 * its page however few bytes it has: a hold that filled with less than HOLD_MIN_FILL (many small
 * writes) sends the rest of the burst to the ring, as do a hold the system refuses (no pipe, or
 * not of that size) and RING_MAX bytes waiting. The ring then takes the copies after the holds'
 * (to_ring) until both are empty; the tap gets the holds' first, so the order holds.
 */
#include "relay.h"

/* The copies waiting, in the holds and the ring; read outside ring_mu too (the relay's thread:
 * hold_here, cq_due). The head first, as the copier starts the ring over tail first
 * (copier_main): a read across that reset is 0, never the old tail, nor 2^64 less than 0. */
uint64_t copies_waiting(struct out *s) {
  uint64_t head = LOAD_U64(s->ring_head), tail = LOAD_U64(s->ring_tail);
  return LOAD_U64(s->held) + (tail > head ? tail - head : 0);
}

/* Under ring_mu. */
static void held_add(struct out *s, size_t n) {
  if (copies_waiting(s) == 0) STORE_U64(s->copy_first_at, now_ns());
  __atomic_add_fetch(&s->held, (uint64_t)n, __ATOMIC_ACQ_REL);
}

/* What the holds of both streams may still take of the user's pipe pages, in bytes beyond a
 * pipe's default size each (hold_budget_init); taken and given back atomically. */
static int64_t hold_budget = INT64_MAX;

/* At the start, before the copiers: a quarter of the user's pipe pages (pipe-user-pages-soft)
 * for an unprivileged relay, so that a held burst leaves the user's other programs their pipes
 * (past the soft limit, every new pipe of the user is a small one, and none may grow); no bound
 * for root, which the kernel does not limit, nor where the limit is off (0). `--hold-budget N`
 * (tests) sets it. */
void hold_budget_init(long long bytes) {
  if (bytes >= 0) {
    hold_budget = bytes;
    return;
  }
  if (geteuid() == 0) return;
  /* the kernel's default, should the file be unreadable */
  long long soft = sysctl_long("/proc/sys/fs/pipe-user-pages-soft", 16384);
  if (soft > 0) hold_budget = soft * sysconf(_SC_PAGESIZE) / 4;
}

/* What a pipe of `size` counts against hold_budget. */
static int64_t charge(int size) { return size > HOLD_IDLE_SIZE ? size - HOLD_IDLE_SIZE : 0; }

static int budget_take(int64_t n) {
  int64_t left = __atomic_load_n(&hold_budget, __ATOMIC_ACQUIRE);
  while (left >= n) {
    if (__atomic_compare_exchange_n(&hold_budget, &left, left - n, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
      return 1;
  }
  return 0;
}

static void budget_give(int64_t n) {
  if (n > 0) __atomic_add_fetch(&hold_budget, n, __ATOMIC_ACQ_REL);
}

/* A hold closed: its fd, and what its size took of the budget back. */
static void hold_close(int fd) {
  int size = fcntl(fd, F_GETPIPE_SZ);
  close(fd);
  if (size > 0) budget_give(charge(size));
}

static int hold_newest(const struct out *s) {
  return s->hold_r[(s->hold_first + s->hold_n - 1) % HOLD_PIPES];
}

/* A new hold, the newest (`size` 0: a pipe's default), under ring_mu: whether there is one. */
static int hold_new(struct out *s, int size) {
  int p[2];
  if (!budget_take(charge(size))) return 0;
  int made = pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0;
  if (made && size && fcntl(p[1], F_SETPIPE_SZ, size) < size) {
    /* Past the user's pipe pages, or a pipe-max-size below it. */
    close(p[0]);
    close(p[1]);
    made = 0;
  }
  if (!made) {
    budget_give(charge(size));
    return 0;
  }
  if (s->hold_w >= 0) close(s->hold_w);
  s->hold_w = p[1];
  s->hold_size = fcntl(p[1], F_GETPIPE_SZ);
  s->hold_r[(s->hold_first + s->hold_n) % HOLD_PIPES] = p[0];
  s->hold_n++;
  return 1;
}

/* The first hold, a pipe of the default size, kept while the stream is idle (out_init): a
 * small message's copies go through it as they would through the ring. None: no holds. */
void hold_init(struct out *s) {
  s->hold_w = -1;
  if (no_holds || !s->ring || !hold_new(s, 0)) s->holds_off = 1;
}

/* Room for more in the holds (the newest is full), under ring_mu: the newest made larger, or a
 * new one. 0: the ring takes the rest of the burst. */
static int hold_more(struct out *s) {
  if (s->hold_size < HOLD_PIPE_SIZE) {
    int64_t more = charge(HOLD_PIPE_SIZE) - charge(s->hold_size);
    if (!budget_take(more)) return 0;
    if (fcntl(s->hold_w, F_SETPIPE_SZ, HOLD_PIPE_SIZE) < HOLD_PIPE_SIZE) {
      budget_give(more);
      return 0;
    }
    s->hold_size = HOLD_PIPE_SIZE;
    return 1;
  }
  int most = hold_pipes > 0 && hold_pipes < HOLD_PIPES ? hold_pipes : HOLD_PIPES;
  int q = 0;
  if (s->hold_n >= most || ioctl(hold_newest(s), FIONREAD, &q) < 0 || q < HOLD_MIN_FILL) return 0;
  return hold_new(s, HOLD_PIPE_SIZE);
}

/* What O holds (at most `max`) into the holds, under ring_mu: -1 at O's end, 1 once O is empty
 * (or `max` taken), 0 when the holds take no more (to_ring is set: the ring takes the rest). */
int hold_drain_o(struct out *s, size_t max) {
  while (max > 0) {
    uint64_t held = LOAD_U64(s->held);
    if (held >= RING_MAX) break;
    size_t k = RING_MAX - held < max ? RING_MAX - held : max;
    ssize_t n = splice(s->o[0], NULL, s->hold_w, NULL, k, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n > 0) {
      held_add(s, (size_t)n);
      max -= (size_t)n;
      continue;
    }
    if (n == 0) return -1;
    if (errno == EINTR) continue;
    if (errno != EAGAIN) break; /* the hold refused it: the ring takes O, which has not ended */
    int q = 0;
    if (ioctl(s->o[0], FIONREAD, &q) == 0 && q == 0) return 1;
    if (!hold_more(s)) break; /* the newest is full */
  }
  if (max == 0) return 1;
  s->to_ring = 1;
  return 0;
}

/* P's head into the holds, once O is empty (it was full: the copier is behind), under ring_mu:
 * the bytes tee'd, 0 when the holds take no more (to_ring is set). */
size_t hold_tee(struct out *s) {
  if (LOAD_U64(s->held) + s->in_p <= RING_MAX) {
    for (int tries = 0; tries < 2; tries++) {
      ssize_t n = tee(s->p[0], s->hold_w, s->in_p, SPLICE_F_NONBLOCK);
      if (n > 0) {
        held_add(s, (size_t)n);
        return (size_t)n;
      }
      if (tries || !hold_more(s)) break; /* the newest is full: room once more */
    }
  }
  s->to_ring = 1;
  return 0;
}

/* The oldest held copies into `to` (the tap's socket), on the copier's thread: the bytes sent,
 * 0 once the holds are empty, -1 and errno (EAGAIN: the socket is full). Emptied holds are
 * closed but the newest (hold_idle makes it small again). */
ssize_t hold_send(struct out *s, int to) {
  for (;;) {
    pthread_mutex_lock(&s->ring_mu);
    int fd = s->hold_r[s->hold_first], newest = s->hold_n == 1;
    /* What is counted only: the relay's thread counts what it puts in under ring_mu. */
    uint64_t held = LOAD_U64(s->held);
    pthread_mutex_unlock(&s->ring_mu);
    if (newest && held == 0) return 0;
    size_t k = held < SEND_MAX ? (size_t)held : SEND_MAX;
    ssize_t w = k ? splice(fd, NULL, to, NULL, k, SPLICE_F_MOVE | SPLICE_F_NONBLOCK) : 0;
    if (w > 0) {
      __atomic_sub_fetch(&s->held, (uint64_t)w, __ATOMIC_ACQ_REL);
      return w;
    }
    if (w < 0 && errno == EINTR) continue;
    int e = errno, q = 0;
    /* 0: an older hold (its write end closed) is empty. The newest holds what is counted. */
    if (newest || (w < 0 && !(e == EAGAIN && ioctl(fd, FIONREAD, &q) == 0 && q == 0))) {
      errno = w < 0 ? e : EAGAIN;
      return -1;
    }
    pthread_mutex_lock(&s->ring_mu);
    hold_close(fd);
    s->hold_first = (s->hold_first + 1) % HOLD_PIPES;
    s->hold_n--;
    pthread_mutex_unlock(&s->ring_mu);
  }
}

/* Once the holds are empty and one is left (the copier, under ring_mu): that one back to a
 * pipe's default size. A burst made it HOLD_PIPE_SIZE, which would count against the user's pipe
 * pages for as long as the stream then stays idle. It is empty: the relay's thread counts each
 * copy it puts in before it lets ring_mu go, and the copier takes out no more than is counted;
 * so it takes the smaller size (F_SETPIPE_SZ refuses one below what a pipe holds). */
void hold_idle(struct out *s) {
  if (s->hold_n != 1 || LOAD_U64(s->held) != 0 || s->hold_size <= HOLD_IDLE_SIZE) return;
  if (fcntl(s->hold_w, F_SETPIPE_SZ, HOLD_IDLE_SIZE) > 0) {
    int was = s->hold_size;
    s->hold_size = fcntl(s->hold_w, F_GETPIPE_SZ);
    budget_give(charge(was) - charge(s->hold_size));
  }
}

/* Every hold closed, what they held dropped (the tap is gone, or the stream's copies are
 * over), under ring_mu. */
void hold_drop(struct out *s) {
  for (; s->hold_n > 0; s->hold_n--) {
    hold_close(s->hold_r[s->hold_first]);
    s->hold_first = (s->hold_first + 1) % HOLD_PIPES;
  }
  if (s->hold_w >= 0) close(s->hold_w);
  s->hold_w = -1;
  s->holds_off = 1;
  STORE_U64(s->held, 0);
}

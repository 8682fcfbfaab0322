/* pipescope-relay: server -> host, one per stream (stdout, stderr). See relay.c. */
#include "relay.h"

/* Whether the server's end is still read: until its end, and once the tap said abandon (the
 * server exited, what it left holds the pipe) only for the bytes it held then: written before
 * the exit, the host would have had them without the tap. */
int reading(const struct out *s) {
  return !s->src_eof && (!abandoning || s->abandon_left > 0);
}

void out_init(struct out *s, int dir, int src, int dst, int obs) {
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
  hold_init(s); /* none without a ring: copier_unringed */
  pthread_mutex_init(&s->ring_mu, NULL);
  if (pthread_create(&s->copier, NULL, copier_main, s) != 0) fail("pthread_create");
}

void gap_flush(struct out *s) {
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

/* Whether a stream has ended and waits for its copier (the poll looks again soon). */
int copies_ending(void) {
  for (int i = 0; i < 2; i++)
    if (outs[i].o_closed && !outs[i].done) return 1;
  return 0;
}

/* Moves what it can towards the host without waiting; returns whether anything moved. */
int out_step(struct out *s) {
  int moved = 0;
  uint64_t t;
  if (s->done) return 0;
  if (s->in_p == 0 && reading(s) && !s->src_idle) {
    size_t want = abandoning && s->abandon_left < LOAD ? s->abandon_left : LOAD;
    ssize_t n = splice(s->src, NULL, s->p[1], NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n > 0) {
      if (abandoning) s->abandon_left -= (size_t)n < s->abandon_left ? (size_t)n : s->abandon_left;
      s->in_p = (size_t)n;
      s->teed = 0;
      s->load_t = now_ns();
      moved = 1;
    } else if (n < 0 && errno == EAGAIN) {
      s->src_idle = 1;
    } else if (n == 0 || errno != EINTR) {
      s->src_eof = 1; /* the server's end is closed (or failed: the same to the host) */
      moved = 1;
    }
  }
  /* Past the control queue's bound no copy is made: the marks that would say where it goes
   * could not be queued (an uncopied piece's can: it merges with the one before). */
  if (s->in_p > 0 && s->teed == 0 && !__atomic_load_n(&s->obs_gone, __ATOMIC_ACQUIRE) &&
      cq_room(MARK_BYTES)) {
    ssize_t n = (ssize_t)hold_here(s);
    if (n == 0 && (n = tee(s->p[0], s->o[1], s->in_p, SPLICE_F_NONBLOCK)) > 0) s->o_filled = 1;
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
    if (s->dst == HOST_OUT) host_buffer_restore();
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


/* pipescope-relay: the copies of a stream, O -> the holds (hold.c) or the ring -> the tap, on a
 * thread of their own. See relay.c and struct out. */
#include "relay.h"

/* When the relay last moved a byte towards the host (the copier holds copies while it does). */
uint64_t host_moved_at;

/* Room in the ring (none without one: O full, a load goes uncopied); under ring_mu. What the
 * holds have counts: RING_MAX bounds the copies waiting, wherever they are. */
static size_t ring_room(struct out *s) {
  uint64_t waiting = copies_waiting(s);
  if (!s->ring || waiting >= RING_MAX) return 0;
  return RING_MAX - (size_t)waiting;
}

/* What of the ring stays resident while it is empty: stdout's RING_WARM where the ring takes
 * every copy (`--no-holds`), else nothing (the holds take a burst's). */
static size_t ring_keep(const struct out *s) { return s->dir == 0 && s->holds_off ? RING_WARM : 0; }

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
    if (copies_waiting(s) == 0) STORE_U64(s->copy_first_at, now_ns());
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

/* Whether the copies go to the ring now (under ring_mu): the holds took no more, or there are
 * none. */
static int ringing(const struct out *s) { return s->to_ring || s->holds_off; }

/* What O holds (at most `max`) into the holds, or into the ring once they take no more
 * (to_ring); under ring_mu; returns as ring_drain_o. */
static int store_drain_o(struct out *s, size_t max) {
  if (!ringing(s)) {
    int r = hold_drain_o(s, max);
    if (r != 0) return r;
  }
  return ring_drain_o(s, max);
}

/* P's head into the holds, or (`ring_too`) into the ring once they take no more, on the relay's
 * thread, after what O has; the bytes taken (0: none). Without `ring_too` nothing is copied here:
 * O's copies and P's go to the holds only (a tee, a splice), else they are left for the copier. */
static size_t store_here(struct out *s, int ring_too) {
  size_t got = 0;
  pthread_mutex_lock(&s->ring_mu);
  /* Nothing of this thread's went into O since it was last found empty: it is (the copier only
   * takes from it), and a held burst's load goes to the holds without a look at O. */
  int o = ring_too ? store_drain_o(s, RING_MAX)
          : ringing(s) ? 0
          : s->o_filled ? hold_drain_o(s, RING_MAX)
          : 1;
  int o_empty = o == 1;
  if (o_empty) s->o_filled = 0;
  if (o_empty && !ringing(s)) got = hold_tee(s);
  if (ring_too && o_empty && ringing(s) && ring_room(s) >= s->in_p) {
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

/* O is full (the copier is behind): P's head into the holds or the ring here, after what O
 * holds. Returns the bytes copied (0: no room, the load goes uncopied). */
size_t ring_copy_here(struct out *s) { return store_here(s, 1); }

/* While a burst's copies are held (HOLD_MIN_BYTES waiting) and the holds take them: P's head
 * into the holds on the relay's thread (a tee: no byte copied), rather than into O, which would
 * wake the copier for each load only to move it. Returns the bytes tee'd (0: O as usual). */
size_t hold_here(struct out *s) {
  return copies_waiting(s) < HOLD_MIN_BYTES ? 0 : store_here(s, 0);
}

/* What the host has not read yet of what the relay gave it: its socket's queue (SIOCOUTQ) or
 * its pipe's (FIONREAD); 0 where neither says (a file, /dev/null once the relay let go). */
static int host_unread(const struct out *s) {
  int n = 0;
  if (ioctl(s->dst, SIOCOUTQ, &n) == 0 || ioctl(s->dst, FIONREAD, &n) == 0) return n;
  return 0;
}

/* Whether the copies waiting (in the holds and the ring) go to the tap now: at the stream's end,
 * at abandon, a batch of few, or a burst's once the host's path has been still for QUIET_NS;
 * either only once the host has read all it was given (a large answer's first load, then a
 * pause of the server's, would start the observer while the host still reads). Or when holding
 * them longer would cost: the oldest waited HOLD_MAX_NS (a host that does not read), or RING_MAX
 * is near. */
static int deliver_due(struct out *s, int eof, uint64_t t) {
  uint64_t waiting = copies_waiting(s);
  if (waiting == 0) return 0;
  if (eof || __atomic_load_n(&abandoning, __ATOMIC_ACQUIRE) || waiting >= RING_MAX / 8 * 7) return 1;
  /* Both are set by the other threads, maybe after `t` was read. */
  uint64_t first = LOAD_U64(s->copy_first_at), moved = LOAD_U64(host_moved_at);
  uint64_t held = t > first ? t - first : 0, quiet = t > moved ? t - moved : 0;
  if (held >= HOLD_MAX_NS) return 1;
  return held >= CTRL_BATCH_NS && (quiet >= QUIET_NS || waiting < HOLD_MIN_BYTES) &&
         host_unread(s) == 0;
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

void *copier_main(void *arg) {
  struct out *s = arg;
  if (!s->ring) return copier_unringed(s);
  int eof = 0;
  uint64_t used_at = 0;
  for (;;) {
    uint64_t t = now_ns();
    int gone = __atomic_load_n(&s->obs_gone, __ATOMIC_ACQUIRE);
    if (slow_copier) usleep(1000);
    pthread_mutex_lock(&s->ring_mu);
    if (!eof && store_drain_o(s, slow_copier ? LOAD : RING_MAX) < 0) eof = 1;
    uint64_t tail = s->ring_tail;
    if (gone) { /* nobody to take them */
      STORE_U64(s->ring_head, tail);
      hold_drop(s);
    }
    if (tail == s->ring_head && tail > 0) {
      /* Empty: start over at the first byte, whose pages are resident. The tail first: the
       * relay's thread reads the head first, outside ring_mu (copies_waiting). */
      STORE_U64(s->ring_tail, 0);
      STORE_U64(s->ring_head, 0);
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
    /* Both empty: the next copies go to the holds again; the one hold left, small again. */
    uint64_t held = LOAD_U64(s->held);
    int holding = held > 0 || s->hold_n > 1;
    if (held == 0 && tail == s->ring_head) s->to_ring = 0;
    hold_idle(s);
    /* Read here, under ring_mu: the relay's thread may be making pages resident (ring_read). */
    int to_give_back = s->resident > keep;
    pthread_mutex_unlock(&s->ring_mu);
    int due = !gone && deliver_due(s, eof, t);
    if (holding && (due || held == 0)) {
      /* The holds' copies first: older than any in the ring (and holds left empty closed). */
      ssize_t w = hold_send(s, s->obs);
      if (w > 0) continue;
      if (w < 0 && errno != EAGAIN && errno != EINTR) {
        __atomic_store_n(&s->obs_gone, 1, __ATOMIC_RELEASE); /* the tap stopped observing */
        continue;
      }
      if (w == 0) continue; /* all sent and closed: the ring's next */
    } else if (due) {
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
    if (eof && tail == s->ring_head && !holding) {
      pthread_mutex_lock(&s->ring_mu);
      hold_drop(s);
      pthread_mutex_unlock(&s->ring_mu);
      __atomic_store_n(&s->copier_done, 1, __ATOMIC_RELEASE);
      return NULL;
    }
    /* Nothing to take or to hand over right now: pages for what may come. */
    if (!eof && !gone) {
      pthread_mutex_lock(&s->ring_mu);
      /* A step at a time, O drained in between: a long madvise under ring_mu is a wait for the
       * relay's thread should O fill meanwhile (ring_copy_here). Only while the ring takes the
       * copies: the holds need no pages. */
      size_t want = ring_want(s, s->ring_tail);
      if (want > s->resident + POPULATE_STEP) want = s->resident + POPULATE_STEP;
      int did = ringing(s) && ring_populate(s, want);
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
    if ((tail != s->ring_head || holding) && !due) wait_ms = HOLD_LOOK_MS;
    else if (to_give_back) wait_ms = (int)(RING_KEEP_NS / 1000000);
    /* Else it waits on O, or on the tap's socket: a full ring is due, and with the tap gone
     * nothing is held. */
    if (poll(p, (nfds_t)n, wait_ms) < 0 && errno != EINTR) fail("poll (copies)");
  }
}


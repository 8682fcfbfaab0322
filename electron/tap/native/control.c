/* pipescope-relay: records to the tap (a bounded queue, sent in batches), its commands, and
 * the relay's state. See relay.c. */
#include "relay.h"

/* ---- the control queue (records to the tap), bounded ---- */

static char *cq;
static size_t cq_len, cq_off, cq_cap;
int ctrl_gone;
/* Records go to the tap in batches (CTRL_BATCH_NS after the first, or at once when one must not
 * wait): the tap's threads then wake once per batch, not inside every round trip of the host's. */
static uint64_t cq_first_at;
static int cq_urgent;

int cq_room(size_t n) { return cq_len - cq_off + n <= CTRL_MAX; }

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

void record(int type, int dir, int flags, const uint64_t *u, int nu, const void *bytes,
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

/* Whether records wait to go to the tap. */
int cq_pending(void) { return !ctrl_gone && cq_off < cq_len; }

/* Whether the queued records go now (see cq_first_at): in batches, but held with stdout's
 * copies while those are a burst the host is still reading (deliver_due): the marks are of
 * little use to the tap before their copies, and waking it for them takes a CPU from the
 * host's path. Held no longer than the copies are (HOLD_MAX_NS), nor past half the queue. */
int cq_due(uint64_t t) {
  if (cq_len == cq_off) return 0;
  if (cq_urgent) return 1;
  uint64_t moved = LOAD_U64(host_moved_at);
  if (copies_waiting(&outs[0]) >= HOLD_MIN_BYTES && (t < moved || t - moved < QUIET_NS) &&
      t - cq_first_at < HOLD_MAX_NS && cq_len - cq_off < CTRL_MAX / 2)
    return 0;
  return t - cq_first_at >= CTRL_BATCH_NS || cq_len - cq_off >= CTRL_BATCH_BYTES;
}

void cq_flush(void) {
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

/* ---- state, commands ---- */

uint64_t last_state_at;
int state_dirty = 1;

void set_blocked(struct out *s, int on, uint64_t t) {
  if (s->blocked == on) return;
  s->blocked = on;
  if (on) s->blocked_since = t;
  else {
    s->blocked_ns += t - s->blocked_since;
    s->resumed_at = t;
  }
  if (s->dir == 0) state_dirty = 1;
}

/* Past the control queue's bound a state is left out (the next one says it all), unless `last`. */
void send_state(uint64_t t, int last) {
  struct out *s = &outs[0];
  last_state_at = t;
  state_dirty = 0;
  if (!last && !cq_room(STATE_BYTES)) return;
  uint64_t u[13] = {t,
                    (uint64_t)s->blocked,
                    s->blocked ? s->blocked_since : 0,
                    s->blocked_ns + (s->blocked ? t - s->blocked_since : 0),
                    s->in_p,
                    s->delivered,
                    in_written,
                    in_blocked ? (uint64_t)(in_len - in_off) : 0,
                    in_blocked ? in_blocked_since : 0,
                    in_wait_ns + (in_blocked ? t - in_blocked_since : 0),
                    (uint64_t)in_closed,
                    s->resumed_at,
                    s->load_t};
  record(R_STATE, 0, 0, u, 13, NULL, 0);
}

static char cmd_buf[CMD_MAX + 16];
static size_t cmd_len;
/* Bytes of a command over CMD_MAX still to drop as they come (it was refused whole). */
static size_t cmd_skip;

void read_commands(void) {
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
      } else if (h[0] == C_YIELD) {
        yield_to_host(); /* the tap's new threads (its observer's): yield.c */
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

/* pipescope-relay: host -> server (stdin), and Pipescope's own lines between the host's.
 * See relay.c. */
#include "relay.h"

/* ---- host -> server ---- */

static char in_buf[STDIN_BUF];
size_t in_len, in_off;
/* The host's bytes read while the control queue was past its bound: one gap once there is room. */
uint64_t in_gap_t, in_gap_off, in_gap_n;

void in_gap_flush(void) {
  if (!in_gap_n) return;
  uint64_t g[3] = {in_gap_t, in_gap_off, in_gap_n};
  record(R_STDIN_GAP, 0, 0, g, 3, NULL, 0);
  in_gap_n = 0;
}

int in_eof, in_closed, in_at_line_end = 1, in_blocked;
/* The host's stdin had nothing at the last read: not read again until poll says it has. */
int in_idle;
uint64_t in_read, in_written, in_blocked_since, in_wait_ns;

struct inject *inj_head, *inj_tail;

static void inject_done(struct inject *j, const char *error) {
  uint64_t u[2] = {j->seq, now_ns() - j->at};
  record(R_INJECT_DONE, 0, 0, u, 2, error, error ? strlen(error) : 0);
  inj_head = j->next;
  if (!inj_head) inj_tail = NULL;
  free(j->data);
  free(j);
}

void inject_fail_all(const char *error) {
  while (inj_head) inject_done(inj_head, error);
}

void stdin_closed(void) {
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

int in_step(void) {
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
  if (in_off == in_len && !in_eof && !in_idle) {
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
    } else if (r < 0 && errno == EAGAIN) {
      in_idle = 1;
    } else if (r == 0 || errno != EINTR) {
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


/*
 * pipescope-relay's parts (relay.c says what it is): the wire's numbers, the bounds, the state of
 * one stream (struct out), and what one part uses of another. relay.c: start, the loop, the end;
 * out.c: server -> host; copier.c: the copies' thread and its ring; hold.c: the pipes that hold
 * copies without copying them; stdin.c: host -> server;
 * control.c: records to the tap, its commands, the relay's state.
 */
#ifndef PIPESCOPE_RELAY_H
#define PIPESCOPE_RELAY_H
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
#include <linux/sockios.h>
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
enum { C_INJECT = 1, C_ABANDON = 2, C_YIELD = 3 };

#define LOAD (64 * 1024)
#define OBS_PIPE (1024 * 1024)
#define RING_MAX (128 * 1024 * 1024)
#define STDIN_BUF (64 * 1024)
#define CTRL_MAX (16 * 1024 * 1024)
#define CMD_MAX (1024 * 1024)
#define MARK_BYTES (8 + 4 * 8)
#define STATE_BYTES (8 + 13 * 8)
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
/* How long the relay's loop goes on moving bytes before it polls (without waiting) for what the
 * other fds have: the most a host's line waits behind a burst of the server's. */
#define SPIN_NS 100000ull
/* The pipes that hold a stream's copies (hold.c): at most HOLD_PIPES of HOLD_PIPE_SIZE each
 * (6,144 pipe buffers, each a reference to a piece of the server's output: ~14 KiB each
 * through the tap, so ~84 MiB of a large answer), at least HOLD_MIN_FILL in a full one, else
 * the ring. */
#define HOLD_PIPES 24
#define HOLD_PIPE_SIZE (1024 * 1024)
#define HOLD_MIN_FILL (256 * 1024)
#define HOLD_IDLE_SIZE (64 * 1024)


#define LOAD_U64(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE_U64(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* ---- server -> host, one per stream ---- */

struct out {
  int dir, src, dst, obs;
  int p[2], o[2], scratch[2];
  size_t in_p, teed;
  /* The copies, on their way to the tap: O, then the holds (below) or the ring, then the tap's
   * socket. The ring is filled by this stream's copier thread from O, or by the relay's thread
   * itself when O is full (the copier fell behind): under ring_mu, O drained first, so the order
   * holds. Only the copier empties it, into the socket, once the host's path is still
   * (deliver_due): the tap then reads them after a burst, not during it. One reservation of
   * RING_MAX (made before the copier starts; NULL if refused: copier_unringed), its pages made
   * resident ahead of the copies (ring_populate) and given back but what it keeps when it has
   * been empty for RING_KEEP_NS. Counters count from the ring's start (head: sent to the tap;
   * tail: copied in), back to 0 whenever it empties; past RING_MAX waiting (the holds' and the
   * ring's together) a load goes uncopied. */
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
  /* The server's end had nothing at the last try: not tried again until poll says it has
   * (relay.c's loop), so that a busy stream does not cost the idle one a failed splice a load. */
  int src_idle;
  /* The relay's thread tee'd copies into O since it last found O empty (relay's thread only):
   * while not, a held burst's loads go to the holds without looking at O first (store_here). */
  int o_filled;
  /* The host's fd takes no splice (a file opened O_APPEND, a device without splice_write): its
   * bytes go through copy_out. */
  int copy;
  uint64_t blocked_since, blocked_ns, ending_since;
  /* When the host's fd last took bytes again after refusing them (0: it never refused). */
  uint64_t resumed_at;
  /* Once the tap said abandon: what the server's end still held then (FIONREAD), to read. */
  size_t abandon_left;
  /* Uncopied pieces while the control queue is past its bound, one mark once there is room. */
  uint64_t gap_off, gap_n, gap_read, gap_taken;
  int gap_flags;
  /* The copies held in pipes (hold.c), before any in the ring: the read ends oldest first
   * (hold_first, hold_n of them: one at least, while holds_off is not set), the newest's write
   * end and size (hold_w, hold_size), the bytes they hold (held: added under ring_mu, taken by
   * the copier). to_ring: the copies go to the ring (the holds were refused or full) until both
   * are empty; holds_off: always (`--no-holds`, no pipe at the start, the tap gone, or the
   * stream's copies are over). All under ring_mu but held. */
  int hold_r[HOLD_PIPES];
  int hold_w, hold_size, hold_first, hold_n, to_ring, holds_off;
  uint64_t held;
};


struct inject {
  uint64_t seq, at;
  char *data;
  size_t len, off;
  struct inject *next;
};

/* ---- across the parts ---- */

/* relay.c */
extern struct out outs[2];
extern int abandoning, devnull, host_shared;
extern int slow_copier, no_populate, no_holds, hold_pipes;
uint64_t now_ns(void);
void fail(const char *what);
void host_restore(int fd);
long sysctl_long(const char *path, long fallback);
void host_buffer_restore(void);

/* yield.c */
extern pid_t yield_pid;
void yield_to_host(void);

/* control.c */
extern int ctrl_gone, state_dirty;
extern uint64_t last_state_at;
void record(int type, int dir, int flags, const uint64_t *u, int nu, const void *bytes,
                   size_t nbytes);
int cq_room(size_t n);
int cq_due(uint64_t t);
void cq_flush(void);
int cq_pending(void);
void set_blocked(struct out *s, int on, uint64_t t);
void send_state(uint64_t t, int last);
void read_commands(void);

/* out.c */
int reading(const struct out *s);
void out_init(struct out *s, int dir, int src, int dst, int obs);
void gap_flush(struct out *s);
int out_step(struct out *s);
int copies_ending(void);

/* copier.c */
extern uint64_t host_moved_at;
void *copier_main(void *arg);
size_t ring_copy_here(struct out *s);
size_t hold_here(struct out *s);

/* hold.c */
uint64_t copies_waiting(struct out *s);
void hold_init(struct out *s);
void hold_budget_init(long long bytes);
int hold_drain_o(struct out *s, size_t max);
size_t hold_tee(struct out *s);
ssize_t hold_send(struct out *s, int to);
void hold_idle(struct out *s);
void hold_drop(struct out *s);

/* stdin.c */
extern size_t in_len, in_off;
extern uint64_t in_gap_n, in_written, in_blocked_since, in_wait_ns;
extern int in_eof, in_closed, in_at_line_end, in_blocked, in_idle;
extern struct inject *inj_head, *inj_tail;
int in_step(void);
void in_gap_flush(void);
void stdin_closed(void);
void inject_fail_all(const char *error);

#endif

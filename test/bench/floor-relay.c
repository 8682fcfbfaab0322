/*
 * The floor of any relay on this machine, for tap-cost.mjs (compiled there when a C compiler is
 * found): `floor-relay [--copy] -- <command> [args...]`. The server gets pipes; its stdout goes
 * to ours by splice(2) through a 64 KiB pipe (no byte in user space), its stdin is copied from
 * ours by a thread. With --copy, each load is also tee(2)'d into a 1 MiB pipe that a thread
 * reads into a buffer and drops: the least an observer that sees every byte can cost. No
 * framing, no records, no bounds: a measuring stick, not a tap.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int server_in;
static int copies[2];

static void *stdin_thread(void *arg) {
  (void)arg;
  static char buf[65536];
  ssize_t n;
  while ((n = read(0, buf, sizeof buf)) > 0)
    if (write(server_in, buf, (size_t)n) != n) break;
  close(server_in);
  return NULL;
}

static void *copy_thread(void *arg) {
  (void)arg;
  static char buf[1 << 20];
  while (read(copies[0], buf, sizeof buf) > 0) {
  }
  return NULL;
}

int main(int argc, char **argv) {
  int copy = argc > 1 && strcmp(argv[1], "--copy") == 0;
  int at = copy ? 2 : 1;
  if (argc < at + 2 || strcmp(argv[at], "--") != 0) return 2;
  int in[2], out[2], load[2];
  if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(load, O_CLOEXEC) < 0)
    return 70;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    execvp(argv[at + 1], &argv[at + 1]);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  server_in = in[1];
  pthread_t t;
  pthread_create(&t, NULL, stdin_thread, NULL);
  pthread_detach(t);
  if (copy) {
    if (pipe2(copies, O_CLOEXEC) < 0) return 70;
    fcntl(copies[1], F_SETPIPE_SZ, 1 << 20);
    pthread_create(&t, NULL, copy_thread, NULL);
    pthread_detach(t);
  }
  fcntl(load[1], F_SETPIPE_SZ, 65536);
  for (;;) {
    ssize_t n = splice(out[0], NULL, load[1], NULL, 65536, SPLICE_F_MOVE);
    if (n <= 0) break;
    if (copy) tee(load[0], copies[1], (size_t)n, 0); /* blocks if the reader is behind */
    while (n > 0) {
      ssize_t w = splice(load[0], NULL, 1, NULL, (size_t)n, SPLICE_F_MOVE);
      if (w <= 0) goto done;
      n -= w;
    }
  }
done:;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

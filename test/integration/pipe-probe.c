/*
 * A test helper for the native relay's pipes (test/integration/pipe-probe.ts builds and runs it):
 *   sizes PID   each pipe PID has open: "inode size" (F_GETPIPE_SZ, through /proc/PID/fd)
 *   fill N      makes 1 MiB pipes until the system refuses one (the user's pipe pages are then
 *               at pipe-user-pages-soft), closes N of them, says how many it kept, and holds the
 *               rest until its stdin closes
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILL_MAX 2048

static int sizes(const char *pid) {
  char dir[64], path[384], link[64];
  snprintf(dir, sizeof dir, "/proc/%s/fd", pid);
  DIR *d = opendir(dir);
  if (!d) return 1;
  struct dirent *e;
  while ((e = readdir(d))) {
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0) continue;
    link[n] = 0;
    if (strncmp(link, "pipe:[", 6) != 0) continue;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a reader more, for a moment */
    if (fd < 0) continue; /* closed meanwhile */
    printf("%s %d\n", link + 6, fcntl(fd, F_GETPIPE_SZ));
    close(fd);
  }
  closedir(d);
  return 0;
}

static int fill(int spare) {
  static int fds[FILL_MAX];
  int n = 0, p[2];
  while (n + 2 <= FILL_MAX && pipe(p) == 0) {
    if (fcntl(p[1], F_SETPIPE_SZ, 1 << 20) < 0) {
      close(p[0]);
      close(p[1]);
      break;
    }
    fds[n++] = p[0];
    fds[n++] = p[1];
  }
  for (int i = 0; i < spare && n >= 2; i++) {
    close(fds[--n]);
    close(fds[--n]);
  }
  printf("%d\n", n / 2);
  fflush(stdout);
  char c;
  while (read(0, &c, 1) > 0) {
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "sizes") == 0) return sizes(argv[2]);
  if (argc == 3 && strcmp(argv[1], "fill") == 0) return fill(atoi(argv[2]));
  fprintf(stderr, "usage: pipe-probe sizes PID | fill N\n");
  return 2;
}

/* NoTorch.c - A C program that knows nothing of libtorch, for LD_PRELOAD. */
/* It forks a child, loads and unloads libm, and prints nothing. Exits 0,
   or 1 if anything failed. With the argument "maps" it prints "libc10
   mapped" or "libc10 not mapped" (what the bridge's preload loads). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  pid_t child = fork();
  if (child < 0)
    return 1;
  if (child == 0)
    _exit(0);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return 1;
  void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  if (!libm || !dlsym(libm, "cos"))
    return 1;
  dlclose(libm);
  if (argc > 1 && strcmp(argv[1], "maps") == 0) {
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (maps && fgets(line, sizeof line, maps))
      if (strstr(line, "/libc10.so"))
        found = 1;
    if (maps)
      fclose(maps);
    printf("libc10 %s\n", found ? "mapped" : "not mapped");
  }
  return 0;
}

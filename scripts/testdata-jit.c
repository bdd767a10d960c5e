/* A tiny "JIT": the same busy loop copied into an anonymous executable
 * mapping (named to perf by /tmp/perf-PID.map) and into a memfd mapping
 * (perf shows it as "/memfd:doublemapper (deleted)"), both called. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
static const unsigned char code[] = {
	0xb9, 0x00, 0x00, 0x00, 0x01, /* mov ecx, 0x1000000 */
	0xff, 0xc9,                   /* dec ecx */
	0x75, 0xfc,                   /* jnz -4 */
	0xc3,                         /* ret */
};
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = memfd_create("doublemapper", 0);
	if (anon == MAP_FAILED || fd < 0 || ftruncate(fd, 4096))
		return 1;
	void *rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	void *rx = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (rw == MAP_FAILED || rx == MAP_FAILED)
		return 1;
	memcpy(anon, code, sizeof code);
	memcpy(rw, code, sizeof code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", getpid());
	FILE *map = fopen(path, "w");
	fprintf(map, "%lx %zx jit_busy_loop\n", (unsigned long)anon, sizeof code);
	fclose(map);
	for (int i = 0; i < rounds; i++) {
		((void (*)(void))anon)();
		((void (*)(void))rx)();
	}
	return 0;
}

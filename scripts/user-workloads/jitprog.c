/* JIT workload: copies a hot loop into an anonymous executable mapping,
 * writes /tmp/perf-PID.map naming it (perf's JIT map convention), runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* x86-64: mov rax,rdi; loop: imul rax,rax,31; add rax,1; dec rdi; jnz loop; ret */
static const unsigned char code[] = {
	0x48, 0x89, 0xf8,             /* mov rax, rdi */
	0x48, 0x6b, 0xc0, 0x1f,       /* imul rax, rax, 31 */
	0x48, 0x83, 0xc0, 0x01,       /* add rax, 1 */
	0x48, 0xff, 0xcf,             /* dec rdi */
	0x75, 0xf3,                   /* jnz -13 */
	0xc3,                         /* ret */
};

int main(int argc, char **argv)
{
	long loops = argc > 1 ? atol(argv[1]) : 2000;
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 64, code, sizeof code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_hot_loop\n", (unsigned long)(mem + 64), sizeof code);
	fclose(f);
	unsigned long (*fn)(unsigned long) = (unsigned long (*)(unsigned long))(mem + 64);
	unsigned long s = 0;
	for (long i = 0; i < loops; i++)
		s += fn(100000);
	return (int)(s & 1);
}

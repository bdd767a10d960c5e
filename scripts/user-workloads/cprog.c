/* C workload: time in libc (read/write through the PLT), in PLT stubs
 * (rand_r, a cheap libc call), and in its own code. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long __attribute__((noinline)) checksum(const unsigned char *p, int n, int rounds)
{
	unsigned long s = 0;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++)
			s = s * 31 + p[i] + r;
	return s;
}

int main(int argc, char **argv)
{
	long loops = argc > 1 ? atol(argv[1]) : 200000;
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	unsigned char buf[64];
	unsigned long s = 0;
	unsigned int seed = 1;
	for (long i = 0; i < loops; i++) {
		if (read(in, buf, sizeof buf) != sizeof buf || write(out, buf, 1) != 1)
			return 1;
		s += checksum(buf, sizeof buf, 4);
		for (int j = 0; j < 64; j++)
			s += rand_r(&seed);
	}
	return (int)(s & 1);
}

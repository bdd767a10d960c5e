/* Spin under a command name that is not UTF-8, for --comm's tests. */
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static void spin(const char *name, double secs)
{
	struct timespec t0, t;
	volatile unsigned long n = 0;
	prctl(PR_SET_NAME, name, 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
}

int main(void)
{
	pid_t child = fork();
	if (child == 0) {
		spin("spin\xff\xfe", 0.6); /* bytes 0xff 0xfe: never UTF-8 */
		return 0;
	}
	spin("spin\xc3", 0.6); /* a cut two-byte sequence */
	waitpid(child, NULL, 0);
	return 0;
}

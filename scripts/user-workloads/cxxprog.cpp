// C++ workload: templates, namespaces, virtual calls, std::sort on strings.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace shapes {
struct Shape {
	virtual ~Shape() {}
	virtual double area(int k) const = 0;
};
struct Square : Shape {
	double s;
	explicit Square(double s) : s(s) {}
	double area(int k) const override;
};
__attribute__((noinline)) double Square::area(int k) const
{
	double a = 0;
	for (int i = 0; i < k; i++)
		a += s * s / (i + 1);
	return a;
}
} // namespace shapes

namespace {
template <typename T> __attribute__((noinline)) T accumulate_squares(const std::vector<T> &v)
{
	T t = 0;
	for (const T &x : v)
		t += x * x;
	return t;
}
} // namespace

int main(int argc, char **argv)
{
	long loops = argc > 1 ? atol(argv[1]) : 2000;
	std::vector<std::string> words;
	for (int i = 0; i < 2000; i++)
		words.push_back(std::to_string((i * 7919) % 2003));
	std::map<std::string, int> counts;
	shapes::Square sq(1.5);
	const shapes::Shape &sh = sq;
	std::vector<long> nums(4096, 3);
	double total = 0;
	for (long i = 0; i < loops; i++) {
		std::vector<std::string> w = words;
		std::sort(w.begin(), w.end());
		counts[w[i % w.size()]]++;
		total += sh.area(2000) + accumulate_squares(nums);
	}
	return total < 0;
}

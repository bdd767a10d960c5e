#!/usr/bin/awk -f
# Tiny stack collapser for `perf script` output recorded with callchains (-g).
#
# Input : perf script text: per sample a header line
#           "comm pid time: period event:"
#         then one tab-indented frame per line, LEAF FIRST:
#           "\t    addr symbol+0xoff (dso)"
#         then a blank line.
# Output: folded stacks "root;...;caller;leaf COUNT", ROOT FIRST, COUNT =
#         number of samples with exactly that stack (not the period),
#         sorted by stack (pipe through sort for a stable order).
# Frames: the symbol with its "+0x..." offset removed; an unresolved symbol
#         stays "[unknown]". ';' inside a name would be replaced by ':'.
#         The command name is NOT added as a root frame (unlike FlameGraph's
#         stackcollapse-perf.pl), so a leaf's total equals the sample count
#         `perf report --no-children --sort sym -n` shows for that symbol.
# Samples without any frame line are counted under "[unknown]".

function flush(   s, i) {
	if (!insample) return
	if (n == 0) { stack = "[unknown]" }
	else {
		stack = frame[n]
		for (i = n - 1; i >= 1; i--) stack = stack ";" frame[i]
	}
	count[stack]++
	insample = 0; n = 0
}

/^[ \t]*$/ { flush(); next }
/^\t/ {
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/^[0-9a-fA-F]+ /, "", line)          # address
	sub(/ \([^()]*\)$/, "", line)           # (dso)
	sub(/\+0x[0-9a-fA-F]+$/, "", line)      # +offset
	gsub(/;/, ":", line)
	if (line == "") line = "[unknown]"
	frame[++n] = line
	next
}
{ flush(); insample = 1; n = 0 }
END {
	flush()
	for (s in count) print s, count[s]
}

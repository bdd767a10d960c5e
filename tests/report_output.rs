//! What reviewers ask for (issue 17): flame graph views (`--kernel-only`,
//! `--flame-reverse`, `--flame-merge-roots`). Real testdata throughout.

use crate::cli::stdout_of;

const PIPES_G: &str = "testdata/perf-script/pipes-g.txt.gz";
const THREADS_G: &str = "testdata/perf-script/threads-g.txt.gz";

/// The titles of every frame at the top level of the flame graph SVG.
fn top_frames(svg: &str) -> Vec<String> {
    // Frames are `<g><title>NAME\n...` in drawing order: the root `all`
    // first, then its children (depth first); a child of the root starts
    // at the same x as the root or where its previous sibling ended, at
    // y = the root's y + 16.
    let mut out = Vec::new();
    let mut root_y = None;
    for part in svg.split("<g><title>").skip(1) {
        let name = part.split('\n').next().unwrap_or_default().to_string();
        let y: f64 = part
            .split("y=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0);
        match root_y {
            None => root_y = Some(y),
            Some(r) if (y - r - 16.0).abs() < 0.01 => out.push(name),
            _ => {}
        }
    }
    out
}

/// `--kernel-only` roots every stack at the kernel entry (no user frame
/// left), `--flame-merge-roots` joins the processes' and the threads'
/// trees, `--flame-reverse` puts the leaf functions at the root; the graph
/// says which view it is.
#[test]
fn flame_graph_views() {
    let svg = |extra: &[&str]| {
        String::from_utf8(stdout_of(
            &[&[PIPES_G, THREADS_G, "-o", "flamegraph"][..], extra].concat(),
        ))
        .unwrap()
    };
    let plain = top_frames(&svg(&[]));
    assert!(
        plain.iter().any(|f| f == "__libc_start_call_main"),
        "{plain:?}"
    );
    assert!(plain.iter().any(|f| f == "start_thread"), "{plain:?}");

    let kernel = svg(&["--kernel-only"]);
    assert!(kernel.contains("view: kernel frames only"));
    let top = top_frames(&kernel);
    assert!(
        top.iter().any(|f| f == "entry_SYSCALL_64_after_hwframe"),
        "{top:?}"
    );
    for user in [
        "__libc_start_call_main",
        "start_thread",
        "__GI___libc_write",
        "[unknown]",
    ] {
        assert!(
            !kernel.contains(&format!("<title>{user}\n")),
            "{user} in --kernel-only"
        );
    }

    let merged = svg(&["--flame-merge-roots"]);
    assert!(merged.contains("view: process and thread start frames removed"));
    let top = top_frames(&merged);
    assert!(!top
        .iter()
        .any(|f| f == "start_thread" || f == "__libc_start_call_main"));
    // The program's writes are one frame, on both sides.
    let write = merged
        .split("<g><title>__GI___libc_write\ninclusive: ")
        .nth(1)
        .and_then(|s| s.split(" (").next())
        .unwrap_or_default()
        .to_string();
    let (old, new) = write.split_once(" &#8594; ").unwrap_or_default();
    assert!(
        old != "0.000%" && new != "0.000%" && !old.is_empty(),
        "{write}"
    );

    let reversed = svg(&["--flame-reverse"]);
    assert!(reversed.contains("view: reversed"));
    let top = top_frames(&reversed);
    assert!(
        top.iter().any(|f| f == "_raw_spin_unlock_irqrestore"),
        "{top:?}"
    );
    assert!(!top.iter().any(|f| f == "start_thread"), "{top:?}");
}

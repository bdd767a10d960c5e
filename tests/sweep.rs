//! Issue 24's last sweep: inputs and flags that were accepted without a
//! word or with a message no one can act on, through the real binary on
//! the committed recordings (hand-made files only where the case is a
//! malformed file).

use crate::cli::diffprofile;
use crate::scratch::Scratch;
use std::fs;
use std::path::Path;
use std::process::Output;

const RP: &str = "testdata/readprofile/default";

fn run(args: &[&str]) -> Output {
    diffprofile().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Exit 2, saying `what` on stderr.
#[track_caller]
fn refused(o: &Output, what: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains(what), "{e}");
}

/// A hidden file in a run directory (`.run1`, a copy someone hid) and a
/// hidden member of a tar are passed over in a counted warning naming
/// them (before: dropped without a word).
#[test]
fn hidden_runs_are_said() {
    let d = Scratch::new("diffprofile-sweep", "hidden");
    let side = d.join("old");
    fs::create_dir_all(side.join(".git")).unwrap();
    for r in 1..=2 {
        fs::copy(
            format!("{RP}/pipes/run{r}.txt"),
            side.join(format!("run{r}.txt")),
        )
        .unwrap();
    }
    fs::copy(format!("{RP}/pipes/run3.txt"), side.join(".run3.txt")).unwrap();
    fs::copy(format!("{RP}/pipes/run4.txt"), side.join(".git/run4.txt")).unwrap();
    let o = run(&[s(&side), &format!("{RP}/sockets"), "-o", "csv"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!(
            "{}: 2 hidden file(s) and directories (.name) not read: {}, {}",
            s(&side),
            s(&side.join(".git")),
            s(&side.join(".run3.txt"))
        )),
        "{e}"
    );
    // The same in a tar archive.
    let tar = d.join("old.tar");
    let mut b = tar::Builder::new(fs::File::create(&tar).unwrap());
    for (name, r) in [("run1.txt", 1), (".run2.txt", 2)] {
        b.append_path_with_name(format!("{RP}/pipes/run{r}.txt"), name)
            .unwrap();
    }
    b.finish().unwrap();
    drop(b);
    let o = run(&[s(&tar), &format!("{RP}/sockets"), "-o", "csv"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!("{}:.run2.txt: a hidden file, not read", s(&tar))),
        "{e}"
    );
}

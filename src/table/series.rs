//! A results tree whose paths all lie under one directory: an archive made
//! of the series' directory (`tar c tree | zstd`, `tar cJf s.tar.xz
//! series`) holds `tree/v6.1/pipes/run1.txt`, which the default layout
//! `{kernel}/{bench}/**` reads as kernel `tree`, benchmark `v6.1`. When the
//! default layout finds one kernel and one level down
//! (`*/{kernel}/{bench}/**`) finds several, the tree is read one level down,
//! said; else as it is. `history`, `export` and `batch` decide it here.
//!
//! Input: the layout given, the kernels it finds, and a way to list the
//! kernels of another layout. Output: the layout to read with, and the
//! note that says so.

use super::tree::{self, Member, Visitor};
use crate::layout::Layout;
use crate::load::MapFile;
use anyhow::Result;
use std::collections::BTreeSet;

/// The layout one level down from the default one.
const DEEPER: &str = "*/{kernel}/{bench}/**";

/// When `layout` is the default, found only the one kernel `found`, and
/// `below` (the kernels of [`DEEPER`]) lists several: the deeper layout
/// and the note; `None` otherwise (`below` not called).
pub fn one_level_down(
    layout: &Layout,
    found: &[String],
    below: impl FnOnce(&Layout) -> Result<Vec<String>>,
) -> Result<Option<(Layout, String)>> {
    if *layout != Layout::default() || found.len() != 1 {
        return Ok(None);
    }
    let deeper = Layout::parse(DEEPER)?;
    let kernels = below(&deeper)?;
    if kernels.len() < 2 {
        return Ok(None);
    }
    let note = format!(
        "every path lies under the one directory {}/, which --layout {} reads as the one \
         kernel of the series: read one level down, as --layout '{}' (kernels {})",
        found[0],
        layout.text(),
        deeper.text(),
        kernels.join(", ")
    );
    Ok(Some((deeper, note)))
}

/// The layout to read the tree at `root` with ([`one_level_down`] from a
/// listing pass that reads no member), and the note when it is not
/// `layout`. A layout other than the default is kept without a pass, and
/// so is a root that is not there or cannot be listed (its reader says why).
pub fn layout_for(root: &str, layout: &Layout) -> (Layout, Option<String>) {
    let path = crate::input::os_path(root);
    if *layout != Layout::default() || root == "-" || !path.exists() {
        return (layout.clone(), None);
    }
    // (A root the listing cannot read is read as it is: its reader says
    // what is wrong with it.)
    let Ok(found) = kernels(root, layout) else {
        return (layout.clone(), None);
    };
    match one_level_down(layout, &found, |deeper| kernels(root, deeper)) {
        Ok(Some((deeper, note))) => (deeper, Some(note)),
        _ => (layout.clone(), None),
    }
}

/// The kernels `layout` finds in the tree at `root`, in name order.
fn kernels(root: &str, layout: &Layout) -> Result<Vec<String>> {
    let mut k = Kernels::default();
    tree::visit(root, layout, &mut k)?;
    Ok(k.0.into_iter().collect())
}

/// A listing visitor: the kernels, nothing read.
#[derive(Default)]
struct Kernels(BTreeSet<String>);

impl Visitor for Kernels {
    fn wants(&mut self, kernel: &str, _bench: &str) -> bool {
        self.0.insert(kernel.to_string());
        false
    }
    fn map(&mut self, _dir: &str, _file: MapFile) -> Result<()> {
        Ok(())
    }
    fn member(&mut self, _member: Member<'_>) -> Result<()> {
        Ok(())
    }
    fn unmatched(&mut self, _path: String) {}
    fn warning(&mut self, _text: String) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_default_layout_with_one_kernel_goes_down() {
        let default = Layout::default();
        let two = |_: &Layout| Ok(vec!["v6.1".to_string(), "v6.2".to_string()]);
        let (l, note) = one_level_down(&default, &["tree".into()], two)
            .unwrap()
            .unwrap();
        assert_eq!(l.text(), DEEPER);
        assert!(
            note.starts_with("every path lies under the one directory tree/"),
            "{note}"
        );
        assert!(note.ends_with("(kernels v6.1, v6.2)"), "{note}");
        let one = |_: &Layout| Ok(vec!["v6.1".to_string()]);
        assert!(one_level_down(&default, &["tree".into()], one)
            .unwrap()
            .is_none());
        let both = ["a".to_string(), "b".to_string()];
        assert!(one_level_down(&default, &both, two).unwrap().is_none());
        let other = Layout::parse("{bench}/{kernel}/**").unwrap();
        assert!(one_level_down(&other, &["tree".into()], two)
            .unwrap()
            .is_none());
    }
}

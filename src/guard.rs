//! Third-party decoders that panic on damaged input: their panic becomes an
//! error, said once, in words, never a crash.
//!
//! diffprofile checks what it can before handing bytes to a decoder crate
//! (perf.data records, archive members), but the inside of a Parquet file
//! (page headers, definition levels, encodings) is the parquet crate's to
//! decode, and a damaged one can make it panic (found by the `read_table`
//! fuzz target). [`decoding`] runs such a decoder with the panic caught and
//! its message kept off stderr; a panic anywhere else still reaches the
//! panic hook (and, under the fuzzer, still counts as a crash).

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Set while this thread runs a decoder under [`decoding`].
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

/// Run `f`, a call into a decoder crate; `Err(message)` when it panicked.
pub fn decoding<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_an_error_and_the_rest_goes_through() {
        assert_eq!(decoding(|| 7), Ok(7));
        let r: Result<(), String> = decoding(|| panic!("offset + len out of bounds"));
        assert_eq!(r, Err("offset + len out of bounds".to_string()));
        let n = 3;
        let r: Result<(), String> = decoding(|| panic!("{n} bytes short"));
        assert_eq!(r, Err("3 bytes short".to_string()));
        // Nested: the outer call stays quiet after the inner one.
        let r = decoding(|| decoding(|| 1).unwrap() + 1);
        assert_eq!(r, Ok(2));
    }
}

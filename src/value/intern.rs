//! Schema strings with the `'static` lifetime that the runtime's errors and paths hold.
//!
//! Generated code names its entries with string literals; a schema read at run time has only
//! `String`s. Each distinct schema string (a schema, entry or key name, a list of named values,
//! a constant) is leaked once and reused, so memory stays bounded by the schemas loaded, never by
//! the inputs decoded. Nothing from an input is interned.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// The interned strings, each with the `&'static &'static str` a [`Path`](metalayer::Path)
/// holds, and the interned byte strings.
#[derive(Default)]
struct Table {
    names: HashMap<String, &'static &'static str>,
    bytes: HashMap<Vec<u8>, &'static [u8]>,
}

fn table() -> MutexGuard<'static, Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    // The table is consistent after any panic (each insert is one call), so a poisoned lock is
    // still usable.
    TABLE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// `text` as a `'static` name, for [`Path::entry`](metalayer::Path::entry) and
/// [`Path::child`](metalayer::Path::child).
pub fn name(text: &str) -> &'static &'static str {
    let mut table = table();
    if let Some(&name) = table.names.get(text) {
        return name;
    }
    let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
    let name: &'static &'static str = Box::leak(Box::new(leaked));
    table.names.insert(text.to_owned(), name);
    name
}

/// `text` as a `'static` string.
pub fn text(text: &str) -> &'static str {
    name(text)
}

/// `bytes` as a `'static` byte string.
pub fn bytes(bytes: &[u8]) -> &'static [u8] {
    let mut table = table();
    if let Some(&b) = table.bytes.get(bytes) {
        return b;
    }
    let leaked: &'static [u8] = Box::leak(bytes.to_vec().into_boxed_slice());
    table.bytes.insert(bytes.to_vec(), leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_string_is_leaked_once() {
        let a = name("shape");
        let b = name(&String::from("shape"));
        assert!(std::ptr::eq(a, b));
        assert_eq!(*a, "shape");
        assert!(std::ptr::eq(text("dtype"), text("dtype")));
        assert!(std::ptr::eq(bytes(b"\x01\x02"), bytes(&[1, 2])));
    }
}

//! Walking a value's entries in wire order, constants and lengths included, for tools that
//! print or convert metalayers without knowing their layout.

/// Receives the entries of a value, in wire order.
///
/// ```
/// use metalayer_runtime::EntryVisitor;
///
/// #[derive(Default)]
/// struct Names(Vec<&'static str>);
///
/// impl EntryVisitor for Names {
///     fn int(&mut self, name: &'static str, _: i128) { self.0.push(name) }
///     fn ints(&mut self, name: &'static str, _: &mut dyn Iterator<Item = i128>) { self.0.push(name) }
///     fn str(&mut self, name: &'static str, _: &str) { self.0.push(name) }
/// }
///
/// let mut names = Names::default();
/// names.int("ndim", 2);
/// assert_eq!(names.0, ["ndim"]);
/// ```
pub trait EntryVisitor {
    /// An integer entry: a constant, a length or a value.
    fn int(&mut self, name: &'static str, value: i128);
    /// An array entry's elements.
    fn ints(&mut self, name: &'static str, values: &mut dyn Iterator<Item = i128>);
    /// A string entry.
    fn str(&mut self, name: &'static str, value: &str);
}

/// A value whose entries can be walked; `#[metalayer]` implements it.
///
/// ```
/// use metalayer_runtime::{Entries, EntryVisitor};
///
/// struct Count(usize);
/// impl EntryVisitor for Count {
///     fn int(&mut self, _: &'static str, _: i128) { self.0 += 1 }
///     fn ints(&mut self, _: &'static str, _: &mut dyn Iterator<Item = i128>) { self.0 += 1 }
///     fn str(&mut self, _: &'static str, _: &str) { self.0 += 1 }
/// }
///
/// struct Pair;
/// impl Entries for Pair {
///     fn visit_entries(&self, v: &mut dyn EntryVisitor) {
///         v.int("a", 1);
///         v.str("b", "x");
///     }
/// }
///
/// let mut count = Count(0);
/// Pair.visit_entries(&mut count);
/// assert_eq!(count.0, 2);
/// ```
pub trait Entries {
    /// Calls `visitor` once per entry, in wire order.
    fn visit_entries(&self, visitor: &mut dyn EntryVisitor);
}

//! The names errors hold: a schema's, an entry's, a key's, a constant's. Generated code names
//! things with literals (`&'static str`, free to hold); a layout read at run time has only its
//! own strings, which an error copies into a shared allocation when it is made, and frees with
//! itself.

use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

#[cfg(feature = "alloc")]
use alloc::{boxed::Box, sync::Arc};

/// A name (`Name<str>`) or constant bytes (`Name<[u8]>`) held by an error or a [`Path`]:
/// either a `'static` literal, as generated code gives it, or a copy shared by the clones of
/// one error (feature `alloc`), for names read at run time. Two names are equal when their
/// text is.
///
/// It is as large as a `&str`: errors stay small.
///
/// [`Path`]: crate::Path
///
/// ```
/// use metalayer_runtime::Name;
///
/// let literal = Name::new("shape");
/// let schema_text = String::from("shape");
/// let copied = Name::copy_of(schema_text.as_str());
/// drop(schema_text);
/// assert_eq!(literal, copied);
/// assert_eq!(copied.to_string(), "shape");
/// assert_eq!(&*Name::<[u8]>::copy_of(&[1u8, 2][..]), [1, 2]);
/// ```
pub struct Name<T: ?Sized + 'static = str>(Repr<T>);

enum Repr<T: ?Sized + 'static> {
    Static(&'static T),
    // A box in the `Arc`, so that the pointer is thin and a name is two words, as a `&str` is.
    #[cfg(feature = "alloc")]
    Shared(Arc<Box<T>>),
}

impl<T: ?Sized> Name<T> {
    /// A `'static` name: what generated code holds, at no cost.
    ///
    /// ```
    /// const SHAPE: metalayer_runtime::Name = metalayer_runtime::Name::new("shape");
    /// assert_eq!(&*SHAPE, "shape");
    /// ```
    pub const fn new(name: &'static T) -> Self {
        Name(Repr::Static(name))
    }

    /// The name.
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::Name::new("ndim").get(), "ndim");
    /// ```
    pub fn get(&self) -> &T {
        match &self.0 {
            Repr::Static(name) => name,
            #[cfg(feature = "alloc")]
            Repr::Shared(name) => name,
        }
    }
}

#[cfg(feature = "alloc")]
impl<T: ?Sized> Name<T>
where
    for<'a> Box<T>: From<&'a T>,
{
    /// A copy of `name`, for a name that is not `'static` (a layout's, read at run time): the
    /// error that holds it owns it, and its clones share it.
    ///
    /// ```
    /// let entry = String::from("chunkshape");
    /// let name = metalayer_runtime::Name::copy_of(entry.as_str());
    /// assert_eq!(name.get(), "chunkshape");
    /// ```
    pub fn copy_of(name: &T) -> Self {
        Name(Repr::Shared(Arc::new(Box::from(name))))
    }
}

impl<T: ?Sized> Clone for Name<T> {
    fn clone(&self) -> Self {
        match &self.0 {
            Repr::Static(name) => Name(Repr::Static(name)),
            #[cfg(feature = "alloc")]
            Repr::Shared(name) => Name(Repr::Shared(Arc::clone(name))),
        }
    }
}

impl<T: ?Sized> Deref for Name<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.get()
    }
}

impl<T: ?Sized> AsRef<T> for Name<T> {
    fn as_ref(&self) -> &T {
        self.get()
    }
}

impl<T: ?Sized> From<&'static T> for Name<T> {
    fn from(name: &'static T) -> Self {
        Name::new(name)
    }
}

impl From<&'static &'static str> for Name {
    fn from(name: &'static &'static str) -> Self {
        Name::new(name)
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Name<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: ?Sized + Eq> Eq for Name<T> {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.get() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.get() == *other
    }
}

impl PartialEq<[u8]> for Name<[u8]> {
    fn eq(&self, other: &[u8]) -> bool {
        self.get() == other
    }
}

impl PartialEq<&[u8]> for Name<[u8]> {
    fn eq(&self, other: &&[u8]) -> bool {
        self.get() == *other
    }
}

impl<T: ?Sized + Hash> Hash for Name<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.get().hash(state);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Name<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.get(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_two_words() {
        assert_eq!(core::mem::size_of::<Name>(), core::mem::size_of::<&str>());
        assert_eq!(core::mem::size_of::<Name<[u8]>>(), core::mem::size_of::<&[u8]>());
    }

    #[test]
    fn errors_stay_small() {
        // A path of literals is three pointers and its indices; errors fit in a few lines.
        assert!(core::mem::size_of::<crate::Path>() <= 40);
        assert!(core::mem::size_of::<crate::DecodeError>() <= 112);
        assert!(core::mem::size_of::<crate::EncodeError>() <= 112);
    }
}

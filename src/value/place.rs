//! Where the walk over a value is, its names borrowed from the layout (or from the JSON being
//! encoded): copied only when an error is made, into the runtime's [`Path`], which owns them.

#[allow(unused_imports)]
use crate::std_prelude::*;

use metalayer_runtime::{Name, PATH_DEPTH, Path};

const NO_INDEX: u32 = u32::MAX;

/// A [`Path`] whose names are borrowed: the same levels, kept the same way (the innermost
/// [`PATH_DEPTH`] of them), free to copy while the walk goes on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'a> {
    /// Per level, the entry's name; empty for an element of an element.
    names: [&'a str; PATH_DEPTH],
    /// Per level, the element's index, or `NO_INDEX`.
    indices: [u32; PATH_DEPTH],
    len: u8,
    /// Outer levels were dropped to fit [`PATH_DEPTH`].
    elided: bool,
}

impl<'a> Place<'a> {
    /// The top-level container: [`Path::CONTAINER`].
    pub(crate) const CONTAINER: Place<'a> = Place {
        names: [""; PATH_DEPTH],
        indices: [NO_INDEX; PATH_DEPTH],
        len: 0,
        elided: false,
    };

    /// [`Path::entry`].
    pub(crate) fn entry(name: &'a str) -> Place<'a> {
        Place::CONTAINER.child(name)
    }

    /// [`Path::child`].
    pub(crate) fn child(self, name: &'a str) -> Place<'a> {
        self.push(name, NO_INDEX)
    }

    /// [`Path::index`].
    pub(crate) fn index(self, index: usize) -> Place<'a> {
        let index = u32::try_from(index).unwrap_or(NO_INDEX - 1).min(NO_INDEX - 1);
        if self.len > 0 && self.indices[self.len as usize - 1] == NO_INDEX {
            let mut out = self;
            out.indices[out.len as usize - 1] = index;
            return out;
        }
        self.push("", index)
    }

    fn push(self, name: &'a str, index: u32) -> Place<'a> {
        let mut out = self;
        if (out.len as usize) < PATH_DEPTH {
            out.names[out.len as usize] = name;
            out.indices[out.len as usize] = index;
            out.len += 1;
        } else {
            out.names.rotate_left(1);
            out.indices.rotate_left(1);
            out.names[PATH_DEPTH - 1] = name;
            out.indices[PATH_DEPTH - 1] = index;
            out.elided = true;
        }
        out
    }

    /// The runtime's path of the same levels, its names copied: for an error.
    pub(crate) fn to_path(self) -> Path {
        // A path that lost its outer levels is built past one more level, which it drops
        // as this one did.
        let mut path = if self.elided {
            Path::CONTAINER.index(0)
        } else {
            Path::CONTAINER
        };
        for i in 0..self.len as usize {
            let (name, index) = (self.names[i], self.indices[i]);
            path = if name.is_empty() && index != NO_INDEX {
                path.index(index as usize)
            } else {
                let named = if name.is_empty() {
                    path.child(&"")
                } else {
                    path.child_name(Name::copy_of(name))
                };
                if index == NO_INDEX {
                    named
                } else {
                    named.index(index as usize)
                }
            };
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each place built as the runtime builds its paths, compared with the runtime's.
    #[test]
    fn places_become_the_runtime_paths() {
        let cases: [(Place<'_>, Path); 7] = [
            (Place::CONTAINER, Path::CONTAINER),
            (Place::entry("shape"), Path::entry(&"shape")),
            (Place::entry("shape").index(3), Path::element(&"shape", 3)),
            (Place::CONTAINER.index(2).index(1), Path::CONTAINER.index(2).index(1)),
            (
                Place::entry("operands").index(3).child("shape").index(1),
                Path::entry(&"operands").index(3).child(&"shape").index(1),
            ),
            (
                Place::entry("a").index(1).index(2).index(3).child("b").index(4),
                Path::element(&"a", 1).index(2).index(3).child(&"b").index(4),
            ),
            (
                Place::entry("a").child("b").child("c").index(9).index(8),
                Path::entry(&"a").child(&"b").child(&"c").index(9).index(8),
            ),
        ];
        for (place, path) in cases {
            assert_eq!(place.to_path(), path, "{path}");
            assert_eq!(place.to_path().to_string(), path.to_string());
        }
        assert_eq!(
            Place::entry("a").child("b").child("c").child("d").to_path().to_string(),
            "….b.c.d"
        );
    }
}

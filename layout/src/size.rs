//! One size formula per value: the encoded size of a node or a record as a [`Size`], a fixed
//! number of bytes plus [`Term`]s in the value's counts, lengths and canonical encodings. The
//! documentation prints it, the offset formulas are sums of it, and the generated
//! `encoded_len` evaluates it: there is no second formula to drift from it.
//!
//! Every fixed encoding folds into the fixed bytes or a [`Term::Linear`] term, so a layout of
//! fixed wire types gets the linear formula its format document states:
//!
//! ```
//! use metalayer_layout::{builtin, size};
//!
//! let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
//! let len = size::of_record(&layout, layout.root_record().unwrap(), &size::Place::root());
//! assert_eq!(len.to_string(), "12 + 19*ndim + len(dtype)");
//! assert_eq!(len.eval(&[("ndim", 2)], &[("dtype", 3)]), 53);
//! ```
//!
//! # Places
//!
//! Terms name the value they depend on by its [`Place`]: the path of entries, elements, keys and
//! values from the record (or top-level value) the size is of. Inside [`Term::Each`] and
//! [`Term::EachPair`] places are relative to the current element or pair: they start with
//! [`Step::Element`], [`Step::Key`] or [`Step::Value`].
//!
//! An array or map counted by an entry has a named count: its [`Var::Count`] is the place of the
//! count entry (`ndim`), whose value is the number of elements of every array it counts
//! ([`Role::Count`]), so that `9*ndim + 5*ndim + 5*ndim` merges into `19*ndim`. An array that
//! states its count in its own header has no named count; its elements are summed with
//! [`Term::Each`], shown as `9*len(xs)` when every element takes the same 9 bytes.
//!
//! # Notation
//!
//! [`Size`] and [`Term`] display as the formula text the documentation prints:
//!
//! | term | text |
//! |---|---|
//! | `Linear { k: 9, of: Count(ndim) }` | `9*ndim` |
//! | `Linear { k: 1, of: Len(dtype) }` | `len(dtype)` |
//! | `Smallest { family: Int, of: scale }` | `int(scale)`: 1, 2, 3, 5 or 9 bytes |
//! | `Smallest { family: Str, of: tags }` | `hdr(tags)`: the smallest header for the length |
//! | `Each { of: tags, element }` | `Σ(hdr(tags[i]) + len(tags[i]))`, or `9*len(xs)` |
//! | `EachPair { of: m, key, value }` | `Σ(hdr(m[i].key) + len(m[i].key) + 5)` |
//! | `Record { of: origin, ty }` | `size(origin)` |
//! | `Optional { of: note, size }` | `[present(note)]*(5 + hdr(note) + len(note))` |
//!
//! An empty place (the record itself) shows as `self`.

use core::cell::RefCell;
use core::fmt;
use std::collections::BTreeMap;

use metalayer_runtime::wire::{Family, Wire};

use crate::model::{Const, Count, Encoding, Entry, IntType, Layout, NESTING_LIMIT, Node, Record, Role, Type};

/// Where a value is, relative to the record (or top-level value) the size is of.
///
/// ```
/// use metalayer_layout::size::{Place, Step};
///
/// let tags = Place::entry(3, "tags");
/// assert_eq!(tags.to_string(), "tags");
/// assert_eq!(tags.child(Step::Element).to_string(), "tags[i]");
/// assert_eq!(Place::root().to_string(), "self");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Place(pub Vec<Step>);

/// One step of a [`Place`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// Entry `index` (in `Record::entries`) of the enclosing record, named `name`.
    Entry {
        /// The entry's index in [`Record::entries`].
        index: usize,
        /// The entry's name.
        name: String,
    },
    /// The current element of the innermost enclosing `Term::Each`.
    Element,
    /// The current pair's key of the innermost enclosing `Term::EachPair`.
    Key,
    /// The current pair's value of the innermost enclosing `Term::EachPair`.
    Value,
}

impl Place {
    /// The empty place: the record (or top-level value) itself.
    ///
    /// ```
    /// assert!(metalayer_layout::size::Place::root().0.is_empty());
    /// ```
    pub fn root() -> Place {
        Place(Vec::new())
    }

    /// The place of a record's own entry.
    ///
    /// ```
    /// use metalayer_layout::size::{Place, Step};
    ///
    /// assert_eq!(Place::entry(1, "ndim").0, [Step::Entry { index: 1, name: "ndim".into() }]);
    /// ```
    pub fn entry(index: usize, name: &str) -> Place {
        Place(vec![Step::Entry {
            index,
            name: name.to_string(),
        }])
    }

    /// This place followed by `step`.
    ///
    /// ```
    /// use metalayer_layout::size::{Place, Step};
    ///
    /// let p = Place::entry(0, "ops").child(Step::Element).child(Step::Entry { index: 1, name: "kind".into() });
    /// assert_eq!(p.to_string(), "ops[i].kind");
    /// ```
    pub fn child(&self, step: Step) -> Place {
        let mut steps = self.0.clone();
        steps.push(step);
        Place(steps)
    }

    /// The place of entry `index` of the record this place is an entry of: the same place with
    /// its last entry step replaced (a sibling), or an entry of this place if it does not end
    /// with an entry.
    ///
    /// ```
    /// use metalayer_layout::size::Place;
    ///
    /// assert_eq!(Place::entry(2, "shape").sibling(1, "ndim"), Place::entry(1, "ndim"));
    /// ```
    pub fn sibling(&self, index: usize, name: &str) -> Place {
        let mut steps = self.0.clone();
        if matches!(steps.last(), Some(Step::Entry { .. })) {
            steps.pop();
        }
        steps.push(Step::Entry {
            index,
            name: name.to_string(),
        });
        Place(steps)
    }

    /// The name of the last entry step, if the place ends with one.
    ///
    /// ```
    /// use metalayer_layout::size::Place;
    ///
    /// assert_eq!(Place::entry(1, "ndim").last_name(), Some("ndim"));
    /// assert_eq!(Place::root().last_name(), None);
    /// ```
    pub fn last_name(&self) -> Option<&str> {
        match self.0.last() {
            Some(Step::Entry { name, .. }) => Some(name),
            _ => None,
        }
    }
}

impl fmt::Display for Place {
    /// Entry names joined with `.`, `[i]` for an element, `.key` and `.value` for a pair's parts,
    /// `self` for the empty place.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&place_text(self, &[]))
    }
}

/// A variable of a linear term.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    /// The number of elements (or pairs) of the arrays (maps) counted by an entry. The place is
    /// that count entry's (`ndim`), whose value is the number of elements of every array it
    /// counts ([`Role::Count`]); it is rendered as the place (`ndim`). (An array that states its
    /// count in its own header has no named count: its elements are summed by [`Term::Each`],
    /// rendered `9*len(x)`.)
    Count(Place),
    /// The byte length of the str/bin/ext payload at the place: `len(dtype)`.
    Len(Place),
}

impl Var {
    /// The place the variable is of.
    ///
    /// ```
    /// use metalayer_layout::size::{Place, Var};
    ///
    /// assert_eq!(Var::Len(Place::entry(6, "dtype")).place(), &Place::entry(6, "dtype"));
    /// ```
    pub fn place(&self) -> &Place {
        match self {
            Var::Count(p) | Var::Len(p) => p,
        }
    }
}

impl fmt::Display for Var {
    /// `ndim` for a count, `len(dtype)` for a length.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&var_text(self, &[]))
    }
}

/// One variable part of a [`Size`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// `k` bytes per unit of `of`: `9*ndim`, `1*len(dtype)`.
    Linear {
        /// Bytes per unit.
        k: usize,
        /// The count or length.
        of: Var,
    },
    /// The size that a canonical (smallest) encoding chooses from the value: for `Family::Int`
    /// the whole integer (1, 2, 3, 5 or 9 bytes); for str/bin/array/map/ext the header only
    /// (marker + length field; ext: fixext = 2 bytes marker+type, else marker+len+type), as
    /// [`Wire::smallest_int_size`] and [`Wire::smallest_header_size`] compute it.
    Smallest {
        /// The value's family.
        family: Family,
        /// The value (for a record with a canonical header, the record itself).
        of: Place,
    },
    /// Σ over the elements of the array at `of` of `element` (whose places are relative to the
    /// element: they start with `Step::Element`).
    Each {
        /// The array.
        of: Place,
        /// One element's size.
        element: Box<Size>,
    },
    /// Σ over the pairs of the map at `of` (the key's places start with `Step::Key`, the
    /// value's with `Step::Value`).
    EachPair {
        /// The map.
        of: Place,
        /// One key's size.
        key: Box<Size>,
        /// One value's size.
        value: Box<Size>,
    },
    /// The size of the named record type `ty` (index into `Layout::types`) at `of`; its own
    /// formula is [`of_record`] of the type's record.
    Record {
        /// The record's place.
        of: Place,
        /// Its type, an index into [`Layout::types`].
        ty: usize,
    },
    /// `size` when the optional entry at `of` is present, else 0.
    Optional {
        /// The optional entry.
        of: Place,
        /// Its size (key included) when present.
        size: Box<Size>,
    },
}

impl fmt::Display for Term {
    /// See the [module documentation](self) for the notation.
    ///
    /// ```
    /// use metalayer_layout::size::{Place, Term, Var};
    /// use metalayer_layout::Family;
    ///
    /// let t = Term::Linear { k: 9, of: Var::Count(Place::entry(1, "ndim")) };
    /// assert_eq!(t.to_string(), "9*ndim");
    /// let t = Term::Smallest { family: Family::Int, of: Place::entry(2, "scale") };
    /// assert_eq!(t.to_string(), "int(scale)");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&term_text(self, &mut Vec::new()))
    }
}

/// `fixed + Σ terms`: the encoded size of a value.
///
/// Terms are kept merged and ordered: linear terms in counts first, then the others, each in
/// order of first appearance; a variable has one linear term.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Size {
    /// The bytes that do not depend on the value.
    pub fixed: usize,
    /// The parts that do.
    pub terms: Vec<Term>,
}

impl Size {
    /// A size without terms.
    ///
    /// ```
    /// use metalayer_layout::size::Size;
    ///
    /// assert_eq!(Size::fixed(3).to_string(), "3");
    /// assert_eq!(Size::fixed(3).as_constant(), Some(3));
    /// ```
    pub fn fixed(fixed: usize) -> Size {
        Size {
            fixed,
            terms: Vec::new(),
        }
    }

    /// The size, if it has no terms.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let root = layout.root_record().unwrap();
    /// let shape = metalayer_layout::size_formula(&layout, root, 2);
    /// assert_eq!(shape.as_constant(), None); // 1 + 9*ndim
    /// ```
    pub fn as_constant(&self) -> Option<usize> {
        self.terms.is_empty().then_some(self.fixed)
    }

    /// Whether every term is [`Term::Linear`]: the size is then a linear function of counts and
    /// lengths, offsets after it have formulas, and `const fn`s can compute it.
    ///
    /// ```
    /// use metalayer_layout::size::Size;
    ///
    /// let layout = metalayer_layout::builtin("caterva_v0").unwrap().layout().unwrap();
    /// assert!(metalayer_layout::length_formula(&layout).is_linear());
    /// assert!(Size::fixed(1).is_linear());
    /// ```
    pub fn is_linear(&self) -> bool {
        self.terms.iter().all(|t| matches!(t, Term::Linear { .. }))
    }

    /// The size plus `n` fixed bytes.
    ///
    /// ```
    /// assert_eq!(metalayer_layout::size::Size::fixed(3).plus(2).fixed, 5);
    /// ```
    pub fn plus(mut self, n: usize) -> Size {
        self.fixed = self.fixed.saturating_add(n);
        self
    }

    /// Adds a term, merging it into a linear term of the same variable.
    ///
    /// ```
    /// use metalayer_layout::size::{Place, Size, Term, Var};
    ///
    /// let ndim = || Var::Count(Place::entry(1, "ndim"));
    /// let dtype = Var::Len(Place::entry(6, "dtype"));
    /// let mut s = Size::fixed(1);
    /// s.push(Term::Linear { k: 1, of: dtype });
    /// s.push(Term::Linear { k: 9, of: ndim() });
    /// s.push(Term::Linear { k: 5, of: ndim() });
    /// assert_eq!(s.to_string(), "1 + 14*ndim + len(dtype)");
    /// ```
    pub fn push(&mut self, term: Term) {
        let rank = |t: &Term| usize::from(!matches!(t, Term::Linear { of: Var::Count(_), .. }));
        if let Term::Linear { k, of } = &term {
            if *k == 0 {
                return;
            }
            for t in &mut self.terms {
                if let Term::Linear { k: k2, of: of2 } = t
                    && of2 == of
                {
                    *k2 = k2.saturating_add(*k);
                    return;
                }
            }
        }
        let r = rank(&term);
        let at = self.terms.iter().position(|t| rank(t) > r).unwrap_or(self.terms.len());
        self.terms.insert(at, term);
    }

    /// Adds another size: its fixed bytes and each of its terms.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let root = layout.root_record().unwrap();
    /// let mut s = metalayer_layout::size_formula(&layout, root, 2); // 1 + 9*ndim
    /// s.add(metalayer_layout::size_formula(&layout, root, 3)); // 1 + 5*ndim
    /// assert_eq!(s.to_string(), "2 + 14*ndim");
    /// ```
    pub fn add(&mut self, other: Size) {
        self.fixed = self.fixed.saturating_add(other.fixed);
        for t in other.terms {
            self.push(t);
        }
    }

    /// The variables of the linear terms, in order.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let vars: Vec<String> = metalayer_layout::length_formula(&layout).vars().map(|v| v.to_string()).collect();
    /// assert_eq!(vars, ["ndim", "len(dtype)"]);
    /// ```
    pub fn vars(&self) -> impl Iterator<Item = &Var> {
        self.terms.iter().filter_map(|t| match t {
            Term::Linear { of, .. } => Some(of),
            _ => None,
        })
    }

    /// Evaluates a linear size. `counts` gives each count's value by its name as displayed
    /// (`ndim`), `lens` each length by its place as displayed (`dtype` for `len(dtype)`); names
    /// the size does not use are ignored.
    ///
    /// # Panics
    ///
    /// If the size has a term that is not linear, a count or length it uses is missing, or the
    /// result overflows `usize`; see [`Size::checked_eval`] for the fallible form.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("caterva_v0").unwrap().layout().unwrap();
    /// // caterva: 6 + 19*ndim
    /// assert_eq!(metalayer_layout::length_formula(&layout).eval(&[("ndim", 3)], &[]), 63);
    /// ```
    pub fn eval(&self, counts: &[(&str, usize)], lens: &[(&str, usize)]) -> usize {
        match self.checked_eval(counts, lens) {
            Some(n) => n,
            None => panic!("cannot evaluate `{self}` with counts {counts:?} and lengths {lens:?}"),
        }
    }

    /// [`Size::eval`], or `None` if a term is not linear, a count or length it uses is missing
    /// from the arguments, or the result overflows `usize`. The first binding of a name counts.
    ///
    /// ```
    /// let length = metalayer_layout::length_formula(&metalayer_layout::builtin("b2nd_v0").unwrap().layout().unwrap());
    /// assert_eq!(length.checked_eval(&[("ndim", 1)], &[("dtype", 5)]), Some(35));
    /// assert_eq!(length.checked_eval(&[("ndim", 1)], &[]), None);
    /// assert_eq!(length.checked_eval(&[("ndim", usize::MAX)], &[("dtype", 5)]), None);
    /// ```
    pub fn checked_eval(&self, counts: &[(&str, usize)], lens: &[(&str, usize)]) -> Option<usize> {
        let lookup =
            |bindings: &[(&str, usize)], name: &str| bindings.iter().find(|(n, _)| *n == name).map(|&(_, v)| v);
        let mut total = self.fixed;
        for t in &self.terms {
            let Term::Linear { k, of } = t else {
                return None;
            };
            let v = match of {
                Var::Count(p) => lookup(counts, &p.to_string())?,
                Var::Len(p) => lookup(lens, &p.to_string())?,
            };
            total = total.checked_add(v.checked_mul(*k)?)?;
        }
        Some(total)
    }

    /// Evaluates the size on a value: `value` is the value of the record (or top-level value)
    /// the size is of, as far as sizes depend on it. `None` if the value does not have the
    /// shape the places need (a missing entry, a string where an array belongs) or the result
    /// overflows.
    ///
    /// ```
    /// use metalayer_layout::size::{self, Place, Value};
    ///
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let len = size::of_record(&layout, layout.root_record().unwrap(), &Place::root());
    /// let shape = || Value::Array(vec![Value::Other; 2]);
    /// let value = Value::Record(vec![
    ///     Some(Value::Int(0)),        // version
    ///     Some(Value::Int(2)),        // ndim
    ///     Some(shape()),
    ///     Some(shape()),
    ///     Some(shape()),
    ///     Some(Value::Int(0)),        // dtype_format
    ///     Some(Value::Bytes(3)),      // dtype, "<i4"
    /// ]);
    /// assert_eq!(len.eval_value(&layout, &value), Some(53));
    /// ```
    pub fn eval_value(&self, layout: &Layout, value: &Value) -> Option<usize> {
        eval_size(self, layout, value, &mut Vec::new(), 0)
    }
}

impl fmt::Display for Size {
    /// `12 + 19*ndim + len(dtype)`: the fixed bytes (omitted when 0 unless they are all there
    /// is), then each term; a coefficient of 1 is not written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&size_text(self, &mut Vec::new()))
    }
}

/// A value to evaluate a [`Size`] on ([`Size::eval_value`]): a decoded value's shape, as far as
/// sizes depend on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// An integer: its value decides a canonical encoding's size, and a count entry's value is
    /// the number of elements of what it counts.
    Int(i128),
    /// A str, bin or ext payload of this many bytes.
    Bytes(usize),
    /// An array's elements.
    Array(Vec<Value>),
    /// A map's pairs.
    Map(Vec<(Value, Value)>),
    /// A record's entries by index; `None`, or a missing trailing entry, for an absent optional
    /// entry.
    Record(Vec<Option<Value>>),
    /// A value whose size does not depend on it (nil, bool, float, a fixed-width integer).
    Other,
}

// ---------------------------------------------------------------------------------------------
// Sizes of nodes and records.

/// How deeply an evaluation may nest (sums in sums, records in records) before it gives up:
/// values nested [`NESTING_LIMIT`] levels deep, where an optional entry's size is a level of its
/// own inside its value's.
const MAX_DEPTH: usize = 2 * NESTING_LIMIT;

/// The size of a value of `node`; places are relative to `at` (the empty place for a record's
/// own entries start from the record).
///
/// An array or map counted by an entry names the count by the place of the entry of that index
/// next to `at` (its sibling); its name is found in the record of `layout` that holds `node`.
/// A node alone has no role: for an entry that is a constant (whose size is then fixed, even
/// for a canonical encoding), use [`of_entry`] or [`of_record`].
///
/// ```
/// use metalayer_layout::size::{self, Place};
///
/// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
/// let shape = &layout.root_record().unwrap().entries[2];
/// assert_eq!(size::of(&layout, &shape.node, &Place::entry(2, "shape")).to_string(), "1 + 9*ndim");
/// ```
pub fn of(layout: &Layout, node: &Node, at: &Place) -> Size {
    let record = holder(layout, node);
    Cx::new(layout).node(node, at, None, record)
}

/// The size of a record, header included, entries summed (a required entry counted by an entry
/// contributes `Linear` terms naming that count; fixed-size parts fold into `fixed`; like terms
/// merge). Places are relative to `at`. An optional entry is a [`Term::Optional`].
///
/// ```
/// use metalayer_layout::size::{self, Place};
///
/// let layout = metalayer_layout::builtin("caterva_v0").unwrap().layout().unwrap();
/// let size = size::of_record(&layout, layout.root_record().unwrap(), &Place::root());
/// assert_eq!(size.to_string(), "6 + 19*ndim");
/// ```
pub fn of_record(layout: &Layout, record: &Record, at: &Place) -> Size {
    Cx::new(layout).record(record, at)
}

/// The size of entry `index` of `record` (the record's place is `at`): its key in a map
/// record and its value, whether or not it is optional.
///
/// # Panics
///
/// If `index` is not an entry's index.
///
/// ```
/// use metalayer_layout::size::{self, Place};
///
/// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
/// let root = layout.root_record().unwrap();
/// assert_eq!(size::of_entry(&layout, root, 6, &Place::root()).to_string(), "5 + len(dtype)");
/// ```
pub fn of_entry(layout: &Layout, record: &Record, index: usize, at: &Place) -> Size {
    Cx::new(layout).entry(record, index, at)
}

/// The size of a record's header: fixed, or [`Term::Smallest`] for a canonical header whose
/// size depends on how many optional entries are present.
///
/// ```
/// use metalayer_layout::size::{self, Place};
///
/// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
/// assert_eq!(size::record_header(layout.root_record().unwrap(), &Place::root()).to_string(), "1");
/// ```
pub fn record_header(record: &Record, at: &Place) -> Size {
    match record.header {
        Encoding::Fixed(w) => Size::fixed(w.header_size()),
        Encoding::Canonical { .. } => {
            let lo = Wire::smallest_header_size(record.form, record.required as u64);
            let hi = Wire::smallest_header_size(record.form, record.entries.len() as u64);
            if lo == hi {
                Size::fixed(lo)
            } else {
                Size {
                    fixed: 0,
                    terms: vec![Term::Smallest {
                        family: record.form,
                        of: at.clone(),
                    }],
                }
            }
        }
    }
}

/// The encoded size of a constant of a node, when the node and the constant agree.
///
/// ```
/// use metalayer_layout::{Const, size};
///
/// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
/// let version = &layout.root_record().unwrap().entries[0];
/// assert_eq!(size::const_size(&version.node, &Const::Int(0)), Some(1));
/// ```
pub fn const_size(node: &Node, c: &Const) -> Option<usize> {
    let bytes = |enc: &Encoding, family: Family, len: usize| -> usize {
        match enc {
            Encoding::Fixed(w) => w.header_size() + len,
            Encoding::Canonical { .. } => Wire::smallest_header_size(family, len as u64) + len,
        }
    };
    Some(match (&node.ty, c) {
        (Type::Nil, Const::Nil) | (Type::Bool, Const::Bool(_)) => 1,
        (Type::Int(t), Const::Int(v)) => match t.encoding {
            Encoding::Fixed(w) => w.header_size(),
            Encoding::Canonical { .. } => Wire::smallest_int_size(*v),
        },
        (Type::Float(w), Const::Float(_)) => w.header_size(),
        (Type::Str(t), Const::Bytes(b)) => bytes(&t.encoding, Family::Str, b.len()),
        (Type::Bin(t), Const::Bytes(b)) => bytes(&t.encoding, Family::Bin, b.len()),
        _ => return None,
    })
}

/// The sizes a canonical integer of this type can take: the least and the greatest.
fn int_sizes(t: &IntType) -> (usize, usize) {
    if !t.values.is_empty() {
        let (mut lo, mut hi) = (usize::MAX, 0);
        for &(_, v) in &t.values {
            let size = Wire::smallest_int_size(v);
            (lo, hi) = (lo.min(size), hi.max(size));
        }
        return (lo, hi);
    }
    let (a, b) = (Wire::smallest_int_size(t.min), Wire::smallest_int_size(t.max));
    // Sizes grow away from zero on both sides.
    let lo = if t.min <= 0 && t.max >= 0 { 1 } else { a.min(b) };
    (lo, a.max(b))
}

/// The record of the layout that holds `node` as one of its entries, by address.
fn holder<'l>(layout: &'l Layout, node: &Node) -> Option<&'l Record> {
    let holds = |r: &Record| r.entries.iter().any(|e| core::ptr::eq(&e.node, node));
    if let Some(root) = layout.root_record()
        && holds(root)
    {
        return Some(root);
    }
    for t in &layout.types {
        if holds(&t.record) {
            return Some(&t.record);
        }
    }
    None
}

struct Cx<'l> {
    layout: &'l Layout,
    /// The named record types being worked out, innermost last.
    visiting: RefCell<Vec<usize>>,
    /// The fixed size of each named record type worked out, `None` if it is not fixed.
    known: RefCell<BTreeMap<usize, Option<usize>>>,
}

impl<'l> Cx<'l> {
    fn new(layout: &'l Layout) -> Cx<'l> {
        Cx {
            layout,
            visiting: RefCell::new(Vec::new()),
            known: RefCell::new(BTreeMap::new()),
        }
    }
}

impl Cx<'_> {
    fn record(&self, record: &Record, at: &Place) -> Size {
        let mut size = record_header(record, at);
        for (i, e) in record.entries.iter().enumerate() {
            let s = self.entry(record, i, at);
            if e.optional {
                size.push(Term::Optional {
                    of: at.child(entry_step(i, e)),
                    size: Box::new(s),
                });
            } else {
                size.add(s);
            }
        }
        size
    }

    fn entry(&self, record: &Record, index: usize, at: &Place) -> Size {
        let e = &record.entries[index];
        let key = e.key.as_deref().map_or(0, metalayer_runtime::key_size);
        let place = at.child(entry_step(index, e));
        self.node(&e.node, &place, Some(&e.role), Some(record)).plus(key)
    }

    /// The size of `node` at `at`; `role` is its entry's, `record` the record it is an entry of
    /// (for the names and ranges of counts).
    fn node(&self, node: &Node, at: &Place, role: Option<&Role>, record: Option<&Record>) -> Size {
        if let Some(Role::Const(c)) = role
            && let Some(n) = const_size(node, c)
        {
            return Size::fixed(n);
        }
        let term = |t: Term| Size {
            fixed: 0,
            terms: vec![t],
        };
        let len = |fixed: usize| {
            let mut s = Size::fixed(fixed);
            s.push(Term::Linear {
                k: 1,
                of: Var::Len(at.clone()),
            });
            s
        };
        let canonical_bytes = |family: Family| {
            let mut s = term(Term::Smallest { family, of: at.clone() });
            s.push(Term::Linear {
                k: 1,
                of: Var::Len(at.clone()),
            });
            s
        };
        match &node.ty {
            Type::Nil | Type::Bool => Size::fixed(1),
            Type::Int(t) => match t.encoding {
                Encoding::Fixed(w) => Size::fixed(w.header_size()),
                Encoding::Canonical { .. } => match int_sizes(t) {
                    (lo, hi) if lo == hi => Size::fixed(lo),
                    _ => term(Term::Smallest {
                        family: Family::Int,
                        of: at.clone(),
                    }),
                },
            },
            Type::Float(w) => Size::fixed(w.header_size()),
            Type::Str(_) | Type::Bin(_) => match node.ty.bytes_layout() {
                // A fixed length: its header and its bytes are always the same size.
                Some((Encoding::Fixed(w), _, Some(n))) => Size::fixed(w.header_size() + n),
                Some((Encoding::Canonical { .. }, family, Some(n))) => {
                    Size::fixed(Wire::smallest_header_size(family, n as u64) + n)
                }
                Some((Encoding::Fixed(w), _, None)) => len(w.header_size()),
                Some((Encoding::Canonical { .. }, family, None)) => canonical_bytes(family),
                None => unreachable!("a str or bin node has a bytes layout"),
            },
            Type::Ext(t) => match t.encoding {
                Encoding::Fixed(w) => match w.fixext_len() {
                    Some(n) => Size::fixed(w.header_size() + n),
                    // A timestamp's ext8 form always holds 12 bytes.
                    None if t.timestamp => Size::fixed(w.header_size() + metalayer_runtime::Timestamp::data_len(w)),
                    None => len(w.header_size()),
                },
                Encoding::Canonical { .. } => canonical_bytes(Family::Ext),
            },
            Type::Array(a) => {
                let element = self.node(&a.element, &Place(vec![Step::Element]), None, None);
                self.sequence(Family::Array, a.header, &a.count, at, record, element, None)
            }
            Type::Map(m) => {
                let key = self.node(&m.key, &Place(vec![Step::Key]), None, None);
                let value = self.node(&m.value, &Place(vec![Step::Value]), None, None);
                self.sequence(Family::Map, m.header, &m.count, at, record, key, Some(value))
            }
            Type::Record(r) => self.record(r, at),
            Type::Ref(ty) => match self.type_constant(*ty) {
                Some(n) => Size::fixed(n),
                None => term(Term::Record {
                    of: at.clone(),
                    ty: *ty,
                }),
            },
        }
    }

    /// The size of named record type `ty` if it is fixed; each type is worked out once, and a
    /// type that contains itself (only in a hand-built layout: the checker refuses it) is not.
    fn type_constant(&self, ty: usize) -> Option<usize> {
        if let Some(known) = self.known.borrow().get(&ty) {
            return *known;
        }
        if self.visiting.borrow().contains(&ty) {
            return None;
        }
        let record = &self.layout.types.get(ty)?.record;
        self.visiting.borrow_mut().push(ty);
        let n = self.record(record, &Place::root()).as_constant();
        self.visiting.borrow_mut().pop();
        self.known.borrow_mut().insert(ty, n);
        n
    }

    /// An array's or a map's size: its header and its elements (`value` for a map's pairs).
    #[allow(clippy::too_many_arguments)]
    fn sequence(
        &self,
        family: Family,
        header: Encoding,
        count: &Count,
        at: &Place,
        record: Option<&Record>,
        element: Size,
        value: Option<Size>,
    ) -> Size {
        let count_entry = |c: usize| record.and_then(|r| r.entries.get(c));
        let mut size = sequence_header(family, header, count, at, record);
        let per = match (&value, element.as_constant()) {
            (None, Some(k)) => Some(k),
            (Some(v), Some(k)) => v.as_constant().map(|v| k.saturating_add(v)),
            _ => None,
        };
        match (count, per) {
            (Count::Fixed(n), Some(k)) => size.fixed = size.fixed.saturating_add(n.saturating_mul(k)),
            // An array nested in an entry, counted by an entry of the record: its size is
            // that of each element, as for a count from its header.
            (Count::Entry(c), Some(k)) if record.is_some() => {
                let name = count_entry(*c).map_or("count", |e| e.name.as_str());
                size.push(Term::Linear {
                    k,
                    of: Var::Count(at.sibling(*c, name)),
                });
            }
            _ => size.push(match value {
                None => Term::Each {
                    of: at.clone(),
                    element: Box::new(element),
                },
                Some(value) => Term::EachPair {
                    of: at.clone(),
                    key: Box::new(element),
                    value: Box::new(value),
                },
            }),
        }
        size
    }
}

/// The size of an array's or map's header (for a canonical header, [`Term::Smallest`] unless
/// every count the node allows takes the same header); `None` for other nodes. `record` is the
/// record the node is an entry of, whose count entry bounds the count.
///
/// ```
/// use metalayer_layout::size::{self, Place};
///
/// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
/// let root = layout.root_record().unwrap();
/// let shape = Place::entry(2, "shape");
/// assert_eq!(size::header(&root.entries[2].node, Some(root), &shape).unwrap().to_string(), "1");
/// assert!(size::header(&root.entries[1].node, Some(root), &shape).is_none());
/// ```
pub fn header(node: &Node, record: Option<&Record>, at: &Place) -> Option<Size> {
    match &node.ty {
        Type::Array(a) => Some(sequence_header(Family::Array, a.header, &a.count, at, record)),
        Type::Map(m) => Some(sequence_header(Family::Map, m.header, &m.count, at, record)),
        _ => None,
    }
}

fn sequence_header(family: Family, header: Encoding, count: &Count, at: &Place, record: Option<&Record>) -> Size {
    match header {
        Encoding::Fixed(w) => Size::fixed(w.header_size()),
        Encoding::Canonical { .. } => {
            let (lo, hi) = match count {
                Count::Fixed(n) => (*n as u64, *n as u64),
                Count::Entry(c) => match record.and_then(|r| r.entries.get(*c)).map(|e| &e.node.ty) {
                    Some(Type::Int(t)) => (
                        u64::try_from(t.min.max(0)).unwrap_or(u64::MAX),
                        u64::try_from(t.max.max(0)).unwrap_or(u64::MAX),
                    ),
                    _ => (0, u64::MAX),
                },
                Count::Header => (0, u64::MAX),
            };
            let (a, b) = (
                Wire::smallest_header_size(family, lo),
                Wire::smallest_header_size(family, hi),
            );
            if a == b {
                Size::fixed(a)
            } else {
                Size {
                    fixed: 0,
                    terms: vec![Term::Smallest { family, of: at.clone() }],
                }
            }
        }
    }
}

fn entry_step(index: usize, e: &Entry) -> Step {
    Step::Entry {
        index,
        name: e.name.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Text.

/// What the current element or pair of each enclosing `Each` / `EachPair` is called: `tags[i]`.
type Scope = Vec<String>;

fn index_name(depth: usize) -> String {
    match depth {
        0 => "i".into(),
        1 => "j".into(),
        d => format!("i{}", d + 1),
    }
}

fn place_text(place: &Place, scope: &[String]) -> String {
    let mut out = String::new();
    for (n, step) in place.0.iter().enumerate() {
        match step {
            Step::Entry { name, .. } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Step::Element if n == 0 => out.push_str(scope.last().map_or("[i]", |s| s.as_str())),
            Step::Key | Step::Value if n == 0 => {
                out.push_str(scope.last().map_or("", |s| s.as_str()));
                out.push_str(if *step == Step::Key { ".key" } else { ".value" });
            }
            Step::Element => out.push_str("[i]"),
            Step::Key => out.push_str(".key"),
            Step::Value => out.push_str(".value"),
        }
    }
    if out.is_empty() { "self".into() } else { out }
}

fn var_text(var: &Var, scope: &[String]) -> String {
    match var {
        Var::Count(p) => place_text(p, scope),
        Var::Len(p) => format!("len({})", place_text(p, scope)),
    }
}

fn times(k: usize, what: String) -> String {
    if k == 1 { what } else { format!("{k}*{what}") }
}

fn term_text(term: &Term, scope: &mut Scope) -> String {
    match term {
        Term::Linear { k, of } => times(*k, var_text(of, scope)),
        Term::Smallest { family, of } => match family {
            Family::Int => format!("int({})", place_text(of, scope)),
            _ => format!("hdr({})", place_text(of, scope)),
        },
        Term::Each { of, element } => {
            let of = place_text(of, scope);
            match element.as_constant() {
                Some(k) => times(k, format!("len({of})")),
                None => {
                    scope.push(format!("{of}[{}]", index_name(scope.len())));
                    let text = format!("Σ({})", size_text(element, scope));
                    scope.pop();
                    text
                }
            }
        }
        Term::EachPair { of, key, value } => {
            let of = place_text(of, scope);
            match (key.as_constant(), value.as_constant()) {
                (Some(a), Some(b)) => times(a.saturating_add(b), format!("len({of})")),
                _ => {
                    scope.push(format!("{of}[{}]", index_name(scope.len())));
                    let mut pair = (**key).clone();
                    pair.add((**value).clone());
                    let text = format!("Σ({})", size_text(&pair, scope));
                    scope.pop();
                    text
                }
            }
        }
        Term::Record { of, .. } => format!("size({})", place_text(of, scope)),
        Term::Optional { of, size } => {
            let inner = size_text(size, scope);
            let inner = if size.terms.is_empty() || (size.fixed == 0 && size.terms.len() == 1) {
                inner
            } else {
                format!("({inner})")
            };
            format!("[present({})]*{inner}", place_text(of, scope))
        }
    }
}

fn size_text(size: &Size, scope: &mut Scope) -> String {
    let mut parts = Vec::new();
    if size.fixed != 0 || size.terms.is_empty() {
        parts.push(size.fixed.to_string());
    }
    for t in &size.terms {
        parts.push(term_text(t, scope));
    }
    parts.join(" + ")
}

// ---------------------------------------------------------------------------------------------
// Evaluation.

/// The current element or pair of each enclosing `Each` / `EachPair`.
enum Current<'v> {
    Element(&'v Value),
    Pair(&'v Value, &'v Value),
}

/// The value at `place`: `Ok(None)` for an absent optional entry.
fn resolve<'v>(place: &Place, root: &'v Value, scope: &[Current<'v>]) -> Result<Option<&'v Value>, ()> {
    let mut at = root;
    for (n, step) in place.0.iter().enumerate() {
        at = match (step, n, scope.last()) {
            (Step::Element, 0, Some(Current::Element(v))) => v,
            (Step::Key, 0, Some(Current::Pair(k, _))) => k,
            (Step::Value, 0, Some(Current::Pair(_, v))) => v,
            (Step::Entry { index, .. }, _, _) => match at {
                Value::Record(entries) => match entries.get(*index) {
                    Some(Some(v)) => v,
                    _ => return Ok(None),
                },
                _ => return Err(()),
            },
            _ => return Err(()),
        };
    }
    Ok(Some(at))
}

fn resolve_some<'v>(place: &Place, root: &'v Value, scope: &[Current<'v>]) -> Option<&'v Value> {
    resolve(place, root, scope).ok().flatten()
}

/// The number a header states for a value: elements, pairs, present entries or bytes.
fn header_len(v: &Value) -> Option<usize> {
    Some(match v {
        Value::Bytes(n) => *n,
        Value::Array(items) => items.len(),
        Value::Map(pairs) => pairs.len(),
        Value::Record(entries) => entries.iter().filter(|e| e.is_some()).count(),
        Value::Int(_) | Value::Other => return None,
    })
}

fn eval_size<'v>(
    size: &Size,
    layout: &Layout,
    root: &'v Value,
    scope: &mut Vec<Current<'v>>,
    depth: usize,
) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut total = size.fixed;
    for t in &size.terms {
        let n = match t {
            Term::Linear { k, of } => {
                let v = resolve_some(of.place(), root, scope)?;
                let units = match (of, v) {
                    (Var::Count(_), Value::Int(n)) => usize::try_from(*n).ok()?,
                    (Var::Count(_), v) => header_len(v)?,
                    (Var::Len(_), Value::Bytes(n)) => *n,
                    _ => return None,
                };
                units.checked_mul(*k)?
            }
            Term::Smallest { family, of } => {
                let v = resolve_some(of, root, scope)?;
                match (family, v) {
                    (Family::Int, Value::Int(n)) => Wire::smallest_int_size(*n),
                    (Family::Int, _) => return None,
                    (f, v) => Wire::smallest_header_size(*f, header_len(v)? as u64),
                }
            }
            Term::Each { of, element } => {
                let Value::Array(items) = resolve_some(of, root, scope)? else {
                    return None;
                };
                let mut sum = 0usize;
                for item in items {
                    scope.push(Current::Element(item));
                    let n = eval_size(element, layout, root, scope, depth + 1);
                    scope.pop();
                    sum = sum.checked_add(n?)?;
                }
                sum
            }
            Term::EachPair { of, key, value } => {
                let Value::Map(pairs) = resolve_some(of, root, scope)? else {
                    return None;
                };
                let mut sum = 0usize;
                for (k, v) in pairs {
                    scope.push(Current::Pair(k, v));
                    let a = eval_size(key, layout, root, scope, depth + 1);
                    let b = eval_size(value, layout, root, scope, depth + 1);
                    scope.pop();
                    sum = sum.checked_add(a?)?.checked_add(b?)?;
                }
                sum
            }
            Term::Record { of, ty } => {
                let v = resolve_some(of, root, scope)?;
                let record = &layout.types.get(*ty)?.record;
                let own = of_record(layout, record, &Place::root());
                eval_size(&own, layout, v, &mut Vec::new(), depth + 1)?
            }
            Term::Optional { of, size } => match resolve(of, root, scope) {
                Ok(Some(_)) => eval_size(size, layout, root, scope, depth + 1)?,
                Ok(None) => 0,
                Err(()) => return None,
            },
        };
        total = total.checked_add(n)?;
    }
    Some(total)
}

//! Whether layouts can be told apart from a metalayer's bytes, and where: the one analysis that
//! `#[metalayer(dispatch)]`, the command's registry of layouts and the fixed prefix all read.
//!
//! Each layout is read as a sequence of steps: single bytes whose allowed values the schema fixes
//! (markers, constants, map keys, fixed-width integers), whole values whose bytes depend on the
//! value (a string, an array, a canonical integer), and a point past which the layout's shape
//! depends on an earlier value (optional trailing entries). Two layouts are walked side by side
//! ([`Layout::parting`]): they part at the first step where the bytes one accepts cannot start
//! what the other accepts, or where one ends and the other goes on. Steps that are the same value
//! type in both are passed over whole, so layouts that differ only after a string of any length
//! still part.
//!
//! When two layouts part, no input decodes with both (the decoders are strict and read the whole
//! input), so choosing among them by trying each is unambiguous. [`probes`] walks the layouts
//! stored under one name side by side in the same way and says, for each, what a dispatcher can
//! check of an input before decoding it: the bytes and whole values up to the points where the
//! layouts part, so that a refused input is reported by what each layout expected there. The
//! first of those steps alone, for one layout, is its [fixed prefix](Layout::fixed_prefix).

use core::fmt;

use crate::encoding;
use crate::model::{
    ArrayType, BinType, Const, Count, Encoding, Entry, Family, IntType, Layout, MapType, NESTING_LIMIT, Node, Record,
    Role, StrType, Type, Wire,
};

/// A set of byte values.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl ByteSet {
    const NONE: ByteSet = ByteSet([0; 4]);

    fn range(lo: u8, hi: u8) -> ByteSet {
        let mut set = ByteSet::NONE;
        set.add(lo, hi);
        set
    }

    fn one(b: u8) -> ByteSet {
        ByteSet::range(b, b)
    }

    fn add(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.0[usize::from(b >> 6)] |= 1 << (b & 63);
        }
    }

    fn with(mut self, lo: u8, hi: u8) -> ByteSet {
        self.add(lo, hi);
        self
    }

    fn meets(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    fn and(self, other: ByteSet) -> ByteSet {
        let mut out = self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a &= b;
        }
        out
    }

    fn has(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    /// The set as inclusive ranges of consecutive bytes, in order.
    fn ranges(&self) -> Vec<(u8, u8)> {
        let mut out: Vec<(u8, u8)> = Vec::new();
        for b in 0..=u8::MAX {
            if !self.has(b) {
                continue;
            }
            match out.last_mut() {
                Some((_, hi)) if usize::from(*hi) + 1 == usize::from(b) => *hi = b,
                _ => out.push((b, b)),
            }
        }
        out
    }
}

/// One step of a layout's bytes.
enum Token<'a> {
    /// One byte, with the values the layout allows there.
    Byte(ByteSet),
    /// A whole value whose bytes depend on it, with every byte it can start with (possibly more,
    /// never fewer).
    Value(&'a Node, &'a Role, ByteSet),
    /// A record's optional trailing entries, from this index: whether each is there depends on
    /// the record's header.
    Optional(&'a Record, usize),
    /// What follows depends on an earlier value: not followed.
    Opaque,
}

/// A step and the entry it belongs to (`shape`, `item.kind`; empty for the top-level value).
struct Step<'a> {
    token: Token<'a>,
    entry: String,
    /// When the step starts a whole scalar value (a constant, a fixed-width number), the number
    /// of steps its bytes take; 1 for a [`Token::Value`]; 0 inside a value or a record's header.
    unit: usize,
}

/// The role of a value that is not an entry of a record.
const VALUE: Role = Role::Field;

/// Where two layouts part: the first byte at which no input can continue with both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parting {
    /// The byte's offset, when every byte before it has a fixed length in both layouts.
    pub offset: Option<usize>,
    /// The entry of the first layout the byte belongs to (empty for the top-level value or the
    /// end of the input).
    pub entry: String,
    /// The entry of the second layout it belongs to.
    pub other_entry: String,
}

/// Why two layouts cannot be told apart from their bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The first layout's schema name.
    pub schema: String,
    /// The second layout's schema name.
    pub other_schema: String,
    /// The offset of the first byte where they would need to differ, when every byte before it
    /// has a fixed length in both.
    pub offset: Option<usize>,
    /// The first layout's entry at that byte (empty for the top-level value or the end).
    pub entry: String,
    /// The second layout's entry at that byte.
    pub other_entry: String,
    /// What makes them overlap there.
    pub reason: OverlapReason,
}

/// What makes two layouts overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlapReason {
    /// They accept the same bytes throughout.
    Same,
    /// Values of the two layouts can start with the same byte there.
    SameFirstByte,
    /// One layout's shape depends on an earlier value from there on (optional trailing entries,
    /// a record header that does not fix its count), which is not followed.
    Unfollowed,
}

impl fmt::Display for Overlap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` and `{}` cannot be told apart from their bytes: ",
            self.schema, self.other_schema
        )?;
        let at = match self.offset {
            Some(offset) => format!("byte {offset}"),
            None => "a byte after a value of variable length".to_string(),
        };
        let entries = match (self.entry.as_str(), self.other_entry.as_str()) {
            ("", "") => String::new(),
            (a, b) if a == b => format!(" (entry `{a}` of both)"),
            (a, b) => format!(
                " (entry `{}` of `{}`, `{}` of `{}`)",
                or_end(a),
                self.schema,
                or_end(b),
                self.other_schema
            ),
        };
        match self.reason {
            OverlapReason::Same => f.write_str("they accept the same bytes throughout"),
            OverlapReason::SameFirstByte => {
                write!(
                    f,
                    "they accept the same bytes up to {at}{entries}, where they would need to differ"
                )
            }
            OverlapReason::Unfollowed => write!(
                f,
                "they accept the same bytes up to {at}{entries}, where they would need to differ, but the shape that \
                 follows depends on an earlier value (optional entries or a count)"
            ),
        }
    }
}

impl std::error::Error for Overlap {}

fn or_end(entry: &str) -> &str {
    if entry.is_empty() { "(the end)" } else { entry }
}

impl Layout {
    /// Where this layout and `other` part: the first byte at which no input can be read by
    /// both. Layouts stored under one metalayer name must part, so that a metalayer's bytes say
    /// which of them it holds; trying each decoder in turn then finds at most one that reads it.
    ///
    /// ```
    /// use metalayer_layout::builtin;
    ///
    /// let v1 = builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let v0 = builtin("b2nd_v0").unwrap().layout().unwrap();
    /// // fixarray(7) against fixarray(6): the very first byte.
    /// assert_eq!(v1.parting(&v0).unwrap().offset, Some(0));
    ///
    /// // Two shapes of python-blosc2's `batcharray` part after a string of any length.
    /// let a = builtin("batcharray_v1").unwrap().layout().unwrap();
    /// let b = builtin("batcharray_empty_v1").unwrap().layout().unwrap();
    /// let parting = a.parting(&b).unwrap();
    /// assert_eq!((parting.offset, parting.entry.as_str()), (None, "items_per_block"));
    ///
    /// // A layout cannot be told apart from itself.
    /// let overlap = v1.parting(&v1).unwrap_err();
    /// assert!(overlap.to_string().contains("accept the same bytes"));
    /// ```
    pub fn parting(&self, other: &Layout) -> Result<Parting, Overlap> {
        let a = steps(self);
        let b = steps(other);
        let (mut i, mut j) = (0, 0);
        let mut offset = Some(0usize);
        // The first place where values of both started with the same byte without being the
        // same value type: where the layouts would need to differ, if they never part.
        let mut loose: Option<Place> = None;
        loop {
            let (x, y) = (a.get(i), b.get(j));
            let entry = |s: Option<&Step<'_>>| s.map_or(String::new(), |s| s.entry.clone());
            let here = Place {
                offset,
                entry: entry(x),
                other_entry: entry(y),
            };
            let (x, y) = match (x, y) {
                (None, None) => {
                    return Err(match loose {
                        Some(at) => self.overlap(other, at, OverlapReason::SameFirstByte),
                        None => self.overlap(other, here, OverlapReason::Same),
                    });
                }
                // The decoders read the whole input: one ends where the other goes on.
                (None, Some(_)) | (Some(_), None) => return Ok(here.parted()),
                (Some(x), Some(y)) => (x, y),
            };
            match pair(self, x, other, y) {
                Pair::Parted => return Ok(here.parted()),
                Pair::Overlap(reason) => return Err(self.overlap(other, here, reason)),
                Pair::SameByte => offset = offset.map(|o| o + 1),
                Pair::SameValue => offset = None,
                Pair::SameFirstByte => {
                    // Both start a whole msgpack value, whose bytes alone say where it ends: an
                    // input read by both is at the same place in both after it.
                    loose.get_or_insert(here);
                    offset = None;
                    i += x.unit;
                    j += y.unit;
                    continue;
                }
            }
            i += 1;
            j += 1;
        }
    }

    /// The overlap of this layout and `other` at `at`.
    fn overlap(&self, other: &Layout, at: Place, reason: OverlapReason) -> Overlap {
        Overlap {
            schema: self.schema.clone(),
            other_schema: other.schema.clone(),
            offset: at.offset,
            entry: at.entry,
            other_entry: at.other_entry,
            reason,
        }
    }
}

/// A byte of the input as two layouts walked side by side stand at it.
struct Place {
    offset: Option<usize>,
    entry: String,
    other_entry: String,
}

impl Place {
    /// The layouts part here.
    fn parted(self) -> Parting {
        Parting {
            offset: self.offset,
            entry: self.entry,
            other_entry: self.other_entry,
        }
    }
}

/// What a step of each of two layouts, at the same byte of the input, says of them.
enum Pair {
    /// No input can go on with both.
    Parted,
    /// They cannot be told apart from here.
    Overlap(OverlapReason),
    /// The same byte in both, or a byte both accept: the next step of each is at the next byte.
    SameByte,
    /// The same value type in both: both are at the same place after it, at no fixed offset.
    SameValue,
    /// Whole values of different types that can start with the same byte: the layouts go on
    /// after them, but would need to differ here if they never part later.
    SameFirstByte,
}

/// Compares step `x` of layout `la` with step `y` of layout `lb`.
fn pair(la: &Layout, x: &Step<'_>, lb: &Layout, y: &Step<'_>) -> Pair {
    match (&x.token, &y.token) {
        // A whole value of each, which no byte can start in both.
        (Token::Value(.., p), Token::Value(.., q)) if !p.meets(q) => Pair::Parted,
        // The same optional entries after the same required ones: whichever of them an input
        // holds, both read it the same way up to the record's end.
        (Token::Optional(r, i), Token::Optional(q, k))
            if r.entries.len() - i == q.entries.len() - k
                && r.entries[*i..]
                    .iter()
                    .zip(&q.entries[*k..])
                    .all(|(e, f)| same_entry(la, e, lb, f, 0)) =>
        {
            Pair::SameValue
        }
        (Token::Opaque | Token::Optional(..), _) | (_, Token::Opaque | Token::Optional(..)) => {
            Pair::Overlap(OverlapReason::Unfollowed)
        }
        (Token::Byte(p), Token::Byte(q)) if !p.meets(q) => Pair::Parted,
        (Token::Byte(_), Token::Byte(_)) => Pair::SameByte,
        (Token::Value(n, r, _), Token::Value(m, s, _)) if r == s && same(la, n, lb, m, 0) => Pair::SameValue,
        (p, q) if !first_bytes_of(p).meets(&first_bytes_of(q)) => Pair::Parted,
        _ if x.unit == 0 || y.unit == 0 => Pair::Overlap(OverlapReason::SameFirstByte),
        _ => Pair::SameFirstByte,
    }
}

impl Layout {
    /// The bytes the layout accepts at each offset of its fixed prefix, as inclusive ranges: from
    /// the first byte up to the first byte whose meaning depends on a value, which is included
    /// when its possible values form one range (an array's header counted by an earlier entry,
    /// a small canonical integer). A value that can start with bytes of several ranges (a
    /// canonical string: a fixstr, str8, str16 or str32 marker) or whose shape depends on an
    /// earlier value (optional entries) ends the prefix before it. Tools show it; dispatch
    /// checks [`probes`], which reach past it to where the layouts stored under one name part.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// // container 0x97, version 0, ndim 0..=16, shape header 0x90 + ndim (0xa0 for 16)
    /// assert_eq!(layout.fixed_prefix(), [(0x97, 0x97), (0, 0), (0, 16), (0x90, 0xa0)]);
    /// ```
    pub fn fixed_prefix(&self) -> Vec<(u8, u8)> {
        let mut prefix = Vec::new();
        for step in steps(self) {
            let (set, last) = match step.token {
                Token::Byte(set) => (set, false),
                Token::Value(.., set) => (set, true),
                Token::Optional(..) | Token::Opaque => break,
            };
            match set.ranges()[..] {
                [range] => prefix.push(range),
                _ => break,
            }
            if last {
                break;
            }
        }
        prefix
    }
}

// ---------------------------------------------------------------------------------------------
// What dispatch checks
// ---------------------------------------------------------------------------------------------

/// One step of what a dispatcher checks of an input for one layout ([`probes`]). Byte sets are
/// inclusive ranges of consecutive bytes, in order; `entry` is the entry the step belongs to
/// (`shape`, `item.kind`; empty for the top-level value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// One byte, in one of these ranges.
    Byte {
        /// The bytes accepted.
        bytes: Vec<(u8, u8)>,
        /// The entry.
        entry: String,
    },
    /// One whole msgpack value, whose first byte is in one of these ranges: any value the
    /// layout accepts there, passed over by its msgpack header.
    Value {
        /// The first bytes accepted.
        first: Vec<(u8, u8)>,
        /// The entry.
        entry: String,
    },
    /// The end of the input: the layout ends here, where another goes on.
    End,
}

impl Probe {
    /// The bytes the step accepts at its byte (none for the end).
    ///
    /// ```
    /// use metalayer_layout::Probe;
    ///
    /// let step = Probe::Byte { bytes: vec![(0x90, 0x98)], entry: "shape".into() };
    /// assert_eq!(step.bytes(), [(0x90, 0x98)]);
    /// assert!(Probe::End.bytes().is_empty());
    /// ```
    pub fn bytes(&self) -> &[(u8, u8)] {
        match self {
            Probe::Byte { bytes, .. } => bytes,
            Probe::Value { first, .. } => first,
            Probe::End => &[],
        }
    }

    /// The entry the step belongs to (empty for the top-level value and the end).
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("caterva_v0").unwrap().layout().unwrap();
    /// let steps = metalayer_layout::probes(&[&layout]);
    /// let entries: Vec<&str> = steps[0].iter().map(|s| s.entry()).collect();
    /// assert_eq!(entries, ["", "version", "ndim", "shape"]);
    /// ```
    pub fn entry(&self) -> &str {
        match self {
            Probe::Byte { entry, .. } | Probe::Value { entry, .. } => entry,
            Probe::End => "",
        }
    }
}

/// What a dispatcher checks of an input for each of `layouts`, the layouts stored under one
/// metalayer name, in their order: for each layout, steps that every input it decodes passes,
/// walked side by side so that step `i` of every layout stands at the same byte of the input.
/// Each layout's steps reach past its [fixed prefix](Layout::fixed_prefix) to where it parts
/// from every other layout ([`Layout::parting`]), where the walk can follow it there: an input
/// refused by them is refused by the layout's decoder, and, past the point where two layouts
/// part, no input passes the steps of both. A layout whose shape depends on an earlier value
/// (optional entries) before that point stops there; trying the decoders of the layouts whose
/// steps an input passes then tells them apart.
///
/// The last step of a layout is never a [`Probe::Value`]: its first byte is all a dispatcher
/// needs of it.
///
/// ```
/// use metalayer_layout::{Probe, builtin, probes};
///
/// let (a, b) = (builtin("batcharray_v1").unwrap().layout().unwrap(), builtin("batcharray_empty_v1").unwrap().layout().unwrap());
/// let steps = probes(&[&a, &b]);
/// // fixmap(4), the key "version" (a7 + 7 bytes), 1, the key "serializer" (aa + 10 bytes),
/// // then any string, the key "items_per_block" (af + 15 bytes), and the value that parts them.
/// assert_eq!(steps[0].len(), 1 + 8 + 1 + 11 + 1 + 16 + 1);
/// assert!(matches!(&steps[0][21], Probe::Value { entry, .. } if entry == "serializer"));
/// // items_per_block: an integer of at least 1 (a positive fixint or a uint marker) against nil.
/// assert_eq!(steps[0][38].bytes(), [(0x01, 0x7f), (0xcc, 0xcf)]);
/// assert_eq!(steps[1][38], Probe::Byte { bytes: vec![(0xc0, 0xc0)], entry: "items_per_block".into() });
/// ```
pub fn probes(layouts: &[&Layout]) -> Vec<Vec<Probe>> {
    let mut walk = Walk::new(layouts);
    loop {
        walk.stop_unfollowed();
        walk.stop_parted();
        let mut walking = Vec::new();
        for k in 0..layouts.len() {
            if walk.live[k] {
                walking.push(k);
            }
        }
        if walking.is_empty() {
            break;
        }
        let sets = walk.step(&walking);
        walk.mark_parted(&walking, &sets);
    }
    let mut out = walk.out;
    // A value that ends a layout's steps is checked by its first byte alone.
    for probe in &mut out {
        if let Some(last) = probe.last_mut()
            && let Probe::Value { first, entry } = last
        {
            *last = Probe::Byte {
                bytes: core::mem::take(first),
                entry: core::mem::take(entry),
            };
        }
    }
    out
}

/// The layouts stored under one name, walked side by side for [`probes`].
struct Walk<'a> {
    layouts: &'a [&'a Layout],
    steps: Vec<Vec<Step<'a>>>,
    /// Where each layout's fixed prefix ends: after its first value whose bytes depend on it.
    fixed: Vec<usize>,
    /// Each layout's next step.
    pos: Vec<usize>,
    /// Whether each layout is still followed.
    live: Vec<bool>,
    /// Whether two layouts have parted.
    parted: Vec<Vec<bool>>,
    /// Each layout's probe so far.
    out: Vec<Vec<Probe>>,
}

impl<'a> Walk<'a> {
    fn new(layouts: &'a [&'a Layout]) -> Self {
        let (mut all, mut fixed) = (Vec::with_capacity(layouts.len()), Vec::with_capacity(layouts.len()));
        for l in layouts {
            let s = steps(l);
            fixed.push(match s.iter().position(|s| !matches!(s.token, Token::Byte(_))) {
                Some(i) if matches!(s[i].token, Token::Value(..)) => i + 1,
                Some(i) => i,
                None => s.len(),
            });
            all.push(s);
        }
        let steps = all;
        let n = layouts.len();
        Walk {
            layouts,
            steps,
            fixed,
            pos: vec![0; n],
            live: vec![true; n],
            parted: vec![vec![false; n]; n],
            out: vec![Vec::new(); n],
        }
    }

    /// A layout whose shape depends on an earlier value from here is not followed further.
    fn stop_unfollowed(&mut self) {
        for k in 0..self.layouts.len() {
            if self.live[k]
                && matches!(
                    self.steps[k].get(self.pos[k]).map(|s| &s.token),
                    Some(Token::Optional(..) | Token::Opaque)
                )
            {
                self.live[k] = false;
            }
        }
    }

    /// A layout goes on through its fixed prefix, and while it has not parted from another that
    /// goes on.
    fn stop_parted(&mut self) {
        let n = self.layouts.len();
        let mut needed = Vec::with_capacity(n);
        for k in 0..n {
            let parted_from_all = (0..n).all(|j| j == k || !self.live[j] || self.parted[k][j]);
            needed.push(self.live[k] && (self.pos[k] < self.fixed[k] || !parted_from_all));
        }
        self.live = needed;
    }

    /// Takes one step of each layout in `walking`, and returns the bytes each step accepts
    /// first (`None` where the layout has ended).
    fn step(&mut self, walking: &[usize]) -> Vec<Option<ByteSet>> {
        // Whether every layout that has not ended stands at a whole value, and whether one of
        // them stands at a value whose bytes depend on it: then each passes over one value.
        let mut tokens: Vec<Option<&Step<'_>>> = Vec::with_capacity(walking.len());
        for &k in walking {
            tokens.push(self.steps[k].get(self.pos[k]));
        }
        let any_value = tokens.iter().flatten().any(|s| matches!(s.token, Token::Value(..)));
        let whole = tokens.iter().flatten().all(|s| s.unit > 0);
        let mut sets: Vec<Option<ByteSet>> = Vec::with_capacity(walking.len());
        for (&k, step) in walking.iter().zip(&tokens) {
            let Some(step) = step else {
                self.out[k].push(Probe::End);
                self.live[k] = false;
                sets.push(None);
                continue;
            };
            let set = first_bytes_of(&step.token);
            sets.push(Some(set));
            let entry = step.entry.clone();
            let skippable = match step.token {
                Token::Value(node, ..) => follows(self.layouts[k], node, 0),
                _ => true,
            };
            let bytes = set.ranges();
            if !any_value {
                self.out[k].push(Probe::Byte { bytes, entry });
                self.pos[k] += 1;
            } else if whole && skippable {
                self.out[k].push(Probe::Value { first: bytes, entry });
                self.pos[k] += step.unit;
            } else {
                // The bytes of this value are not followed: its first byte is the last step.
                self.out[k].push(Probe::Byte { bytes, entry });
                self.live[k] = false;
            }
        }
        if any_value && !whole {
            // The layouts no longer stand at the same byte after this one.
            self.live.iter_mut().for_each(|l| *l = false);
        }
        sets
    }

    /// Records the layouts of `walking` whose steps, accepting `sets`, no byte passes in both.
    fn mark_parted(&mut self, walking: &[usize], sets: &[Option<ByteSet>]) {
        for (x, &a) in walking.iter().enumerate() {
            for (y, &b) in walking.iter().enumerate().skip(x + 1) {
                let apart = match (sets[x], sets[y]) {
                    (Some(p), Some(q)) => !p.meets(&q),
                    (None, None) => false,
                    _ => true,
                };
                if apart {
                    self.parted[a][b] = true;
                    self.parted[b][a] = true;
                }
            }
        }
    }
}

/// Whether a value of `node` is read as standard msgpack throughout, so that its header says
/// where it ends: not where the schema lets a fixarray header pass `0x9f`.
fn follows(layout: &Layout, node: &Node, depth: usize) -> bool {
    if depth > NESTING_LIMIT {
        return false;
    }
    let record = |r: &Record| r.entries.iter().all(|e| follows(layout, &e.node, depth + 1));
    match &node.ty {
        Type::Array(a) => a.header_overflow.is_none() && follows(layout, &a.element, depth + 1),
        Type::Map(m) => follows(layout, &m.key, depth + 1) && follows(layout, &m.value, depth + 1),
        Type::Record(r) => record(r),
        Type::Ref(i) => layout.types.get(*i).is_some_and(|t| record(&t.record)),
        _ => true,
    }
}

fn first_bytes_of(token: &Token<'_>) -> ByteSet {
    match token {
        Token::Byte(set) | Token::Value(.., set) => *set,
        // Handled before.
        Token::Optional(..) | Token::Opaque => ByteSet::range(0, 0xff),
    }
}

// ---------------------------------------------------------------------------------------------
// A layout as steps
// ---------------------------------------------------------------------------------------------

fn steps(layout: &Layout) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    node_steps(layout, &layout.root, &VALUE, "", &mut out, 0);
    out
}

fn push<'a>(out: &mut Vec<Step<'a>>, entry: &str, token: Token<'a>) {
    let unit = usize::from(matches!(token, Token::Value(..)));
    out.push(Step {
        token,
        entry: entry.to_string(),
        unit,
    });
}

fn exact(out: &mut Vec<Step<'_>>, entry: &str, bytes: &[u8]) {
    for &b in bytes {
        push(out, entry, Token::Byte(ByteSet::one(b)));
    }
}

fn node_steps<'a>(
    layout: &'a Layout,
    node: &'a Node,
    role: &'a Role,
    entry: &str,
    out: &mut Vec<Step<'a>>,
    depth: usize,
) {
    let constant = match role {
        Role::Const(c) => Some(c),
        _ => None,
    };
    let start = out.len();
    let scalar = !matches!(node.ty, Type::Record(_) | Type::Ref(_));
    scalar_steps(layout, node, role, constant, entry, out, depth);
    // The bytes of one scalar value: a whole value of the other layout may stand against them.
    if scalar && out.len() > start {
        out[start].unit = out.len() - start;
    }
}

fn scalar_steps<'a>(
    layout: &'a Layout,
    node: &'a Node,
    role: &'a Role,
    constant: Option<&'a Const>,
    entry: &str,
    out: &mut Vec<Step<'a>>,
    depth: usize,
) {
    let lenient = matches!(
        &node.ty,
        Type::Int(IntType {
            encoding: Encoding::Canonical { lenient: true },
            ..
        }) | Type::Str(StrType {
            encoding: Encoding::Canonical { lenient: true },
            ..
        }) | Type::Bin(BinType {
            encoding: Encoding::Canonical { lenient: true },
            ..
        })
    );
    let any_byte = || Token::Byte(ByteSet::range(0, 0xff));
    match (&node.ty, constant) {
        // A constant has one encoding, unless the decoder accepts any width.
        (Type::Nil | Type::Bool | Type::Int(_) | Type::Float(_) | Type::Str(_) | Type::Bin(_), Some(c)) if !lenient => {
            exact(out, entry, &encoding::const_bytes(node, c));
        }
        (Type::Str(_) | Type::Bin(_), None) if !lenient && fixed_header(node).is_some() => {
            let (header, len) = fixed_header(node).unwrap_or_default();
            exact(out, entry, &header);
            for _ in 0..len {
                push(out, entry, any_byte());
            }
        }
        (Type::Nil, _) => exact(out, entry, &[Wire::Nil.markers().0]),
        (Type::Bool, _) => {
            let (lo, hi) = Wire::Bool.markers();
            push(out, entry, Token::Byte(ByteSet::range(lo, hi)));
        }
        (Type::Int(t), None) => match t.encoding {
            // A fixint: the value is the byte.
            Encoding::Fixed(w) if w.marker().is_none() => {
                push(out, entry, Token::Byte(ByteSet::range(t.min as u8, t.max as u8)));
            }
            Encoding::Fixed(w) => {
                exact(out, entry, &[w.marker().unwrap_or(0)]);
                for _ in 0..w.width() {
                    push(out, entry, any_byte());
                }
            }
            Encoding::Canonical { .. } => {
                push(
                    out,
                    entry,
                    Token::Value(node, role, first_bytes(layout, node, role, depth)),
                );
            }
        },
        (Type::Float(w), _) => {
            exact(out, entry, &[w.marker().unwrap_or(0)]);
            for _ in 0..w.width() {
                push(out, entry, any_byte());
            }
        }
        (Type::Record(r), _) => record_steps(layout, r, entry, out, depth),
        (Type::Ref(i), _) => match layout.types.get(*i) {
            Some(t) if depth < NESTING_LIMIT => record_steps(layout, &t.record, entry, out, depth + 1),
            _ => push(out, entry, Token::Opaque),
        },
        _ => push(
            out,
            entry,
            Token::Value(node, role, first_bytes(layout, node, role, depth)),
        ),
    }
}

/// The longest fixed length (`len`) whose bytes the walks follow one by one; a longer string
/// is passed over as a whole value.
const FOLLOWED_LEN: usize = 64;

/// The header of a string or byte string of fixed length (`len`), which is then known, and the
/// length, when the walks follow its bytes.
fn fixed_header(node: &Node) -> Option<(Vec<u8>, usize)> {
    let (encoding, family, Some(len)) = node.ty.bytes_layout()? else {
        return None;
    };
    let wire = match encoding {
        Encoding::Fixed(w) => w,
        Encoding::Canonical { .. } => Wire::smallest_len(family, len as u64)?,
    };
    (len <= FOLLOWED_LEN).then(|| (encoding::header_bytes(wire, len), len))
}

fn record_steps<'a>(layout: &'a Layout, r: &'a Record, path: &str, out: &mut Vec<Step<'a>>, depth: usize) {
    let (lo, hi) = (r.required as u64, r.entries.len() as u64);
    let wire = match r.header {
        Encoding::Fixed(w) => Some(w),
        // The smallest header for every count the record can have, when it is one wire type.
        Encoding::Canonical { lenient: false } => {
            Wire::smallest_len(r.form, lo).filter(|&w| Wire::smallest_len(r.form, hi) == Some(w))
        }
        Encoding::Canonical { lenient: true } => None,
    };
    match wire {
        Some(w) if lo == hi => exact(out, path, &encoding::header_bytes(w, lo as usize)),
        // A fix header: the count is in the marker, one of required..=all.
        Some(w) if w.marker().is_none() => {
            let base = w.markers().0;
            push(
                out,
                path,
                Token::Byte(ByteSet::range(base.wrapping_add(lo as u8), base.wrapping_add(hi as u8))),
            );
        }
        Some(w) => {
            exact(out, path, &[w.marker().unwrap_or(0)]);
            for _ in 0..w.width() {
                push(out, path, Token::Byte(ByteSet::range(0, 0xff)));
            }
        }
        None => {
            push(out, path, Token::Opaque);
            return;
        }
    }
    for (index, e) in r.entries.iter().enumerate() {
        let entry = if path.is_empty() {
            e.name.clone()
        } else {
            format!("{path}.{}", e.name)
        };
        if index >= r.required {
            // Whether the entry is there depends on the header's count.
            push(out, &entry, Token::Optional(r, index));
            return;
        }
        if let Some(key) = &e.key {
            exact(out, &entry, &encoding::key_bytes(key));
        }
        let start = out.len();
        node_steps(layout, &e.node, &e.role, &entry, out, depth);
        // A container counted by an earlier entry: its header is one of that entry's values.
        if let (
            Some(counted),
            Some(Step {
                token: Token::Value(.., set),
                ..
            }),
        ) = (counted_first_bytes(r, &e.node), out.get_mut(start))
        {
            *set = set.and(counted);
        }
    }
}

/// The first bytes of a fix header whose count is an earlier entry's value: `0x90 + n` (or
/// `0x80 + n`) for each value `n` the entry allows, and `0xa0` for 16 where the schema lets a
/// fixarray header pass `0x9f`.
fn counted_first_bytes(r: &Record, node: &Node) -> Option<ByteSet> {
    let (header, count, overflow) = match &node.ty {
        Type::Array(a) => (a.header, &a.count, a.header_overflow.is_some()),
        Type::Map(m) => (m.header, &m.count, false),
        _ => return None,
    };
    let (Encoding::Fixed(w), Count::Entry(i)) = (header, count) else {
        return None;
    };
    if w.marker().is_some() {
        return None;
    }
    let Type::Int(t) = &r.entries.get(*i)?.node.ty else {
        return None;
    };
    let (base, top) = w.markers();
    let most = i128::from(top - base);
    let (lo, hi) = (t.min.max(0), t.max.min(most));
    let mut set = ByteSet::NONE;
    if lo <= hi {
        set.add(base + lo as u8, base + hi as u8);
    }
    if overflow && t.max > most {
        set.add(top.wrapping_add(1), top.wrapping_add(1));
    }
    Some(set)
}

// ---------------------------------------------------------------------------------------------
// The bytes a value can start with
// ---------------------------------------------------------------------------------------------

/// Every byte a value of `node` can start with (possibly more, never fewer).
fn first_bytes(layout: &Layout, node: &Node, role: &Role, depth: usize) -> ByteSet {
    let constant = match role {
        Role::Const(c) => Some(c),
        _ => None,
    };
    // Constants reach here only where the decoder accepts any width of their family (the
    // others are their bytes): only an integer's value narrows its first byte then.
    match &node.ty {
        Type::Nil => ByteSet::one(Wire::Nil.markers().0),
        Type::Bool => {
            let (lo, hi) = Wire::Bool.markers();
            ByteSet::range(lo, hi)
        }
        Type::Int(t) => {
            let (min, max) = match constant {
                Some(Const::Int(v)) => (*v, *v),
                _ => (t.min, t.max),
            };
            int_first_bytes(t.encoding, min, max)
        }
        Type::Float(w) => ByteSet::one(w.marker().unwrap_or(0)),
        Type::Str(t) => family_first_bytes(t.encoding, Family::Str),
        Type::Bin(b) => family_first_bytes(b.encoding, Family::Bin),
        Type::Ext(t) => family_first_bytes(t.encoding, Family::Ext),
        Type::Array(ArrayType {
            header,
            count,
            header_overflow,
            ..
        }) => {
            let set = container_first_bytes(*header, Family::Array, count);
            // c-blosc2 writes `0x90 + 16` = 0xa0 for 16 elements.
            if header_overflow.is_some() {
                let past = Wire::FixArray.markers().1.wrapping_add(1);
                set.with(past, past)
            } else {
                set
            }
        }
        Type::Map(MapType { header, count, .. }) => container_first_bytes(*header, Family::Map, count),
        Type::Record(r) => record_first_bytes(r),
        Type::Ref(i) => match layout.types.get(*i) {
            Some(t) if depth < NESTING_LIMIT => record_first_bytes(&t.record),
            _ => ByteSet::range(0, 0xff),
        },
    }
}

/// The integers `w` is the smallest encoding of, as the runtime's `Wire::smallest_int` chooses:
/// an interval, whose ends are ends of the integer wire types' own ranges, or next to one.
fn canonical_range(w: Wire) -> Option<(i128, i128)> {
    let mut range: Option<(i128, i128)> = None;
    for x in Family::Int.wires() {
        let Some((lo, hi)) = x.int_range() else { continue };
        for v in [lo - 1, lo, hi, hi + 1] {
            if Wire::smallest_int(v) != Some(w) {
                continue;
            }
            range = Some(match range {
                None => (v, v),
                Some((lo, hi)) => (v.min(lo), v.max(hi)),
            });
        }
    }
    range
}

fn int_first_bytes(encoding: Encoding, min: i128, max: i128) -> ByteSet {
    let mut set = ByteSet::NONE;
    let wires: &[Wire] = match encoding {
        Encoding::Fixed(w) => &[w][..],
        Encoding::Canonical { .. } => Family::Int.wires(),
    };
    for &w in wires {
        let range = match encoding {
            Encoding::Canonical { lenient: false } => canonical_range(w),
            _ => w.int_range(),
        };
        let Some((lo, hi)) = range else { continue };
        let (lo, hi) = (lo.max(min), hi.min(max));
        if lo > hi {
            continue;
        }
        match w.marker() {
            Some(m) => set.add(m, m),
            // A fixint's byte is its value.
            None => set.add(lo as u8, hi as u8),
        }
    }
    set
}

fn family_first_bytes(encoding: Encoding, family: Family) -> ByteSet {
    let wires: &[Wire] = match encoding {
        Encoding::Fixed(w) => &[w][..],
        Encoding::Canonical { .. } => family.wires(),
    };
    wires.iter().fold(ByteSet::NONE, |set, w| {
        let (lo, hi) = w.markers();
        set.with(lo, hi)
    })
}

fn container_first_bytes(header: Encoding, family: Family, count: &Count) -> ByteSet {
    match (header, count) {
        (Encoding::Fixed(w), Count::Fixed(n)) if w.marker().is_none() => {
            ByteSet::one(w.markers().0.wrapping_add(*n as u8))
        }
        _ => family_first_bytes(header, family),
    }
}

fn record_first_bytes(r: &Record) -> ByteSet {
    match r.header {
        Encoding::Fixed(w) if w.marker().is_none() => {
            let base = w.markers().0;
            ByteSet::range(
                base.wrapping_add(r.required as u8),
                base.wrapping_add(r.entries.len() as u8),
            )
        }
        header => family_first_bytes(header, r.form),
    }
}

// ---------------------------------------------------------------------------------------------
// The same value type in two layouts
// ---------------------------------------------------------------------------------------------

/// Whether two nodes accept the same bytes, read the same way (names, spans and documentation
/// aside).
fn same(la: &Layout, a: &Node, lb: &Layout, b: &Node, depth: usize) -> bool {
    if depth > NESTING_LIMIT {
        return false;
    }
    let record = |l: &'_ Layout, n: &'_ Node| -> Option<Record> {
        match &n.ty {
            Type::Record(r) => Some(r.clone()),
            Type::Ref(i) => l.types.get(*i).map(|t| t.record.clone()),
            _ => None,
        }
    };
    match (&a.ty, &b.ty) {
        (Type::Nil, Type::Nil) | (Type::Bool, Type::Bool) => true,
        (Type::Int(x), Type::Int(y)) => {
            let values = |t: &crate::model::IntType| {
                let mut v = Vec::with_capacity(t.values.len());
                for (_, value) in &t.values {
                    v.push(*value);
                }
                crate::order::sort_by_key(&mut v, &|&v| v);
                v
            };
            x.encoding == y.encoding && x.min == y.min && x.max == y.max && values(x) == values(y)
        }
        (Type::Float(x), Type::Float(y)) => x == y,
        (Type::Str(x), Type::Str(y)) => x == y,
        (Type::Bin(x), Type::Bin(y)) => x == y,
        (Type::Ext(x), Type::Ext(y)) => x == y,
        (Type::Array(x), Type::Array(y)) => {
            x.header == y.header
                && x.count == y.count
                && x.header_overflow.is_some() == y.header_overflow.is_some()
                && same(la, &x.element, lb, &y.element, depth + 1)
        }
        (Type::Map(x), Type::Map(y)) => {
            x.header == y.header
                && x.count == y.count
                && same(la, &x.key, lb, &y.key, depth + 1)
                && same(la, &x.value, lb, &y.value, depth + 1)
        }
        (Type::Record(_) | Type::Ref(_), Type::Record(_) | Type::Ref(_)) => match (record(la, a), record(lb, b)) {
            (Some(x), Some(y)) => {
                x.form == y.form
                    && x.header == y.header
                    && x.required == y.required
                    && x.entries.len() == y.entries.len()
                    && x.entries
                        .iter()
                        .zip(&y.entries)
                        .all(|(p, q)| same_entry(la, p, lb, q, depth + 1))
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether two record entries are stored and read the same way.
fn same_entry(la: &Layout, a: &Entry, lb: &Layout, b: &Entry, depth: usize) -> bool {
    a.key == b.key && a.role == b.role && a.optional == b.optional && same(la, &a.node, lb, &b.node, depth)
}

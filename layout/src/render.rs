//! Documentation rendered from a [`Layout`]: the byte-layout diagram in the style of the original
//! caterva / b2nd format documents, and the exact encoded length and offsets as formulas in the
//! array counts and string lengths.
//!
//! # What an offset points at
//!
//! Offsets count bytes from the start of the metalayer's content (the container byte is at 0).
//!
//! - [`offset_formula`] points at an entry's **first byte**: the fixint byte itself, an integer's
//!   or a string's marker (`0xd3`, `0xdb`, ...), or an array's header byte (`0x90 + count`).
//! - [`value_offset_formula`] points at the first byte of the entry's **value**: the same byte for
//!   a fixint, the big-endian payload after the marker for other integers, the text after the
//!   length prefix for a string, and element 0's first byte for an array.
//! - [`ElementOffsets::element`] points at array element `i`'s first byte, its marker (`0xd3`
//!   for an int64 element); [`ElementOffsets::payload`] at its big-endian payload. For b2nd_v1 the
//!   shape header is at 3, `shape[i]`'s marker at `4 + 9*i` and its int64 payload at `5 + 9*i`.
//!   For a fixint element both are the same byte.
//!
//! # How the diagram is laid out
//!
//! The top row holds the container byte and every entry up to the last array: one 1-byte cell per
//! fixint, marker cell and payload cell per other integer, header cell `9X` and a `~~~` span per
//! array, marker cell and `~~~` span per string. Cells of a known offset are headed `-N-`. The
//! entries after the last array are drawn as one final section when they hold a string (as the
//! seeds draw `dtype`, and seed 002 `dtype_format` with it), and in the top row otherwise; in a
//! layout without arrays the final section starts at the first string. Then each array gets a
//! block of its elements and each string before the last array a block of its marker, length and
//! text. Fixint cells carry a name of up to two letters, else `v` for a constant (its first
//! letter, the seeds' version), the first two letters of a count (`nd` for `ndim`, also the `X`
//! of `fixarray with X=nd elements`) and `XX` for a value (seed 002's `dtype_format`); other
//! cells carry the entry's name. Element cells are `first_dim`, `second_dim`, `nth_dim` when the
//! count is named `n` + a word (`ndim`), else `first_elem` and so on.
//!
//! # Differences from the seed documents
//!
//! The seeds are the format documents of caterva (`CATERVA_METALAYER.rst`, seeds 000 and 004, and
//! the older `README.md` text, seed 003) and c-blosc2 (`README_B2ND_METALAYER.rst`: the 6-entry
//! draft, seed 001, and the released 7-entry format, seed 002). [`diagram`] reproduces their
//! top rows, element blocks and dtype blocks line for line, except:
//!
//! 1. The version and ndim annotations state the ranges the model allows instead of the seeds'
//!    "(up to 127)": version is always 0, ndim is `0..=8` (caterva_v0, b2nd_v0) or `0..=16`
//!    (b2nd_v1). They say "positive fixint" (msgpack's name, also used by seed 002's dtype part)
//!    instead of "positive fixnum", and name the entry:
//!    `positive fixint for the number of dimensions (ndim, 0..=16)`.
//! 2. For b2nd_v1 the array-header annotations add that ndim = 16 gives the header byte `0xa0`,
//!    which is not a fixarray (c-blosc2's `0x90 + ndim`).
//! 3. Seed 002's dtype_format annotation, "positive fixint (7-bit integer). dtype_format; 0 means
//!    NumPy format.", becomes `positive fixint for the dtype format; 0 means NumPy (dtype_format,
//!    0..=127)`, from the schema's doc and range.
//! 4. Seed 003's top row is garbled: `| 9X| nd| nd|` (the entries are version and ndim, drawn
//!    `| 9X| v | nd|` here), its fourth caret is one column off, and its second and third array
//!    headers are annotated "positive fixnum for nd" (they are `fixarray with X=nd elements`).
//! 5. Seed 003 calls the second array `partshape`; the schema and this diagram say `chunkshape`
//!    (the bytes are the same). Seed 003 also labels the last element `last_dim`; here it is
//!    `nth_dim`, as in the other seeds.
//! 6. The seeds are reStructuredText or Markdown with 4-space or fenced literal blocks and prose
//!    such as "The `shape` section is meant to store the actual shape info::". The diagram is plain
//!    text without indentation, and its section titles are built from the schema's `doc` strings.
//! 7. The diagram opens with the schema's name and description, and ends with the encoded length.

use core::fmt;

use crate::model::{Entry, EntryKind, IntRole, IntWire, Layout, StrWire};

/// A byte count that is linear in the layout's array counts and string lengths:
/// `constant + Σ k·count + Σ k·len(string)`.
///
/// Counts are named by their count entry (`ndim`), string lengths by their string entry (`dtype`,
/// shown as `len(dtype)`). Each name appears at most once, with a non-zero coefficient, in entry
/// order.
///
/// ```
/// use metalayer_layout::{Formula, builtin_layout, length_formula};
///
/// let layout = builtin_layout("b2nd_v1").unwrap();
/// let length = length_formula(&layout);
/// assert_eq!(
///     length,
///     Formula { constant: 12, per_count: vec![("ndim".into(), 19)], per_str: vec![("dtype".into(), 1)] }
/// );
/// assert_eq!(length.to_string(), "12 + 19*ndim + len(dtype)");
/// assert_eq!(length.eval(&[("ndim", 2)], &[("dtype", 3)]), 53);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Formula {
    /// The bytes that do not depend on any count or string length.
    pub constant: usize,
    /// Bytes per unit of each count: (count entry's name, coefficient).
    pub per_count: Vec<(String, usize)>,
    /// Bytes per byte of each string: (string entry's name, coefficient).
    pub per_str: Vec<(String, usize)>,
}

impl Formula {
    /// A formula without variables.
    ///
    /// ```
    /// use metalayer_layout::Formula;
    ///
    /// assert_eq!(Formula::fixed(3).to_string(), "3");
    /// assert_eq!(Formula::fixed(3).as_constant(), Some(3));
    /// ```
    pub fn fixed(constant: usize) -> Formula {
        Formula {
            constant,
            ..Formula::default()
        }
    }

    /// The value, if the formula has no variables.
    ///
    /// ```
    /// use metalayer_layout::{builtin_layout, offset_formula};
    ///
    /// let layout = builtin_layout("b2nd_v1").unwrap();
    /// assert_eq!(offset_formula(&layout, 2).as_constant(), Some(3)); // shape
    /// assert_eq!(offset_formula(&layout, 3).as_constant(), None); // chunkshape: 4 + 9*ndim
    /// ```
    pub fn as_constant(&self) -> Option<usize> {
        (self.per_count.is_empty() && self.per_str.is_empty()).then_some(self.constant)
    }

    /// Evaluates the formula. `counts` gives each count's value by its entry's name, `strs` each
    /// string's length in bytes by its entry's name; names the formula does not use are ignored.
    ///
    /// # Panics
    ///
    /// If a count or string the formula uses is missing, or the result overflows `usize`; see
    /// [`Formula::checked_eval`] for the fallible form.
    ///
    /// ```
    /// use metalayer_layout::{builtin_layout, length_formula};
    ///
    /// let layout = builtin_layout("caterva_v0").unwrap();
    /// // caterva: 6 + 19*ndim
    /// assert_eq!(length_formula(&layout).eval(&[("ndim", 3)], &[]), 63);
    /// ```
    pub fn eval(&self, counts: &[(&str, usize)], strs: &[(&str, usize)]) -> usize {
        match self.checked_eval(counts, strs) {
            Some(n) => n,
            None => panic!("cannot evaluate `{self}` with counts {counts:?} and string lengths {strs:?}"),
        }
    }

    /// Evaluates the formula, or `None` if a count or string it uses is missing from the
    /// arguments or the result overflows `usize`. The first binding of a name counts.
    ///
    /// ```
    /// use metalayer_layout::{builtin_layout, length_formula};
    ///
    /// let length = length_formula(&builtin_layout("b2nd_v0").unwrap());
    /// assert_eq!(length.checked_eval(&[("ndim", 1)], &[("dtype", 5)]), Some(35));
    /// assert_eq!(length.checked_eval(&[("ndim", 1)], &[]), None);
    /// assert_eq!(length.checked_eval(&[("ndim", usize::MAX)], &[("dtype", 5)]), None);
    /// ```
    pub fn checked_eval(&self, counts: &[(&str, usize)], strs: &[(&str, usize)]) -> Option<usize> {
        fn lookup(bindings: &[(&str, usize)], name: &str) -> Option<usize> {
            bindings.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
        }
        let mut total = self.constant;
        for (terms, bindings) in [(&self.per_count, counts), (&self.per_str, strs)] {
            for (name, k) in terms {
                let term = lookup(bindings, name)?.checked_mul(*k)?;
                total = total.checked_add(term)?;
            }
        }
        Some(total)
    }

    fn add_term(terms: &mut Vec<(String, usize)>, name: &str, k: usize) {
        if k == 0 {
            return;
        }
        match terms.iter_mut().find(|(n, _)| n == name) {
            Some((_, c)) => *c += k,
            None => terms.push((name.to_string(), k)),
        }
    }

    fn add(&mut self, other: &Formula) {
        self.constant += other.constant;
        for (name, k) in &other.per_count {
            Formula::add_term(&mut self.per_count, name, *k);
        }
        for (name, k) in &other.per_str {
            Formula::add_term(&mut self.per_str, name, *k);
        }
    }

    fn plus(mut self, n: usize) -> Formula {
        self.constant += n;
        self
    }
}

impl fmt::Display for Formula {
    /// `12 + 19*ndim + len(dtype)`: the constant (omitted when 0 unless it is all there is), then
    /// each count, then each string length; a coefficient of 1 is not written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut terms = Vec::new();
        if self.constant != 0 || (self.per_count.is_empty() && self.per_str.is_empty()) {
            terms.push(self.constant.to_string());
        }
        for (name, k) in &self.per_count {
            terms.push(if *k == 1 { name.clone() } else { format!("{k}*{name}") });
        }
        for (name, k) in &self.per_str {
            terms.push(if *k == 1 {
                format!("len({name})")
            } else {
                format!("{k}*len({name})")
            });
        }
        f.write_str(&terms.join(" + "))
    }
}

/// Where the elements of one array entry are: element `i` starts at `first + stride*i`.
///
/// ```
/// use metalayer_layout::{builtin_layout, element_offsets};
///
/// let layout = builtin_layout("b2nd_v1").unwrap();
/// let shape = element_offsets(&layout, 2).unwrap();
/// assert_eq!((shape.first.to_string(), shape.stride, shape.marker_len), ("4".to_string(), 9, 1));
/// assert_eq!(shape.element_text(), "4 + 9*i"); // the 0xd3 marker of shape[i]
/// assert_eq!(shape.payload_text(), "5 + 9*i"); // its 8-byte big-endian value
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementOffsets {
    /// Element 0's first byte: its marker, or for a fixint element its one byte. This is the
    /// array's offset plus its 1-byte header.
    pub first: Formula,
    /// Bytes per element (marker and payload).
    pub stride: usize,
    /// Bytes before each element's payload: 1 for the marker, 0 for a fixint element.
    pub marker_len: usize,
}

impl ElementOffsets {
    /// Element `i`'s first byte (its marker, or its one byte for a fixint element).
    ///
    /// ```
    /// use metalayer_layout::{builtin_layout, element_offsets};
    ///
    /// let layout = builtin_layout("b2nd_v1").unwrap();
    /// let chunkshape = element_offsets(&layout, 3).unwrap();
    /// assert_eq!(chunkshape.element(1).to_string(), "10 + 9*ndim");
    /// ```
    pub fn element(&self, i: usize) -> Formula {
        self.first.clone().plus(self.stride * i)
    }

    /// The first byte of element `i`'s big-endian payload (after its marker).
    ///
    /// ```
    /// use metalayer_layout::{builtin_layout, element_offsets};
    ///
    /// let layout = builtin_layout("b2nd_v1").unwrap();
    /// let shape = element_offsets(&layout, 2).unwrap();
    /// assert_eq!(shape.payload(2).eval(&[], &[]), 5 + 9 * 2);
    /// ```
    pub fn payload(&self, i: usize) -> Formula {
        self.element(i).plus(self.marker_len)
    }

    /// [`ElementOffsets::element`] as text in the element index `i`: `4 + 9*i`.
    ///
    /// ```
    /// use metalayer_layout::{builtin_layout, element_offsets};
    ///
    /// let layout = builtin_layout("caterva_v0").unwrap();
    /// assert_eq!(element_offsets(&layout, 4).unwrap().element_text(), "6 + 14*ndim + 5*i");
    /// ```
    pub fn element_text(&self) -> String {
        with_index(&self.first, self.stride)
    }

    /// [`ElementOffsets::payload`] as text in the element index `i`: `5 + 9*i`.
    ///
    /// ```
    /// use metalayer_layout::{builtin_layout, element_offsets};
    ///
    /// let layout = builtin_layout("caterva_v0").unwrap();
    /// assert_eq!(element_offsets(&layout, 4).unwrap().payload_text(), "7 + 14*ndim + 5*i");
    /// ```
    pub fn payload_text(&self) -> String {
        with_index(&self.first.clone().plus(self.marker_len), self.stride)
    }
}

fn with_index(base: &Formula, stride: usize) -> String {
    match stride {
        0 => base.to_string(),
        1 => format!("{base} + i"),
        k => format!("{base} + {k}*i"),
    }
}

/// The name of an array's count entry, or `count` if the layout is inconsistent.
fn count_name(layout: &Layout, count: usize) -> &str {
    layout.entries.get(count).map_or("count", |e| e.name.as_str())
}

/// The encoded size of entry `entry_index`, marker and all.
///
/// # Panics
///
/// If `entry_index` is not an entry's index.
///
/// ```
/// use metalayer_layout::{builtin_layout, size_formula};
///
/// let layout = builtin_layout("b2nd_v1").unwrap();
/// let sizes: Vec<String> = (0..7).map(|i| size_formula(&layout, i).to_string()).collect();
/// assert_eq!(sizes, ["1", "1", "1 + 9*ndim", "1 + 5*ndim", "1 + 5*ndim", "1", "5 + len(dtype)"]);
/// ```
pub fn size_formula(layout: &Layout, entry_index: usize) -> Formula {
    let entry = &layout.entries[entry_index];
    let mut f = Formula::default();
    match &entry.kind {
        EntryKind::Int { wire, .. } => f.constant = wire.size(),
        EntryKind::Str { wire } => {
            f.constant = 1 + wire.width();
            Formula::add_term(&mut f.per_str, &entry.name, 1);
        }
        EntryKind::Array { element, count, .. } => {
            f.constant = 1;
            Formula::add_term(&mut f.per_count, count_name(layout, *count), element.size());
        }
    }
    f
}

/// The offset of entry `entry_index`'s first byte: its fixint byte, marker or array header.
/// `entry_index == layout.entries.len()` gives the end, the encoded length.
///
/// # Panics
///
/// If `entry_index > layout.entries.len()`.
///
/// ```
/// use metalayer_layout::{builtin_layout, offset_formula};
///
/// let layout = builtin_layout("b2nd_v1").unwrap();
/// let offsets: Vec<String> = (0..=7).map(|i| offset_formula(&layout, i).to_string()).collect();
/// assert_eq!(
///     offsets,
///     ["1", "2", "3", "4 + 9*ndim", "5 + 14*ndim", "6 + 19*ndim", "7 + 19*ndim", "12 + 19*ndim + len(dtype)"]
/// );
/// ```
pub fn offset_formula(layout: &Layout, entry_index: usize) -> Formula {
    assert!(
        entry_index <= layout.entries.len(),
        "entry index {entry_index} out of range: `{}` has {} entries",
        layout.schema,
        layout.entries.len()
    );
    let mut f = Formula::fixed(1); // the container's fixarray byte
    for i in 0..entry_index {
        f.add(&size_formula(layout, i));
    }
    f
}

/// The offset of the first byte of entry `entry_index`'s value: the fixint byte itself, the
/// payload after an integer's marker, the text after a string's length prefix, or element 0 of an
/// array.
///
/// # Panics
///
/// If `entry_index` is not an entry's index.
///
/// ```
/// use metalayer_layout::{builtin_layout, value_offset_formula};
///
/// let layout = builtin_layout("b2nd_v1").unwrap();
/// assert_eq!(value_offset_formula(&layout, 1).to_string(), "2"); // ndim: the fixint byte
/// assert_eq!(value_offset_formula(&layout, 6).to_string(), "12 + 19*ndim"); // dtype's text
/// ```
pub fn value_offset_formula(layout: &Layout, entry_index: usize) -> Formula {
    let skip = match &layout.entries[entry_index].kind {
        EntryKind::Int { wire, .. } => usize::from(wire.marker().is_some()),
        EntryKind::Str { wire } => 1 + wire.width(),
        EntryKind::Array { .. } => 1,
    };
    offset_formula(layout, entry_index).plus(skip)
}

/// The exact encoded length of the layout: the container byte and every entry.
///
/// ```
/// use metalayer_layout::{builtin_layout, length_formula};
///
/// let lengths: Vec<String> = ["caterva_v0", "b2nd_v0", "b2nd_v1"]
///     .iter()
///     .map(|name| length_formula(&builtin_layout(name).unwrap()).to_string())
///     .collect();
/// assert_eq!(lengths, ["6 + 19*ndim", "11 + 19*ndim + len(dtype)", "12 + 19*ndim + len(dtype)"]);
/// ```
pub fn length_formula(layout: &Layout) -> Formula {
    offset_formula(layout, layout.entries.len())
}

/// Where the elements of array entry `entry_index` are, or `None` if it is not an array.
///
/// # Panics
///
/// If `entry_index` is not an entry's index.
///
/// ```
/// use metalayer_layout::{builtin_layout, element_offsets};
///
/// let layout = builtin_layout("b2nd_v1").unwrap();
/// assert_eq!(element_offsets(&layout, 4).unwrap().element_text(), "6 + 14*ndim + 5*i"); // blockshape
/// assert!(element_offsets(&layout, 1).is_none()); // ndim is no array
/// ```
pub fn element_offsets(layout: &Layout, entry_index: usize) -> Option<ElementOffsets> {
    let EntryKind::Array { element, .. } = &layout.entries[entry_index].kind else {
        return None;
    };
    Some(ElementOffsets {
        first: offset_formula(layout, entry_index).plus(1),
        stride: element.size(),
        marker_len: usize::from(element.marker().is_some()),
    })
}

/// A table of every entry's offset, size and value offset (see the module docs for what each
/// points at), with a row per array's elements and the total length, for documentation.
///
/// ```
/// let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
/// let table = metalayer_layout::formulas(&layout);
/// assert!(table.lines().any(|l| l.split_whitespace().eq(["shape[i]", "int64", "4", "+", "9*i", "9", "5", "+", "9*i"])));
/// assert!(table.lines().last().unwrap().ends_with("12 + 19*ndim + len(dtype)"));
/// ```
pub fn formulas(layout: &Layout) -> String {
    let mut rows: Vec<[String; 5]> = vec![
        ["entry", "wire", "offset", "size", "value at"].map(String::from),
        [
            "(container)".into(),
            "fixarray".into(),
            "0".into(),
            "1".into(),
            "-".into(),
        ],
    ];
    for (i, entry) in layout.entries.iter().enumerate() {
        let is_array = matches!(entry.kind, EntryKind::Array { .. });
        rows.push([
            entry.name.clone(),
            entry.wire_name().into(),
            offset_formula(layout, i).to_string(),
            size_formula(layout, i).to_string(),
            if is_array {
                "-".into()
            } else {
                value_offset_formula(layout, i).to_string()
            },
        ]);
        if let (EntryKind::Array { element, .. }, Some(el)) = (&entry.kind, element_offsets(layout, i)) {
            rows.push([
                format!("{}[i]", entry.name),
                element.name().into(),
                el.element_text(),
                el.stride.to_string(),
                el.payload_text(),
            ]);
        }
    }
    rows.push([
        "(total)".into(),
        String::new(),
        String::new(),
        length_formula(layout).to_string(),
        String::new(),
    ]);
    let mut widths = [0; 5];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = format!(
        "Offsets and sizes in bytes of `{}` ({}); i is an element index, len(x) the byte length of string x.\n\n",
        layout.metalayer, layout.schema
    );
    for row in &rows {
        let mut line = String::new();
        for (cell, w) in row.iter().zip(widths) {
            line.push_str(&format!("{cell:w$}  "));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The diagram.

/// One cell of a diagram row.
struct Cell {
    /// The top border's text, if not plain dashes (`-0-`, `--8 bytes`, or `~` for a span).
    head: Head,
    /// The cell's label, written after one space.
    label: String,
    /// The least width.
    min_width: usize,
    /// The annotation under the cell's caret, if it gets one.
    note: Option<String>,
}

enum Head {
    /// Dashes, with `-N-` when the offset is known.
    Byte(Option<usize>),
    /// `--8 bytes---`.
    Sized(String),
    /// Dashes only (a string's text).
    Plain,
    /// `~~~~`, a part of variable length; its borders are `~` too.
    Span,
}

impl Cell {
    fn byte(label: impl Into<String>, offset: Option<usize>, note: impl Into<String>) -> Cell {
        Cell {
            head: Head::Byte(offset),
            label: label.into(),
            min_width: 3,
            note: Some(note.into()),
        }
    }

    fn sized(label: impl Into<String>, bytes: usize) -> Cell {
        let text = if bytes == 1 {
            "1 byte".to_string()
        } else {
            format!("{bytes} bytes")
        };
        Cell {
            head: Head::Sized(text),
            label: label.into(),
            min_width: 12,
            note: None,
        }
    }

    fn span(label: impl Into<String>) -> Cell {
        Cell {
            head: Head::Span,
            label: label.into(),
            min_width: 16,
            note: None,
        }
    }

    fn width(&self) -> usize {
        let head = match &self.head {
            Head::Byte(Some(o)) => o.to_string().len() + 2,
            Head::Sized(text) => text.len() + 3,
            Head::Byte(None) | Head::Plain | Head::Span => 0,
        };
        // A byte cell's label sits flush right (` 9X`); wider cells keep a space after it.
        let margin = if matches!(self.head, Head::Byte(_)) { 1 } else { 2 };
        self.min_width.max(self.label.len() + margin).max(head)
    }
}

/// Draws one row of cells and its annotations, seed style: the carets under the cells that have a
/// note, then one line per note, rightmost first.
/// `container` draws the first note's arrow one dash longer, as the seeds do for the container.
fn draw(cells: &[Cell], container: bool, out: &mut String) {
    let widths: Vec<usize> = cells.iter().map(Cell::width).collect();
    let mut top = String::from("|");
    let mut mid = String::from("|");
    let mut bottom = String::from("|");
    let mut carets = Vec::new();
    for (cell, &w) in cells.iter().zip(&widths) {
        if let Some(note) = &cell.note {
            carets.push((top.len() + 1, note.as_str()));
        }
        let (t, b) = match &cell.head {
            Head::Byte(Some(o)) => (format!("{:-<w$}", format!("-{o}-")), "-".repeat(w)),
            Head::Sized(text) => (format!("{:-<w$}", format!("--{text}")), "-".repeat(w)),
            Head::Byte(None) | Head::Plain => ("-".repeat(w), "-".repeat(w)),
            Head::Span => ("~".repeat(w), "~".repeat(w)),
        };
        top.push_str(&t);
        top.push('|');
        mid.push_str(&format!("{:<w$}|", format!(" {}", cell.label)));
        bottom.push_str(&b);
        bottom.push('|');
    }
    for line in [top, mid, bottom] {
        out.push_str(&line);
        out.push('\n');
    }
    if carets.is_empty() {
        return;
    }
    let marks = |upto: usize, mark: char| {
        let mut line = String::new();
        for &(col, _) in &carets[..upto] {
            line.push_str(&" ".repeat(col - line.len()));
            line.push(mark);
        }
        line
    };
    out.push_str(&marks(carets.len(), '^'));
    out.push('\n');
    out.push_str(&marks(carets.len(), '|'));
    out.push('\n');
    for k in (0..carets.len()).rev() {
        let mut line = marks(k, '|');
        let (col, note) = carets[k];
        line.push_str(&" ".repeat(col - line.len()));
        // The seeds draw the container's arrow one dash longer than the others.
        let arrow = if k == 0 && container { "+---" } else { "+--" };
        line.push_str(&format!("{arrow}[msgpack] {note}"));
        out.push_str(&line);
        out.push('\n');
    }
}

/// The label of a fixint cell: a name of up to 2 letters, else `v` for a constant (its first
/// letter), the count's symbol, `XX` for a value.
fn fixint_label(entry: &Entry) -> String {
    if entry.name.len() <= 2 {
        return entry.name.clone();
    }
    match &entry.kind {
        EntryKind::Int {
            role: IntRole::Const { .. },
            ..
        } => entry.name.chars().next().map_or("v".into(), String::from),
        EntryKind::Int {
            role: IntRole::Count { .. },
            ..
        } => count_symbol(entry),
        _ => "XX".into(),
    }
}

/// How a count is written in `X=nd`: a fixint count's first two letters (`nd` for `ndim`, as the
/// seeds write it), another count's name.
fn count_symbol(entry: &Entry) -> String {
    match entry.kind {
        EntryKind::Int {
            wire: IntWire::FixInt, ..
        } => entry.name.chars().take(2).collect(),
        _ => entry.name.clone(),
    }
}

/// `for the number of dimensions`, from the doc; for a count without doc, the arrays it counts.
fn purpose(layout: &Layout, entry: &Entry) -> String {
    if let Some(doc) = entry.doc.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        let lower = doc.to_lowercase();
        let has_article = ["the ", "a ", "an "].iter().any(|a| lower.starts_with(a));
        let starts_upper = doc.chars().next().is_some_and(char::is_uppercase);
        return if has_article || starts_upper {
            format!(" for {doc}")
        } else {
            format!(" for the {doc}")
        };
    }
    if let EntryKind::Int {
        role: IntRole::Count { arrays, .. },
        ..
    } = &entry.kind
    {
        let names: Vec<&str> = arrays
            .iter()
            .filter_map(|&a| layout.entries.get(a))
            .map(|e| e.name.as_str())
            .collect();
        if !names.is_empty() {
            return format!(" for the length of {}", names.join(", "));
        }
    }
    String::new()
}

/// The annotation of an integer entry: `positive fixint for the number of dimensions (ndim, 0..=16)`.
fn int_note(layout: &Layout, entry: &Entry, wire: IntWire, role: &IntRole) -> String {
    let wire_name = if wire == IntWire::FixInt {
        "positive fixint"
    } else {
        wire.name()
    };
    let range = match role {
        IntRole::Const { value } => format!("always {value}"),
        IntRole::Value { min, max } => format!("{min}..={max}"),
        IntRole::Count { min, max, .. } => format!("{min}..={max}"),
    };
    format!("{wire_name}{} ({}, {range})", purpose(layout, entry), entry.name)
}

/// The annotation of an array's header: `fixarray with X=nd elements`, and where the header leaves
/// the fixarray range, the bytes it becomes.
fn header_note(layout: &Layout, count: usize) -> String {
    let Some(count_entry) = layout.entries.get(count) else {
        return "fixarray with X=count elements".into();
    };
    let symbol = count_symbol(count_entry);
    let mut note = format!("fixarray with X={symbol} elements");
    if let EntryKind::Int {
        role: IntRole::Count { max, .. },
        ..
    } = count_entry.kind
        && max >= 16
    {
        let last = 0x90 + max;
        if max == 16 {
            note.push_str(&format!("; {symbol} = 16 gives header 0xa0, not a fixarray"));
        } else {
            note.push_str(&format!(
                "; {symbol} = 16..={max} gives headers 0xa0..={last:#04x}, not a fixarray"
            ));
        }
    }
    note
}

/// The cells of an entry drawn byte by byte (top row before the variable parts, final section).
fn entry_cells(layout: &Layout, entry: &Entry, offset: Option<usize>, detailed: bool, cells: &mut Vec<Cell>) {
    match &entry.kind {
        EntryKind::Int { wire, role } => {
            let note = int_note(layout, entry, *wire, role);
            match wire.marker() {
                None => cells.push(Cell::byte(fixint_label(entry), offset, note)),
                Some(marker) => {
                    cells.push(Cell::byte(format!("{marker:02x}"), offset, note));
                    cells.push(Cell::sized(&entry.name, wire.width()));
                }
            }
        }
        EntryKind::Str { wire } => {
            cells.push(Cell::byte(format!("{:02x}", wire.marker()), offset, wire.name()));
            if detailed {
                str_cells(entry, *wire, cells);
            } else {
                cells.push(Cell::span(&entry.name));
            }
        }
        EntryKind::Array { count, .. } => {
            cells.push(Cell::byte("9X", offset, header_note(layout, *count)));
            cells.push(Cell::span(&entry.name));
        }
    }
}

/// A string's length and text cells: `| dtype_len  | dtype_string |`.
fn str_cells(entry: &Entry, wire: StrWire, cells: &mut Vec<Cell>) {
    cells.push(Cell::sized(format!("{}_len", entry.name), wire.width()));
    cells.push(Cell {
        head: Head::Plain,
        label: format!("{}_string", entry.name),
        min_width: 0,
        note: None,
    });
}

/// The word after `first_` in element labels: `dim` for a count named `ndim`, else `elem`.
fn element_word(layout: &Layout, count: usize) -> String {
    let name = count_name(layout, count);
    match name.strip_prefix('n') {
        Some(rest) if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_lowercase()) => rest.to_string(),
        _ => "elem".into(),
    }
}

fn array_block(layout: &Layout, entry: &Entry, element: IntWire, count: usize, out: &mut String) {
    let word = element_word(layout, count);
    let symbol = layout.entries.get(count).map_or("count".into(), count_symbol);
    let doc = entry.doc.as_deref().map_or(String::new(), |d| format!(", {d}"));
    let (what, size) = match element {
        IntWire::FixInt => ("a positive fixint".to_string(), "1 byte".to_string()),
        other => {
            let article = if other.name().starts_with('i') { "an" } else { "a" };
            (format!("{article} {}", other.name()), format!("{} bytes", other.size()))
        }
    };
    out.push_str(&format!(
        "The `{}` section{doc}: {symbol} elements, each {what} of {size}:\n\n",
        entry.name
    ));
    // All element cells as wide as the widest label, as in the seeds.
    let width = ["first", "second", "nth"]
        .iter()
        .map(|o| o.len() + word.len() + 3)
        .max()
        .unwrap_or(0);
    let mut cells = Vec::new();
    for (i, ordinal) in ["first", "second", "", "nth"].into_iter().enumerate() {
        if i == 2 {
            cells.push(Cell {
                head: Head::Span,
                label: "...".into(),
                min_width: 5,
                note: None,
            });
            continue;
        }
        let label = format!("{ordinal}_{word}");
        match element.marker() {
            Some(marker) => {
                cells.push(Cell::byte(format!("{marker:02x}"), None, element.name()));
                let mut cell = Cell::sized(label, element.width());
                cell.min_width = cell.min_width.max(width);
                cells.push(cell);
            }
            None => {
                let mut cell = Cell::sized(label, 1);
                cell.min_width = cell.min_width.max(width);
                cell.note = Some("positive fixint".into());
                cells.push(cell);
            }
        }
    }
    draw(&cells, false, out);
}

/// Renders the layout as a byte-layout diagram in the style of the caterva and b2nd format
/// documents: the top row with its annotations, a block per array's elements, a block per string,
/// and the entries after the last array as a final section. See the module documentation for the
/// rules and for where the result deliberately differs from those documents.
///
/// ```
/// let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
/// let diagram = metalayer_layout::diagram(&layout);
/// assert!(diagram.contains(
///     "| 9X| v | nd| 9X| shape          | 9X| chunkshape     | 9X| blockshape     |\n"
/// ));
/// assert!(diagram.contains("| d3| first_dim  | d3| second_dim | ... | d3| nth_dim    |\n"));
/// assert!(diagram.contains("| XX| db| dtype_len  | dtype_string |\n"));
/// assert!(diagram.contains("+---[msgpack] fixarray with X=7 elements\n"));
/// ```
pub fn diagram(layout: &Layout) -> String {
    let entries = &layout.entries;
    let is_array = |e: &Entry| matches!(e.kind, EntryKind::Array { .. });
    let is_str = |e: &Entry| matches!(e.kind, EntryKind::Str { .. });
    // The final section: everything after the last array if that holds a string; without arrays,
    // everything from the first string on.
    let tail_start = match entries.iter().rposition(is_array) {
        Some(last) if entries[last + 1..].iter().any(is_str) => last + 1,
        Some(_) => entries.len(),
        None => entries.iter().position(is_str).unwrap_or(entries.len()),
    };

    let mut out = format!(
        "The `{}` metalayer (schema {}): {}\nSource: {}\n\n",
        layout.metalayer, layout.schema, layout.description, layout.source
    );

    // The top row.
    let mut cells = vec![Cell::byte(
        "9X",
        Some(0),
        format!("fixarray with X={} elements", entries.len()),
    )];
    for (i, entry) in entries[..tail_start].iter().enumerate() {
        let offset = offset_formula(layout, i).as_constant();
        entry_cells(layout, entry, offset, false, &mut cells);
    }
    draw(&cells, true, &mut out);

    // A block per array and per string of the top row.
    for entry in &entries[..tail_start] {
        match &entry.kind {
            EntryKind::Array { element, count, .. } => {
                out.push('\n');
                array_block(layout, entry, *element, *count, &mut out);
            }
            EntryKind::Str { wire } => {
                out.push('\n');
                let doc = entry.doc.as_deref().map_or(String::new(), |d| format!(", {d}"));
                out.push_str(&format!("The `{}` section{doc}: a {}:\n\n", entry.name, wire.name()));
                let mut cells = vec![Cell::byte(format!("{:02x}", wire.marker()), None, wire.name())];
                str_cells(entry, *wire, &mut cells);
                draw(&cells, false, &mut out);
            }
            EntryKind::Int { .. } => {}
        }
    }

    // The entries after the last array, byte by byte.
    let tail = &entries[tail_start..];
    if !tail.is_empty() {
        out.push('\n');
        let names: Vec<String> = tail.iter().map(|e| format!("`{}`", e.name)).collect();
        let names = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        };
        let noun = if tail.len() == 1 { "entry" } else { "entries" };
        out.push_str(&format!("Finally, the {names} {noun}:\n"));
        for entry in tail {
            let doc = entry.doc.as_deref().map_or(String::new(), |d| format!(": {d}"));
            out.push_str(&format!("- {} ({}){doc}\n", entry.name, entry.wire_name()));
        }
        out.push('\n');
        let mut cells = Vec::new();
        for (i, entry) in tail.iter().enumerate() {
            let offset = offset_formula(layout, tail_start + i).as_constant();
            entry_cells(layout, entry, offset, true, &mut cells);
        }
        draw(&cells, false, &mut out);
    }

    out.push_str(&format!("\nEncoded length: {} bytes.\n", length_formula(layout)));
    out
}

//! Documentation rendered from a [`Layout`]: the byte-layout diagram in the style of the original
//! caterva / b2nd format documents, and the encoded length and offsets as formulas, all built on
//! the one size formula of [`size`](mod@crate::size).
//!
//! # What an offset points at
//!
//! Offsets count bytes from the start of the record (for the top-level record, the start of the
//! metalayer's content: the container byte is at 0).
//!
//! - [`offset_formula`] points at an entry's **first byte**: in a map record its key, else the
//!   fixint byte itself, an integer's or a string's marker (`0xd3`, `0xdb`, ...), or an array's
//!   header byte (`0x90 + count`).
//! - [`value_offset_formula`] points at the first byte of the entry's **value**: the same byte for
//!   a fixint, the big-endian payload after the marker for other integers, the text after the
//!   length prefix for a string, and element 0's first byte for an array.
//! - [`ElementOffsets::element`] points at array element `i`'s first byte, its marker (`0xd3`
//!   for an int64 element); [`ElementOffsets::payload`] at its big-endian payload. For b2nd_v1 the
//!   shape header is at 3, `shape[i]`'s marker at `4 + 9*i` and its int64 payload at `5 + 9*i`.
//!   For a fixint element both are the same byte.
//!
//! Offsets are formulas only while every byte before them is a linear function of counts and
//! lengths: after an entry whose size depends on a value in another way (a canonical integer,
//! a canonical header, a sum over elements of different sizes, an optional entry's presence),
//! the offset functions return `None` and [`formulas`] says from where.
//!
//! # How the diagram is laid out
//!
//! A record is drawn as a top row holding its header byte and every entry up to the last one
//! with parts of its own (an array, a map, a record): one 1-byte cell per fixint, marker cell and
//! payload cell per other integer or float, header cell `9X` and a `~~~` span per array, marker
//! cell and `~~~` span per string, a `~~~` span per value whose encoding the value chooses (a
//! canonical integer or string). In a map record each entry is preceded by a cell holding its key
//! (`a5 "scale"`). Cells of a known offset are headed `-N-`. The entries after the last array are
//! drawn as one final section when they hold a string (as the seeds draw `dtype`, and seed 002
//! `dtype_format` with it), and in the top row otherwise; in a record without arrays the final
//! section starts at the first string. Then each array or map gets a block of its elements, drawn
//! with the element's own cells, nested parts indented by four spaces per level, and each string
//! before the last array a block of its marker, length and text. Each named record type gets its
//! own section. Fixint cells carry a name of up to two letters, else `v` for a constant (its first
//! letter, the seeds' version), the first two letters of a count (`nd` for `ndim`, also the `X` of
//! `fixarray with X=nd elements`) and `XX` for a value (seed 002's `dtype_format`); other cells
//! carry the entry's name. Element cells are `first_dim`, `second_dim`, `nth_dim` when the count
//! is named `n` + a word (`ndim`), else `first_elem` and so on. Annotations state constants
//! (`always 0`), ranges and named values, and optional entries say so. A row wider than 120
//! columns continues on another row, an entry never split; a record whose first entry is a
//! string is drawn in one row of its bytes.
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

use crate::encoding;
use crate::model::{
    ArrayType, Const, Count, Encoding, Entry, ExtType, Family, IntType, Layout, MapType, Node, Record, Role, Type, Wire,
};
use crate::size::{self, Place, Size};

/// Where the elements of one array entry are: element `i` starts at `first + stride*i`.
///
/// ```
/// use metalayer_layout::{builtin, element_offsets};
///
/// let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
/// let shape = element_offsets(&layout, layout.root_record().unwrap(), 2).unwrap();
/// assert_eq!((shape.first.to_string(), shape.stride, shape.marker_len), ("4".to_string(), 9, 1));
/// assert_eq!(shape.element_text(), "4 + 9*i"); // the 0xd3 marker of shape[i]
/// assert_eq!(shape.payload_text(), "5 + 9*i"); // its 8-byte big-endian value
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementOffsets {
    /// Element 0's first byte: its marker, or for a fixint element its one byte. This is the
    /// array's value offset: its offset, its key in a map record, and its header.
    pub first: Size,
    /// Bytes per element (marker and payload).
    pub stride: usize,
    /// Bytes before each element's payload: 1 for the marker, 0 for a fixint element.
    pub marker_len: usize,
}

impl ElementOffsets {
    /// Element `i`'s first byte (its marker, or its one byte for a fixint element).
    ///
    /// ```
    /// use metalayer_layout::{builtin, element_offsets};
    ///
    /// let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let chunkshape = element_offsets(&layout, layout.root_record().unwrap(), 3).unwrap();
    /// assert_eq!(chunkshape.element(1).to_string(), "10 + 9*ndim");
    /// ```
    pub fn element(&self, i: usize) -> Size {
        self.first.clone().plus(self.stride.saturating_mul(i))
    }

    /// The first byte of element `i`'s big-endian payload (after its marker).
    ///
    /// ```
    /// use metalayer_layout::{builtin, element_offsets};
    ///
    /// let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let shape = element_offsets(&layout, layout.root_record().unwrap(), 2).unwrap();
    /// assert_eq!(shape.payload(2).eval(&[], &[]), 5 + 9 * 2);
    /// ```
    pub fn payload(&self, i: usize) -> Size {
        self.element(i).plus(self.marker_len)
    }

    /// [`ElementOffsets::element`] as text in the element index `i`: `4 + 9*i`.
    ///
    /// ```
    /// use metalayer_layout::{builtin, element_offsets};
    ///
    /// let layout = builtin("caterva_v0").unwrap().layout().unwrap();
    /// let blockshape = element_offsets(&layout, layout.root_record().unwrap(), 4).unwrap();
    /// assert_eq!(blockshape.element_text(), "6 + 14*ndim + 5*i");
    /// ```
    pub fn element_text(&self) -> String {
        with_index(&self.first, self.stride)
    }

    /// [`ElementOffsets::payload`] as text in the element index `i`: `5 + 9*i`.
    ///
    /// ```
    /// use metalayer_layout::{builtin, element_offsets};
    ///
    /// let layout = builtin("caterva_v0").unwrap().layout().unwrap();
    /// let blockshape = element_offsets(&layout, layout.root_record().unwrap(), 4).unwrap();
    /// assert_eq!(blockshape.payload_text(), "7 + 14*ndim + 5*i");
    /// ```
    pub fn payload_text(&self) -> String {
        with_index(&self.first.clone().plus(self.marker_len), self.stride)
    }
}

fn with_index(base: &Size, stride: usize) -> String {
    match stride {
        0 => base.to_string(),
        1 => format!("{base} + i"),
        k => format!("{base} + {k}*i"),
    }
}

fn check_index(record: &Record, index: usize, end_ok: bool) {
    let limit = record.entries.len() + usize::from(end_ok);
    assert!(
        index < limit,
        "entry index {index} out of range: the record has {} entries",
        record.entries.len()
    );
}

/// The encoded size of entry `index` of `record`: its key in a map record, marker and all (for
/// an optional entry, when present).
///
/// # Panics
///
/// If `index` is not an entry's index.
///
/// ```
/// use metalayer_layout::{builtin, size_formula};
///
/// let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
/// let root = layout.root_record().unwrap();
/// let sizes: Vec<String> = (0..7).map(|i| size_formula(&layout, root, i).to_string()).collect();
/// assert_eq!(sizes, ["1", "1", "1 + 9*ndim", "1 + 5*ndim", "1 + 5*ndim", "1", "5 + len(dtype)"]);
/// ```
pub fn size_formula(layout: &Layout, record: &Record, index: usize) -> Size {
    check_index(record, index, false);
    size::of_entry(layout, record, index, &Place::root())
}

/// The offset of entry `index`'s first byte (its key in a map record, else its fixint byte,
/// marker or array header), from the record's first byte; `index == record.entries.len()` gives
/// the end, the record's encoded length. `None` when it is not a linear formula: when a byte
/// before it depends on a value in another way than through a count or a length (see the
/// [module documentation](self)), or for the end of a record with optional entries.
///
/// # Panics
///
/// If `index > record.entries.len()`.
///
/// ```
/// use metalayer_layout::{builtin, offset_formula};
///
/// let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
/// let root = layout.root_record().unwrap();
/// let offsets: Vec<String> = (0..=7).map(|i| offset_formula(&layout, root, i).unwrap().to_string()).collect();
/// assert_eq!(
///     offsets,
///     ["1", "2", "3", "4 + 9*ndim", "5 + 14*ndim", "6 + 19*ndim", "7 + 19*ndim", "12 + 19*ndim + len(dtype)"]
/// );
/// ```
pub fn offset_formula(layout: &Layout, record: &Record, index: usize) -> Option<Size> {
    check_index(record, index, true);
    let f = if index == record.entries.len() {
        size::of_record(layout, record, &Place::root())
    } else {
        let mut f = size::record_header(record, &Place::root());
        for i in 0..index {
            f.add(size::of_entry(layout, record, i, &Place::root()));
        }
        f
    };
    f.is_linear().then_some(f)
}

/// The offset of the first byte of entry `index`'s value: after a map record's key, the fixint
/// byte itself, the payload after an integer's marker, the text after a string's length prefix,
/// or element 0 of an array. `None` when the offset is not a linear formula, or the length of
/// what precedes the value depends on the value.
///
/// # Panics
///
/// If `index` is not an entry's index.
///
/// ```
/// use metalayer_layout::{builtin, value_offset_formula};
///
/// let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
/// let root = layout.root_record().unwrap();
/// assert_eq!(value_offset_formula(&layout, root, 1).unwrap().to_string(), "2"); // ndim: the fixint byte
/// assert_eq!(value_offset_formula(&layout, root, 6).unwrap().to_string(), "12 + 19*ndim"); // dtype's text
/// ```
pub fn value_offset_formula(layout: &Layout, record: &Record, index: usize) -> Option<Size> {
    check_index(record, index, false);
    let e = &record.entries[index];
    let key = e.key.as_deref().map_or(0, metalayer_runtime::key_size);
    let prefix = value_prefix(layout, &e.node, Some(&e.role), Some(record))?;
    Some(offset_formula(layout, record, index)?.plus(key + prefix))
}

/// The bytes of a value before its content, when they do not depend on the value: the marker of
/// an integer or float (0 for a fixint), a string's or ext's header, an array's header.
fn value_prefix(layout: &Layout, node: &Node, role: Option<&Role>, record: Option<&Record>) -> Option<usize> {
    let bytes = |enc: Encoding, family: Family| match (enc, role) {
        (Encoding::Fixed(w), _) => Some(w.header_size()),
        (Encoding::Canonical { .. }, Some(Role::Const(Const::Bytes(b)))) => {
            Some(Wire::smallest_header_size(family, b.len() as u64))
        }
        _ => None,
    };
    match &node.ty {
        Type::Nil | Type::Bool => Some(0),
        Type::Int(t) => int_wire(t, role).map(|w| usize::from(w.width() > 0)),
        Type::Float(_) => Some(1),
        Type::Str(t) => bytes(t.encoding, Family::Str),
        Type::Bin(b) => bytes(b.encoding, Family::Bin),
        Type::Ext(t) => match t.encoding {
            Encoding::Fixed(w) => Some(w.header_size()),
            Encoding::Canonical { .. } => None,
        },
        Type::Array(_) | Type::Map(_) => size::header(node, record, &Place::root())?.as_constant(),
        Type::Record(r) => size::record_header(r, &Place::root()).as_constant(),
        Type::Ref(i) => layout
            .types
            .get(*i)
            .and_then(|t| size::record_header(&t.record, &Place::root()).as_constant()),
    }
}

/// The exact encoded length of the layout's top-level value: the container byte and every entry
/// for a record.
///
/// ```
/// use metalayer_layout::{builtin, length_formula};
///
/// let lengths: Vec<String> = ["caterva_v0", "b2nd_v0", "b2nd_v1"]
///     .iter()
///     .map(|name| length_formula(&builtin(name).unwrap().layout().unwrap()).to_string())
///     .collect();
/// assert_eq!(lengths, ["6 + 19*ndim", "11 + 19*ndim + len(dtype)", "12 + 19*ndim + len(dtype)"]);
/// ```
pub fn length_formula(layout: &Layout) -> Size {
    match layout.root_record() {
        Some(r) => size::of_record(layout, r, &Place::root()),
        None => size::of(layout, &layout.root, &Place::root()),
    }
}

/// Where the elements of array entry `index` of `record` are, or `None` if it is not an array,
/// its elements differ in size, or its offset is not a linear formula.
///
/// # Panics
///
/// If `index` is not an entry's index.
///
/// ```
/// use metalayer_layout::{builtin, element_offsets};
///
/// let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
/// let root = layout.root_record().unwrap();
/// assert_eq!(element_offsets(&layout, root, 4).unwrap().element_text(), "6 + 14*ndim + 5*i"); // blockshape
/// assert!(element_offsets(&layout, root, 1).is_none()); // ndim is no array
/// ```
pub fn element_offsets(layout: &Layout, record: &Record, index: usize) -> Option<ElementOffsets> {
    check_index(record, index, false);
    let Type::Array(a) = &record.entries[index].node.ty else {
        return None;
    };
    let stride = size::of(layout, &a.element, &Place::root()).as_constant()?;
    Some(ElementOffsets {
        first: value_offset_formula(layout, record, index)?,
        stride,
        marker_len: value_prefix(layout, &a.element, None, None)?,
    })
}

/// The index of the first entry whose offset is not a linear formula, and why: the entry before
/// it (`None` for the header) and that entry's size.
fn linear_until(layout: &Layout, record: &Record) -> Option<(usize, Option<usize>, Size)> {
    let header = size::record_header(record, &Place::root());
    if !header.is_linear() {
        return Some((0, None, header));
    }
    for (i, _) in record.entries.iter().enumerate() {
        let s = size::of_entry(layout, record, i, &Place::root());
        if !s.is_linear() {
            return Some((i + 1, Some(i), s));
        }
    }
    None
}

/// The name of the record: the metalayer's for the top-level record, else its type's.
fn record_title(layout: &Layout, record: &Record) -> String {
    match layout.types.iter().find(|t| core::ptr::eq(&t.record, record)) {
        Some(t) if !layout.root_record().is_some_and(|r| core::ptr::eq(r, record)) => {
            format!("the `{}` record of `{}` ({})", t.name, layout.metalayer, layout.schema)
        }
        _ => format!("`{}` ({})", layout.metalayer, layout.schema),
    }
}

fn record_wire(record: &Record) -> String {
    match record.header {
        Encoding::Fixed(w) => w.name().into(),
        Encoding::Canonical { .. } => record.form.name().into(),
    }
}

/// A table of every entry's offset, size and value offset (see the module docs for what each
/// points at), with a row per array's elements and the total length, for documentation. Where
/// offsets stop being formulas, the table says why; where the sizes use more than counts and
/// lengths, it explains the notation.
///
/// ```
/// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
/// let table = metalayer_layout::formulas(&layout, layout.root_record().unwrap());
/// assert!(table.lines().any(|l| l.split_whitespace().eq(["shape[i]", "int64", "4", "+", "9*i", "9", "5", "+", "9*i"])));
/// assert!(table.lines().last().unwrap().ends_with("12 + 19*ndim + len(dtype)"));
/// ```
pub fn formulas(layout: &Layout, record: &Record) -> String {
    let length = size::of_record(layout, record, &Place::root());
    let mut rows = formula_rows(layout, record);
    rows.push([
        "(total)".into(),
        String::new(),
        String::new(),
        length.to_string(),
        String::new(),
    ]);
    let mut out = format!(
        "Offsets and sizes in bytes of {}; i is an element index, len(x) the byte length of string x.\n\n",
        record_title(layout, record)
    );
    out.push_str(&aligned(&rows));
    let notes = formula_notes(layout, record, &length);
    if !notes.is_empty() {
        out.push('\n');
        for n in notes {
            out.push_str(&n);
            out.push('\n');
        }
    }
    out
}

/// The rows of [`formulas`]' table before the total: the header row, the container, and per
/// entry its row and, for an array, its elements' row.
fn formula_rows(layout: &Layout, record: &Record) -> Vec<[String; 5]> {
    let dash = || "-".to_string();
    let text = |s: Option<Size>| s.map_or_else(dash, |s| s.to_string());
    let header = size::record_header(record, &Place::root());
    let mut rows: Vec<[String; 5]> = vec![
        ["entry", "wire", "offset", "size", "value at"].map(String::from),
        [
            "(container)".into(),
            record_wire(record),
            "0".into(),
            header.to_string(),
            dash(),
        ],
    ];
    for (i, entry) in record.entries.iter().enumerate() {
        let compound = matches!(
            entry.node.ty,
            Type::Array(_) | Type::Map(_) | Type::Record(_) | Type::Ref(_)
        );
        let name = if entry.optional {
            format!("{} (optional)", entry.name)
        } else {
            entry.name.clone()
        };
        rows.push([
            name,
            entry.wire_name(layout),
            text(offset_formula(layout, record, i)),
            size_formula(layout, record, i).to_string(),
            if compound {
                dash()
            } else {
                text(value_offset_formula(layout, record, i))
            },
        ]);
        if let (Type::Array(a), Some(el)) = (&entry.node.ty, element_offsets(layout, record, i)) {
            rows.push([
                format!("{}[i]", entry.name),
                a.element.wire_name(layout),
                el.element_text(),
                el.stride.to_string(),
                el.payload_text(),
            ]);
        }
    }
    rows
}

/// `rows` as lines of columns, each as wide as its widest cell plus two spaces.
fn aligned(rows: &[[String; 5]]) -> String {
    let mut widths = [0; 5];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (cell, w) in row.iter().zip(widths) {
            let pad = w - cell.chars().count();
            line.push_str(cell);
            line.push_str(&" ".repeat(pad + 2));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// What [`formulas`]' table needs said below it: where offsets stop being formulas, which
/// entries are optional, and the notation of sizes that are not linear.
fn formula_notes(layout: &Layout, record: &Record, length: &Size) -> Vec<String> {
    let mut notes = Vec::new();
    match linear_until(layout, record) {
        Some((_, None, header)) => notes.push(format!(
            "Offsets depend on the values from the first entry on: the header takes {header} bytes."
        )),
        Some((_, Some(i), s)) if i + 1 < record.entries.len() => notes.push(format!(
            "Offsets after `{}` depend on the values: it takes {s} bytes.",
            record.entries[i].name
        )),
        _ => {}
    }
    let optional = quoted_names(&record.entries[record.required.min(record.entries.len())..]);
    if !optional.is_empty() {
        notes.push(format!(
            "Optional entries ({}) are written only when present; the header counts the entries written.{}",
            optional.join(", "),
            together_note(record)
        ));
    }
    if !length.is_linear() {
        notes.push(NOTATION.into());
    }
    notes
}

const NOTATION: &str = "int(x) is the size of the smallest int encoding of x (1, 2, 3, 5 or 9 bytes), hdr(x) \
the size of the smallest header for x's length or count, Σ(...) a sum over x[i] (or a map's pairs, \
x[i].key and x[i].value), size(x) the size of record x, and [present(x)] 1 when the optional entry x \
is present, else 0.";

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

    fn plain(label: impl Into<String>) -> Cell {
        Cell {
            head: Head::Plain,
            label: label.into(),
            min_width: 0,
            note: None,
        }
    }

    fn noted(mut self, note: impl Into<String>) -> Cell {
        self.note = Some(note.into());
        self
    }

    fn width(&self) -> usize {
        let head = match &self.head {
            Head::Byte(Some(o)) => o.to_string().len() + 2,
            Head::Sized(text) => text.len() + 3,
            Head::Byte(None) | Head::Plain | Head::Span => 0,
        };
        // A byte cell's label sits flush right (` 9X`); wider cells keep a space after it.
        let margin = if matches!(self.head, Head::Byte(_)) { 1 } else { 2 };
        self.min_width.max(self.label.chars().count() + margin).max(head)
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
    // Columns count characters: labels may hold any text.
    let mut col = 1;
    for (cell, &w) in cells.iter().zip(&widths) {
        if let Some(note) = &cell.note {
            carets.push((col + 1, note.as_str()));
        }
        let (t, b) = match &cell.head {
            Head::Byte(Some(o)) => (format!("{:-<w$}", format!("-{o}-")), "-".repeat(w)),
            Head::Sized(text) => (format!("{:-<w$}", format!("--{text}")), "-".repeat(w)),
            Head::Byte(None) | Head::Plain => ("-".repeat(w), "-".repeat(w)),
            Head::Span => ("~".repeat(w), "~".repeat(w)),
        };
        top.push_str(&t);
        top.push('|');
        let label = format!(" {}", cell.label);
        let pad = w.saturating_sub(label.chars().count());
        mid.push_str(&label);
        mid.push_str(&" ".repeat(pad));
        mid.push('|');
        bottom.push_str(&b);
        bottom.push('|');
        col += w + 1;
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

/// The widest row [`draw_rows`] draws before it starts another.
const MAX_ROW: usize = 120;

/// Draws groups of cells (the header, each entry with its key) as rows of at most [`MAX_ROW`]
/// characters, a group never split; a blank line between rows.
fn draw_rows(groups: Vec<Vec<Cell>>, container: bool, out: &mut String) {
    let mut rows: Vec<Vec<Cell>> = vec![Vec::new()];
    let mut width = 1;
    for group in groups {
        let mut w = 0;
        for c in &group {
            w += c.width() + 1;
        }
        if rows.last().is_some_and(|r| !r.is_empty()) && width + w > MAX_ROW {
            rows.push(Vec::new());
            width = 1;
        }
        width += w;
        if let Some(row) = rows.last_mut() {
            row.extend(group);
        }
    }
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        draw(row, container && i == 0, out);
    }
}

/// The wire an integer is written with, when the schema or its values fix it: the fixed wire
/// type, or for a canonical integer the one smallest wire type every allowed value takes.
fn int_wire(t: &IntType, role: Option<&Role>) -> Option<Wire> {
    match (t.encoding, role) {
        (Encoding::Fixed(w), _) => Some(w),
        (Encoding::Canonical { .. }, Some(Role::Const(Const::Int(v)))) => Wire::smallest_int(*v),
        (Encoding::Canonical { .. }, _) => {
            if t.values.is_empty() {
                // Wire types follow the value's magnitude on each side of zero.
                let (a, b) = (Wire::smallest_int(t.min)?, Wire::smallest_int(t.max)?);
                (a == b && (t.min >= 0 || t.max < 0)).then_some(a)
            } else {
                let first = Wire::smallest_int(t.values[0].1)?;
                t.values
                    .iter()
                    .all(|&(_, v)| Wire::smallest_int(v) == Some(first))
                    .then_some(first)
            }
        }
    }
}

/// The wire a string, bin or ext is written with, when the schema or its constant fixes it.
fn bytes_wire(enc: Encoding, family: Family, role: Option<&Role>, len: Option<usize>) -> Option<Wire> {
    match (enc, role, len) {
        (Encoding::Fixed(w), _, _) => Some(w),
        (Encoding::Canonical { .. }, Some(Role::Const(Const::Bytes(b))), _) => {
            Wire::smallest_len(family, b.len() as u64)
        }
        // A fixed length (`len`) has one smallest header.
        (Encoding::Canonical { .. }, _, Some(n)) => Wire::smallest_len(family, n as u64),
        _ => None,
    }
}

/// msgpack's name of an integer wire type in annotations.
/// Each entry's name in backquotes.
fn quoted_names(entries: &[Entry]) -> Vec<String> {
    let mut names = Vec::with_capacity(entries.len());
    for e in entries {
        names.push(format!("`{}`", e.name));
    }
    names
}

/// The names of `wires`, separated by commas.
pub(crate) fn wire_list(wires: &[Wire]) -> String {
    let mut list = String::new();
    for w in wires {
        if !list.is_empty() {
            list.push_str(", ");
        }
        list.push_str(w.name());
    }
    list
}

fn int_wire_name(w: Wire) -> &'static str {
    match w {
        Wire::PosFixInt => "positive fixint",
        Wire::NegFixInt => "negative fixint",
        other => other.name(),
    }
}

/// `an int64`, `a uint32`, `an array`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o']) {
        "an"
    } else {
        "a"
    }
}

/// Where a value is drawn: the entry it is the value of (name, doc and role), or an element.
struct Slot<'a> {
    /// The cell's name: the entry's name, or `tags[i]` for an element.
    name: String,
    entry: Option<&'a Entry>,
    /// The record the entry belongs to, for counts.
    record: Option<&'a Record>,
}

impl<'a> Slot<'a> {
    fn entry(entry: &'a Entry, record: &'a Record) -> Slot<'a> {
        Slot {
            name: entry.name.clone(),
            entry: Some(entry),
            record: Some(record),
        }
    }

    /// A part of an entry's value (an element, a key, a value) of `record`, whose count entries
    /// count the arrays and maps nested in its entries.
    fn part(name: String, record: Option<&'a Record>) -> Slot<'a> {
        Slot {
            name,
            entry: None,
            record,
        }
    }

    fn role(&self) -> Option<&'a Role> {
        self.entry.map(|e| &e.role)
    }

    fn constant(&self) -> Option<&'a Const> {
        match self.role() {
            Some(Role::Const(c)) => Some(c),
            _ => None,
        }
    }

    fn count_entry(&self, count: &Count) -> Option<&'a Entry> {
        match count {
            Count::Entry(c) => self.record.and_then(|r| r.entries.get(*c)),
            _ => None,
        }
    }

    /// ` for the number of dimensions`, from the doc; for a count without doc, the arrays it
    /// counts.
    fn purpose(&self) -> String {
        let Some(entry) = self.entry else {
            return String::new();
        };
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
        if let (Role::Count { of }, Some(record)) = (&entry.role, self.record) {
            let mut names = Vec::new();
            for &a in of {
                if let Some(e) = record.entries.get(a) {
                    names.push(e.name.as_str());
                }
            }
            if !names.is_empty() {
                return format!(" for the length of {}", names.join(", "));
            }
        }
        String::new()
    }

    /// `name`, `name, optional`: what an annotation's parentheses start with.
    fn tag(&self) -> String {
        match self.entry {
            Some(e) if e.optional => format!("{}, optional", self.name),
            _ => self.name.clone(),
        }
    }
}

/// How a count is written in `X=nd`: a fixint count's first two letters (`nd` for `ndim`, as the
/// seeds write it), another count's name.
fn count_symbol(entry: &Entry) -> String {
    match &entry.node.ty {
        Type::Int(t) if int_wire(t, None) == Some(Wire::PosFixInt) => entry.name.chars().take(2).collect(),
        _ => entry.name.clone(),
    }
}

/// The label of a one-byte cell: a name of up to 2 letters, else `v` for a constant (its first
/// letter), the count's symbol, `XX` for a value.
fn byte_label(slot: &Slot<'_>) -> String {
    if slot.name.chars().count() <= 2 {
        return slot.name.clone();
    }
    match (slot.entry, slot.role()) {
        (Some(e), Some(Role::Const(_))) => e.name.chars().next().map_or("v".into(), String::from),
        (Some(e), Some(Role::Count { .. })) => count_symbol(e),
        _ => "XX".into(),
    }
}

/// `0..=16`, `always 0`, `0..=9: fast = 1, best = 9`, `any int64 or uint64`.
fn int_range(t: &IntType, role: Option<&Role>) -> String {
    if let Some(Role::Const(Const::Int(v))) = role {
        return format!("always {v}");
    }
    let range = if t.encoding.wire().is_none() && t.min == i128::from(i64::MIN) && t.max == i128::from(u64::MAX) {
        "any int64 or uint64".to_string()
    } else {
        format!("{}..={}", t.min, t.max)
    };
    if t.values.is_empty() {
        return range;
    }
    let mut values = t.values.clone();
    crate::order::sort_by_key(&mut values, &|&(_, v)| v);
    let mut text = format!("{range}: ");
    for (k, (n, v)) in values.iter().enumerate() {
        if k > 0 {
            text.push_str(", ");
        }
        text.push_str(&format!("{n} = {v}"));
    }
    text
}

fn const_text(c: &Const) -> String {
    match c {
        Const::Nil => "nil".into(),
        Const::Bool(b) => b.to_string(),
        Const::Int(v) => v.to_string(),
        Const::Float(f) => format!("{f:?}"),
        Const::Bytes(b) => match core::str::from_utf8(b) {
            Ok(s) => format!("{s:?}"),
            Err(_) => format!("{b:02x?}"),
        },
    }
}

/// The annotation of a value: `int64 for the shape (shape, always 0)`.
fn note(slot: &Slot<'_>, what: &str, detail: Option<String>) -> String {
    let mut inside = slot.tag();
    match (slot.constant(), detail) {
        (Some(c), _) => inside.push_str(&format!(", always {}", const_text(c))),
        (None, Some(d)) => inside.push_str(&format!(", {d}")),
        (None, None) => {}
    }
    format!("{what}{} ({inside})", slot.purpose())
}

/// The annotation of an array's or map's header: `fixarray with X=nd elements`, and where the
/// header leaves the fixarray range, the bytes it becomes.
fn header_note(slot: &Slot<'_>, family: Family, header: Encoding, count: &Count) -> String {
    let unit = if family == Family::Map { "pairs" } else { "elements" };
    let count_entry = slot.count_entry(count);
    let symbol = match (count, count_entry) {
        (Count::Fixed(n), _) => n.to_string(),
        (Count::Entry(_), Some(e)) => count_symbol(e),
        (Count::Entry(_), None) => "count".into(),
        (Count::Header, _) => "X".into(),
    };
    let mut note = match (header, count) {
        (Encoding::Fixed(w), Count::Fixed(_)) => format!("{} with {symbol} {unit}", w.name()),
        (Encoding::Fixed(w), _) if w.marker().is_none() => format!("{} with X={symbol} {unit}", w.name()),
        (Encoding::Fixed(w), _) => format!("{} with {symbol} {unit}", w.name()),
        (Encoding::Canonical { .. }, _) => {
            format!(
                "{} header with {symbol} {unit}: the smallest of {}",
                family.name(),
                wire_list(family.wires())
            )
        }
    };
    if let (Encoding::Fixed(Wire::FixArray), Some(e)) = (header, count_entry)
        && let Type::Int(t) = &e.node.ty
        && t.max >= 16
    {
        let max = t.max;
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

/// The name of a record type, or `record`.
fn type_name(layout: &Layout, ty: usize) -> String {
    layout.types.get(ty).map_or_else(|| "record".into(), |t| t.name.clone())
}

/// `a positive fixint`, `an int64`, `a str`, `an `operand` record`.
fn describe(layout: &Layout, node: &Node) -> String {
    let what = match &node.ty {
        Type::Int(t) => int_wire(t, None).map_or_else(|| "int".into(), |w| int_wire_name(w).into()),
        Type::Ref(i) => {
            let name = type_name(layout, *i);
            return format!("{} `{name}` record", article(&name));
        }
        Type::Record(_) => "record".into(),
        _ => node.wire_name(layout),
    };
    format!("{} {what}", article(&what))
}

/// The cells of a value (top row or final section, an element, a key).
fn value_cells(
    layout: &Layout,
    node: &Node,
    slot: &Slot<'_>,
    offset: Option<usize>,
    detailed: bool,
    cells: &mut Vec<Cell>,
) {
    match &node.ty {
        Type::Nil => cells.push(Cell::byte("c0", offset, note(slot, "nil", None))),
        Type::Bool => bool_cells(slot, offset, cells),
        Type::Int(t) => int_cells(t, slot, offset, cells),
        Type::Float(w) => float_cells(*w, slot, offset, cells),
        Type::Str(t) => bytes_cells(slot, (t.encoding, t.len), Family::Str, offset, detailed, cells),
        Type::Bin(b) => bytes_cells(slot, (b.encoding, b.len), Family::Bin, offset, detailed, cells),
        Type::Ext(t) => ext_cells(t, slot, offset, detailed, cells),
        Type::Array(a) => sequence_cells(slot, Family::Array, a.header, &a.count, offset, cells),
        Type::Map(m) => sequence_cells(slot, Family::Map, m.header, &m.count, offset, cells),
        Type::Record(r) => noted_span(
            slot,
            &format!("{} record of {} entries", record_wire(r), r.entries.len()),
            cells,
        ),
        Type::Ref(i) => noted_span(
            slot,
            &format!("`{}` record, drawn in its own section", type_name(layout, *i)),
            cells,
        ),
    }
}

/// One cell spanning the whole value, with a note saying what it is.
fn noted_span(slot: &Slot<'_>, what: &str, cells: &mut Vec<Cell>) {
    cells.push(Cell::span(&slot.name).noted(note(slot, what, None)));
}

/// A bool's one byte: its value for a constant.
fn bool_cells(slot: &Slot<'_>, offset: Option<usize>, cells: &mut Vec<Cell>) {
    let label = match slot.constant() {
        Some(Const::Bool(true)) => "c3".to_string(),
        Some(Const::Bool(false)) => "c2".to_string(),
        _ => byte_label(slot),
    };
    let what = if slot.constant().is_some() {
        "bool"
    } else {
        "bool: c2 false, c3 true"
    };
    cells.push(Cell::byte(label, offset, note(slot, what, None)));
}

/// An integer's cells: a fixint's one byte, a fixed wire type's marker and payload, or one
/// cell for the smallest encoding; the note states the range (a constant's value too).
fn int_cells(t: &IntType, slot: &Slot<'_>, offset: Option<usize>, cells: &mut Vec<Cell>) {
    let name = &slot.name;
    let range = int_range(t, slot.role());
    let Some(w) = int_wire(t, slot.role()) else {
        let n = format!(
            "int, the smallest encoding: 1, 2, 3, 5 or 9 bytes{} ({}, {})",
            slot.purpose(),
            slot.tag(),
            range
        );
        cells.push(Cell::span(name).noted(n));
        return;
    };
    let what = match t.encoding {
        Encoding::Fixed(_) => int_wire_name(w).to_string(),
        Encoding::Canonical { .. } => {
            let name = int_wire_name(w);
            format!("int, always {} {name}", article(name))
        }
    };
    let n = format!("{what}{} ({}, {})", slot.purpose(), slot.tag(), range);
    match w.marker() {
        None => {
            let label = match slot.constant() {
                Some(Const::Int(v)) if slot.name.chars().count() > 2 && w == Wire::NegFixInt => {
                    format!("{:02x}", *v as u8)
                }
                _ => byte_label(slot),
            };
            cells.push(Cell::byte(label, offset, n));
        }
        Some(marker) => {
            cells.push(Cell::byte(format!("{marker:02x}"), offset, n));
            cells.push(Cell::sized(name, w.width()));
        }
    }
}

/// A float's marker and payload.
fn float_cells(w: Wire, slot: &Slot<'_>, offset: Option<usize>, cells: &mut Vec<Cell>) {
    cells.push(Cell::byte(
        format!("{:02x}", w.marker().unwrap_or(0)),
        offset,
        note(slot, w.name(), None),
    ));
    cells.push(Cell::sized(&slot.name, w.width()));
}

/// An ext's cells: marker, length, type and data as its encoding has them.
fn ext_cells(t: &ExtType, slot: &Slot<'_>, offset: Option<usize>, detailed: bool, cells: &mut Vec<Cell>) {
    let name = &slot.name;
    let ty = t
        .ext_type
        .map_or_else(|| "tt".to_string(), |b| format!("{:02x}", b as u8));
    let type_note = t
        .ext_type
        .map_or_else(|| "the ext type byte".to_string(), |b| format!("ext type {b}"));
    if t.timestamp {
        return timestamp_cells(t, slot, offset, cells);
    }
    let Encoding::Fixed(w) = t.encoding else {
        let what = "ext with the smallest header: fixext1..fixext16 (marker, type) or ext8, ext16, ext32 (marker, length, type)";
        if detailed {
            cells.push(Cell::span(format!("{name}_header")).noted(note(slot, what, None)));
            cells.push(Cell::plain(format!("{name}_data")));
        } else {
            cells.push(Cell::span(name).noted(note(slot, what, None)));
        }
        return;
    };
    let marker = w.marker().unwrap_or(0);
    cells.push(Cell::byte(format!("{marker:02x}"), offset, note(slot, w.name(), None)));
    match w.fixext_len() {
        Some(n) => {
            cells.push(Cell::byte(ty, None, type_note));
            cells.push(Cell::sized(name, n));
        }
        None if detailed => {
            cells.push(Cell::sized(format!("{name}_len"), w.width()));
            cells.push(Cell::byte(ty, None, type_note));
            cells.push(Cell::plain(format!("{name}_data")));
        }
        None => cells.push(Cell::span(name)),
    }
}

/// A timestamp's cells: its marker, the type byte ff and the data of its form, or, canonical,
/// one cell for the smallest form.
fn timestamp_cells(t: &ExtType, slot: &Slot<'_>, offset: Option<usize>, cells: &mut Vec<Cell>) {
    let name = &slot.name;
    let Encoding::Fixed(w) = t.encoding else {
        let what = "timestamp (ext -1) in the smallest of its forms: d6 ff and 4 bytes of seconds, d7 ff and 8 bytes of nanoseconds and seconds, or c7 0c ff and 12 bytes";
        cells.push(Cell::span(name).noted(note(slot, what, None)));
        return;
    };
    let marker = w.marker().unwrap_or(0);
    cells.push(Cell::byte(
        format!("{marker:02x}"),
        offset,
        note(slot, t.wire_name(), None),
    ));
    let len = metalayer_runtime::Timestamp::data_len(w);
    if w.fixext_len().is_none() {
        cells.push(Cell::byte(format!("{len:02x}"), None, "12 bytes of data"));
    }
    cells.push(Cell::byte("ff", None, "ext type -1, a timestamp"));
    cells.push(Cell::sized(name, len));
}

/// An array's or map's header cells, then one cell for its elements.
fn sequence_cells(
    slot: &Slot<'_>,
    family: Family,
    header: Encoding,
    count: &Count,
    offset: Option<usize>,
    cells: &mut Vec<Cell>,
) {
    header_cells(slot, family, header, count, offset, cells);
    cells.push(Cell::span(&slot.name));
}

/// An array's or map's header cells.
fn header_cells(
    slot: &Slot<'_>,
    family: Family,
    header: Encoding,
    count: &Count,
    offset: Option<usize>,
    cells: &mut Vec<Cell>,
) {
    let note = header_note(slot, family, header, count);
    let base = if family == Family::Map { 0x80 } else { 0x90 };
    let fix_label = |count: &Count| match count {
        Count::Fixed(n) if *n <= 15 => format!("{:02x}", base + n),
        _ => format!("{:X}X", base >> 4),
    };
    match header {
        Encoding::Fixed(w) => match w.marker() {
            None => cells.push(Cell::byte(fix_label(count), offset, note)),
            Some(m) => {
                cells.push(Cell::byte(format!("{m:02x}"), offset, note));
                cells.push(Cell::sized("count", w.width()));
            }
        },
        Encoding::Canonical { .. } => {
            // One byte whenever the count stays within the fix range.
            let max = match (count, slot.count_entry(count).map(|e| &e.node.ty)) {
                (Count::Fixed(n), _) => Some(*n as i128),
                (Count::Entry(_), Some(Type::Int(t))) => Some(t.max),
                _ => None,
            };
            if max.is_some_and(|m| m <= 15) {
                cells.push(Cell::byte(fix_label(count), offset, note));
            } else {
                cells.push(Cell::span("header").noted(note));
            }
        }
    }
}

/// A string's or bin's cells: marker (and length), text.
fn bytes_cells(
    slot: &Slot<'_>,
    (enc, len): (Encoding, Option<usize>),
    family: Family,
    offset: Option<usize>,
    detailed: bool,
    cells: &mut Vec<Cell>,
) {
    let name = &slot.name;
    let body = if family == Family::Str { "string" } else { "bytes" };
    let text_cell = || match slot.constant() {
        Some(c) => Cell::plain(const_text(c)),
        None => Cell::plain(format!("{name}_{body}")),
    };
    match bytes_wire(enc, family, slot.role(), len) {
        Some(w) => {
            let what = match enc {
                Encoding::Fixed(_) => w.name().to_string(),
                Encoding::Canonical { .. } => format!("{}, always {} {}", family.name(), article(w.name()), w.name()),
            };
            let what = match len {
                Some(n) => format!("{what} of exactly {n} bytes"),
                None => what,
            };
            // A string field's note is its wire type alone, as the seeds write it.
            let n = if slot.constant().is_some() || slot.entry.is_some_and(|e| e.optional) {
                note(slot, &what, None)
            } else {
                what
            };
            match w.marker() {
                Some(marker) => {
                    cells.push(Cell::byte(format!("{marker:02x}"), offset, n));
                    if detailed {
                        cells.push(Cell::sized(format!("{name}_len"), w.width()));
                        cells.push(text_cell());
                    } else {
                        cells.push(Cell::span(name));
                    }
                }
                None => {
                    // fixstr: the length is in the marker.
                    let known = match slot.constant() {
                        Some(Const::Bytes(b)) => Some(b.len()),
                        _ => len,
                    };
                    let label = match known.and_then(|n| encoding::header_bytes(w, n).first().copied()) {
                        Some(marker) => format!("{marker:02x}"),
                        None => "aX".into(),
                    };
                    let n = if known.is_some() {
                        n
                    } else {
                        format!("{n} with X=len({name})")
                    };
                    cells.push(Cell::byte(label, offset, n));
                    cells.push(if detailed { text_cell() } else { Cell::span(name) });
                }
            }
        }
        None => {
            let what = format!(
                "{} with the smallest header for its length: {}",
                family.name(),
                wire_list(family.wires())
            );
            if detailed {
                cells.push(Cell::span(format!("{name}_header")).noted(note(slot, &what, None)));
                cells.push(text_cell());
            } else {
                cells.push(Cell::span(name).noted(note(slot, &what, None)));
            }
        }
    }
}

/// The word after `first_` in element labels: `dim` for a count named `ndim`, else `elem`.
fn element_word(count_entry: Option<&Entry>) -> String {
    match count_entry.and_then(|e| e.name.strip_prefix('n')) {
        Some(rest) if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_lowercase()) => rest.to_string(),
        _ => "elem".into(),
    }
}

/// The one wire type a scalar element is always written with, and whether it is a one-byte value
/// (a fixint, a bool, nil) rather than a marker and a payload.
fn scalar_element(node: &Node) -> Option<(Wire, String)> {
    match &node.ty {
        Type::Int(t) => int_wire(t, None).map(|w| (w, int_wire_name(w).to_string())),
        Type::Float(w) => Some((*w, w.name().to_string())),
        Type::Bool => Some((Wire::Bool, "bool".into())),
        Type::Nil => Some((Wire::Nil, "nil".into())),
        _ => None,
    }
}

fn indent(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    let mut out = String::with_capacity(text.len());
    for l in text.lines() {
        if !l.is_empty() {
            out.push_str(&pad);
            out.push_str(l);
        }
        out.push('\n');
    }
    out
}

/// The block of an array's or map's elements, and the blocks of their own parts, indented.
fn sequence_block<'n>(layout: &Layout, node: &'n Node, slot: &Slot<'n>, depth: usize, out: &mut String) {
    let count = match &node.ty {
        Type::Array(a) => &a.count,
        Type::Map(m) => &m.count,
        _ => return,
    };
    let count_entry = slot.count_entry(count);
    let symbol = match (count, count_entry) {
        (Count::Fixed(n), _) => n.to_string(),
        (Count::Entry(_), Some(e)) => count_symbol(e),
        (Count::Entry(_), None) => "count".into(),
        (Count::Header, _) => "X".into(),
    };
    let doc = slot
        .entry
        .and_then(|e| e.doc.as_deref())
        .map_or(String::new(), |d| format!(", {d}"));
    let section = Section {
        name: &slot.name,
        doc,
        symbol,
    };
    let mut block = String::new();
    let nested = match &node.ty {
        Type::Array(a) => match scalar_element(&a.element) {
            Some((wire, wire_name)) => {
                scalar_elements_block(&section, wire, &wire_name, &element_word(count_entry), &mut block);
                Vec::new()
            }
            None => elements_block(layout, &section, a, slot.record, &mut block),
        },
        Type::Map(m) => pairs_block(layout, &section, m, slot.record, &mut block),
        _ => Vec::new(),
    };
    for (node, part) in nested {
        if matches!(node.ty, Type::Array(_) | Type::Map(_)) {
            block.push('\n');
            sequence_block(layout, node, &part, 1, &mut block);
        }
    }
    out.push_str(&indent(&block, 4 * depth));
}

/// What the first line of an array's or map's block says: its name, the entry's doc (`, the
/// shape`) and its number of elements or pairs (a count's symbol, a fixed number, `X`).
struct Section<'s> {
    name: &'s str,
    doc: String,
    symbol: String,
}

/// The block of an array of scalars, drawn as the seeds draw it: first, second, ..., nth,
/// named `<ordinal>_<word>`.
fn scalar_elements_block(section: &Section<'_>, wire: Wire, wire_name: &str, word: &str, block: &mut String) {
    let Section { name, doc, symbol } = section;
    let size = wire.header_size();
    let bytes = if size == 1 {
        "1 byte".to_string()
    } else {
        format!("{size} bytes")
    };
    block.push_str(&format!(
        "The `{name}` section{doc}: {symbol} elements, each {} {wire_name} of {bytes}:\n\n",
        article(wire_name)
    ));
    // All element cells as wide as the widest label, as in the seeds.
    let width = ["first", "second", "nth"]
        .iter()
        .map(|o| o.len() + word.len() + 3)
        .max()
        .unwrap_or(0);
    let marker = match wire {
        Wire::Bool | Wire::Nil => None,
        w => w.marker(),
    };
    let mut cells = Vec::new();
    for ordinal in ["first", "second", "", "nth"] {
        if ordinal.is_empty() {
            cells.push(Cell {
                head: Head::Span,
                label: "...".into(),
                min_width: 5,
                note: None,
            });
            continue;
        }
        let label = format!("{ordinal}_{word}");
        if let Some(marker) = marker {
            cells.push(Cell::byte(format!("{marker:02x}"), None, wire.name()));
        }
        let mut cell = Cell::sized(label, if marker.is_some() { wire.width() } else { 1 });
        cell.min_width = cell.min_width.max(width);
        if marker.is_none() {
            cell.note = Some(wire_name.to_string());
        }
        cells.push(cell);
    }
    draw(&cells, false, block);
}

/// The block of an array of compound or string elements: what an element is, and its cells
/// unless it is a record type, drawn in its own section. The element, for its own block.
fn elements_block<'n>(
    layout: &Layout,
    section: &Section<'_>,
    a: &'n ArrayType,
    record: Option<&'n Record>,
    block: &mut String,
) -> Vec<(&'n Node, Slot<'n>)> {
    let Section { name, doc, symbol } = section;
    block.push_str(&format!(
        "The `{name}` section{doc}: {symbol} elements, each {}",
        describe(layout, &a.element)
    ));
    let element = Slot::part(format!("{name}[i]"), record);
    if let Type::Ref(_) = a.element.ty {
        block.push_str(".\n");
    } else {
        block.push_str(":\n\n");
        let mut cells = Vec::new();
        value_cells(layout, &a.element, &element, None, true, &mut cells);
        draw(&cells, false, block);
    }
    vec![(&*a.element, element)]
}

/// The block of a map: what its keys and values are, and their cells. The key and the value,
/// for their own blocks.
fn pairs_block<'n>(
    layout: &Layout,
    section: &Section<'_>,
    m: &'n MapType,
    record: Option<&'n Record>,
    block: &mut String,
) -> Vec<(&'n Node, Slot<'n>)> {
    let Section { name, doc, symbol } = section;
    block.push_str(&format!(
        "The `{name}` section{doc}: {symbol} pairs, each a key, {}, and a value, {}:\n\n",
        describe(layout, &m.key),
        describe(layout, &m.value)
    ));
    let key = Slot::part(format!("{name}[i].key"), record);
    let value = Slot::part(format!("{name}[i].value"), record);
    let mut cells = Vec::new();
    value_cells(layout, &m.key, &key, None, true, &mut cells);
    value_cells(layout, &m.value, &value, None, true, &mut cells);
    draw(&cells, false, block);
    vec![(&*m.key, key), (&*m.value, value)]
}

/// Whether a value gets a block of its own parts, or is drawn in its own section.
fn is_compound(node: &Node) -> bool {
    matches!(node.ty, Type::Array(_) | Type::Map(_) | Type::Record(_) | Type::Ref(_))
}

/// Whether a value has a text of variable length, drawn in its own block or the final section.
fn is_stringy(node: &Node) -> bool {
    matches!(node.ty, Type::Str(_) | Type::Bin(_))
        || matches!(&node.ty, Type::Ext(t) if !matches!(t.encoding, Encoding::Fixed(w) if w.fixext_len().is_some()))
}

/// The record's header cell, with its note.
fn record_header_cells(record: &Record, cells: &mut Vec<Cell>) {
    let unit = if record.form == Family::Map {
        "entries"
    } else {
        "elements"
    };
    let total = record.entries.len();
    let required = record.required.min(total);
    let x = if required == total {
        total.to_string()
    } else {
        format!("{required}..={total}")
    };
    let base = if record.form == Family::Map { 0x80 } else { 0x90 };
    let fix = |w: &str, extra: &str| format!("{w} with X={x} {unit}{extra}");
    match record.header {
        Encoding::Fixed(w) => match w.marker() {
            None => cells.push(Cell::byte(format!("{:X}X", base >> 4), Some(0), fix(w.name(), ""))),
            Some(m) => {
                cells.push(Cell::byte(
                    format!("{m:02x}"),
                    Some(0),
                    format!("{} with {x} {unit}", w.name()),
                ));
                cells.push(Cell::sized("count", w.width()));
            }
        },
        Encoding::Canonical { .. } => {
            let small = if record.form == Family::Map {
                "fixmap"
            } else {
                "fixarray"
            };
            if total <= 15 {
                cells.push(Cell::byte(
                    format!("{:X}X", base >> 4),
                    Some(0),
                    fix(small, &format!(" ({}, the smallest header)", record.form.name())),
                ));
            } else {
                cells.push(Cell::span("header").noted(format!(
                    "{} header with {x} {unit}, the smallest for the count",
                    record.form.name()
                )));
            }
        }
    }
}

/// A map record's key cell: `a5 "scale"`.
fn key_cell(key: &str) -> Cell {
    let marker = encoding::key_bytes(key).first().copied().unwrap_or_default();
    Cell::sized(format!("{marker:02x} {key:?}"), metalayer_runtime::key_size(key))
}

/// The cells of entry `i`: its key in a map record, then its value.
fn entry_cells(layout: &Layout, record: &Record, i: usize, detailed: bool, cells: &mut Vec<Cell>) {
    let e = &record.entries[i];
    let mut offset = offset_formula(layout, record, i).and_then(|f| f.as_constant());
    if let Some(k) = &e.key {
        cells.push(key_cell(k));
        offset = offset.map(|o| o + metalayer_runtime::key_size(k));
    }
    value_cells(layout, &e.node, &Slot::entry(e, record), offset, detailed, cells);
}

/// A record's rows and blocks: the top row, the blocks of its arrays, maps and strings, and the
/// final section.
fn record_body(layout: &Layout, record: &Record, out: &mut String) {
    let entries = &record.entries;
    // The final section: everything after the last compound entry if that holds a string;
    // without compound entries, everything from the first string on.
    let tail_start = match entries.iter().rposition(|e| is_compound(&e.node)) {
        Some(last) if entries[last + 1..].iter().any(|e| is_stringy(&e.node)) => last + 1,
        Some(_) => entries.len(),
        None => entries
            .iter()
            .position(|e| is_stringy(&e.node))
            .unwrap_or(entries.len()),
    };

    // A record whose first entry is a string is drawn in one detailed row.
    let (top_end, detailed) = if tail_start == 0 && !entries.is_empty() {
        (entries.len(), true)
    } else {
        (tail_start, false)
    };
    let mut header = Vec::new();
    record_header_cells(record, &mut header);
    let mut groups = vec![header];
    for i in 0..top_end {
        let mut cells = Vec::new();
        entry_cells(layout, record, i, detailed, &mut cells);
        groups.push(cells);
    }
    draw_rows(groups, true, out);
    top_row_blocks(layout, record, top_end, detailed, out);
    final_section(layout, record, top_end, out);

    let optional = quoted_names(&entries[record.required.min(entries.len())..]);
    if !optional.is_empty() {
        out.push_str(&format!(
            "\nOptional entries: {}. Each is written only when present, and only after the ones before it; the header counts the entries written.{}\n",
            optional.join(", "),
            together_note(record)
        ));
    }
}

/// ` `a` and `b` go together: both are present or both absent.`, per pair of optional entries
/// that go together (`together_with`); empty when there are none.
fn together_note(record: &Record) -> String {
    let mut note = String::new();
    for (i, j) in record.together() {
        note.push_str(&format!(
            " `{}` and `{}` go together: both are present or both absent.",
            record.entries[i].name, record.entries[j].name
        ));
    }
    note
}

/// A block per array, map and (unless the row is `detailed`) string of the top row, the
/// record's first `top_end` entries.
fn top_row_blocks(layout: &Layout, record: &Record, top_end: usize, detailed: bool, out: &mut String) {
    for e in &record.entries[..top_end] {
        let slot = Slot::entry(e, record);
        if matches!(e.node.ty, Type::Array(_) | Type::Map(_)) {
            out.push('\n');
            sequence_block(layout, &e.node, &slot, 0, out);
        } else if is_stringy(&e.node) && !detailed {
            out.push('\n');
            let doc = e.doc.as_deref().map_or(String::new(), |d| format!(", {d}"));
            out.push_str(&format!(
                "The `{}` section{doc}: {}:\n\n",
                e.name,
                describe(layout, &e.node)
            ));
            let mut cells = Vec::new();
            value_cells(layout, &e.node, &slot, None, true, &mut cells);
            draw(&cells, false, out);
        }
    }
}

/// The entries from `start` on (those after the last array), listed and drawn byte by byte.
fn final_section(layout: &Layout, record: &Record, start: usize, out: &mut String) {
    let tail = &record.entries[start..];
    if tail.is_empty() {
        return;
    }
    out.push('\n');
    let names = quoted_names(tail);
    let names = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    };
    let noun = if tail.len() == 1 { "entry" } else { "entries" };
    out.push_str(&format!("Finally, the {names} {noun}:\n"));
    for e in tail {
        let doc = e.doc.as_deref().map_or(String::new(), |d| format!(": {d}"));
        let optional = if e.optional { ", optional" } else { "" };
        out.push_str(&format!("- {} ({}{optional}){doc}\n", e.name, e.wire_name(layout)));
    }
    out.push('\n');
    let mut groups = Vec::new();
    for i in start..record.entries.len() {
        let mut cells = Vec::new();
        entry_cells(layout, record, i, true, &mut cells);
        groups.push(cells);
    }
    draw_rows(groups, false, out);
}

/// A top-level value that is not a record: its cells and blocks.
fn value_body(layout: &Layout, node: &Node, out: &mut String) {
    let slot = Slot::part("value".into(), None);
    let mut cells = Vec::new();
    value_cells(layout, node, &slot, Some(0), true, &mut cells);
    draw(&cells, false, out);
    if matches!(node.ty, Type::Array(_) | Type::Map(_)) {
        out.push('\n');
        sequence_block(layout, node, &slot, 0, out);
    }
}

/// Renders the layout as a byte-layout diagram in the style of the caterva and b2nd format
/// documents: the top row with its annotations, a block per array's elements, a block per string,
/// the entries after the last array as a final section, and a section per named record type.
/// See the module documentation for the rules and for where the result deliberately differs from
/// those documents.
///
/// ```
/// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
/// let diagram = metalayer_layout::diagram(&layout);
/// assert!(diagram.contains(
///     "| 9X| v | nd| 9X| shape          | 9X| chunkshape     | 9X| blockshape     |\n"
/// ));
/// assert!(diagram.contains("| d3| first_dim  | d3| second_dim | ... | d3| nth_dim    |\n"));
/// assert!(diagram.contains("| XX| db| dtype_len  | dtype_string |\n"));
/// assert!(diagram.contains("+---[msgpack] fixarray with X=7 elements\n"));
/// ```
pub fn diagram(layout: &Layout) -> String {
    let mut out = format!(
        "The `{}` metalayer (schema {}): {}\nSource: {}\n\n",
        layout.metalayer, layout.schema, layout.description, layout.source
    );
    let root = layout.root_record();
    match root {
        Some(r) => record_body(layout, r, &mut out),
        None => value_body(layout, &layout.root, &mut out),
    }
    for t in &layout.types {
        if root.is_some_and(|r| core::ptr::eq(r, &t.record)) {
            continue;
        }
        out.push_str(&format!("\nThe `{}` record:\n\n", t.name));
        record_body(layout, &t.record, &mut out);
        out.push_str(&format!(
            "\nSize of {} `{}` record: {} bytes.\n",
            article(&t.name),
            t.name,
            size::of_record(layout, &t.record, &Place::root())
        ));
    }
    out.push_str(&format!("\nEncoded length: {} bytes.\n", length_formula(layout)));
    out
}

/// Renders one record of the layout (the top-level record or a named record type's) as in
/// [`diagram`]: its rows and blocks, and its encoded length. Named record types it holds are
/// named, not drawn.
///
/// ```
/// let text = r#"
/// [schema]
/// metalayer = "shapes"
/// description = "points"
/// source = "an example"
///
/// [container]
/// wire = "fixarray"
///
/// [[entry]]
/// name = "points"
/// wire = "array"
/// element = { type = "point" }
///
/// [types.point]
/// wire = "fixarray"
///
/// [[types.point.entry]]
/// name = "x"
/// wire = "float64"
///
/// [[types.point.entry]]
/// name = "y"
/// wire = "float64"
/// "#;
/// let layout = metalayer_layout::parse("shapes_v0", text).unwrap();
/// let point = metalayer_layout::record_diagram(&layout, &layout.types[0].record);
/// assert!(point.contains("| 9X| cb| x          | cb | y          |\n"));
/// assert!(point.ends_with("Encoded length: 19 bytes.\n"));
/// ```
pub fn record_diagram(layout: &Layout, record: &Record) -> String {
    let mut out = String::new();
    record_body(layout, record, &mut out);
    out.push_str(&format!(
        "\nEncoded length: {} bytes.\n",
        size::of_record(layout, record, &Place::root())
    ));
    out
}

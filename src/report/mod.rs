//! What a frame holds, as JSON or text, written as it is read (feature `value`): the header's
//! fields, each metalayer and each vlmetalayer (decompressed), decoded with the layout of its
//! name or shown as msgpack, and the frames stored in values (python-blosc2's ext 42),
//! reported the same way, nested.
//!
//! A report is written straight to its output: a vlmetalayer is decompressed when its turn
//! comes and dropped once written, and values are never built as trees. Everything one input
//! holds, nested frames included, shares one [`Budget`]: one depth limit, one count of values,
//! one bound on the bytes held and one on decompression work.
//!
//! ```
//! use metalayer::report::{Context, FrameReport, Reading, Registry};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
//! let frame = metalayer::frame::Frame::open(path)?;
//! let registry = Registry::builtin();
//! let cx = Context::new(&registry);
//! let report = FrameReport::new(&cx, Reading::Whole(frame));
//! let json = metalayer::serde_json::to_value(&report)?;
//! assert_eq!(json["metalayers"][0]["schema"], "b2nd_v1");
//! assert!(json["vlmetalayers"].as_array().is_some_and(|v| !v.is_empty()));
//! assert!(cx.take_errors().is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[allow(unused_imports)]
use crate::std_prelude::*;

mod header;
mod registry;

pub use registry::{Registry, RegistryError, Selected, UserLayout, builtin, candidates, is_python_blosc2};

use std::cell::{Cell, RefCell};
use std::io::{self, Write};

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::frame::{self, Frame, FrameMetalayer, FrameRef, Header, MetalayerRef, Trailer};
use crate::value::json::Hex;
use crate::value::{Budget, Clip, DEPTH_LIMIT, Held, Msgpack, Nested, Queued, Style, Typed, shown_name, write_text};
use crate::vlmeta;

/// The longest text a line of the text report shows of a value or its hex; JSON shows all.
///
/// ```
/// assert_eq!(metalayer::report::TEXT_MAX_CHARS, 1000);
/// ```
pub const TEXT_MAX_CHARS: usize = 1000;

/// The version of the JSON report's shape, which the command writes as `"format"` in each
/// object it prints.
///
/// - 1: each value's bytes were written as hex beside what they decode to (an item's `"hex"`,
///   an ext's `"data"`), so that a frame held in a value was written again at every level.
/// - 2: each byte once: a value is written as what it decodes to, and bytes that decode to
///   nothing as hex; [`Context::with_hex`] adds the bytes of format 1 back.
///
/// ```
/// assert_eq!(metalayer::report::FORMAT, 2);
/// ```
pub const FORMAT: u32 = 2;

/// An error or a warning a [`Context`] noted while it reported an input
/// ([`Context::take_errors`], [`Context::take_warnings`]). It shows as one line: the place, each
/// part after `: `, then the message; or the count of those past [`MAX_ERRORS`].
///
/// ```
/// use metalayer::report::{Context, FrameReport, Noted, Reading, Registry};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
/// let mut bytes = std::fs::read(path)?;
/// // The b2nd metalayer's content starts at byte 0x70 (0x6b, its bin32 header, + 5): its first
/// // byte, fixarray(7), made fixarray(6), which b2nd_v1 does not read.
/// assert_eq!(bytes[0x70], 0x97);
/// bytes[0x70] = 0x96;
/// let registry = Registry::builtin();
/// let cx = Context::new(&registry);
/// let _ = metalayer::serde_json::to_value(FrameReport::new(&cx, Reading::Whole(metalayer::frame::Frame::parse(&bytes)?)))?;
/// let errors = cx.take_errors();
/// let Noted::At { place, message } = &errors[0] else { panic!("{errors:?}") };
/// assert_eq!(place, &["metalayer \"b2nd\" (content at file byte 0x70)"]);
/// assert_eq!(errors[0].to_string(), format!("{}: {message}", place[0]));
/// assert_eq!(Noted::More { count: 3, warnings: false }.to_string(), "3 more errors in this input");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Noted {
    /// One error or warning.
    At {
        /// Where it was met, outermost first: the item (a metalayer, a vlmetalayer), then each
        /// frame nested in a value. Empty for the frame itself.
        place: Vec<String>,
        /// What was met.
        message: String,
    },
    /// How many more were met once [`MAX_ERRORS`] were kept.
    More {
        /// How many.
        count: usize,
        /// Whether they are warnings (or errors).
        warnings: bool,
    },
}

impl std::fmt::Display for Noted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Noted::At { place, message } => {
                for part in place {
                    write!(f, "{part}: ")?;
                }
                f.write_str(message)
            }
            Noted::More { count, warnings } => {
                let what = if *warnings { "warnings" } else { "errors" };
                write!(f, "{count} more {what} in this input")
            }
        }
    }
}

impl std::error::Error for Noted {}

/// The most errors a context keeps with their places; one more line counts the rest.
///
/// ```
/// assert_eq!(metalayer::report::MAX_ERRORS, 100);
/// ```
pub const MAX_ERRORS: usize = 100;

/// An error's message followed by those of its sources, each after `: `.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// What reporting one input shares, nested frames included: the layouts, the [`Budget`], and
/// the errors and warnings met, each with where it is.
///
/// ```
/// use metalayer::report::{Context, Registry};
/// use metalayer::value::VALUE_LIMIT;
///
/// let registry = Registry::builtin();
/// let cx = Context::new(&registry);
/// assert_eq!(cx.budget().values_left(), VALUE_LIMIT);
/// assert!(cx.take_errors().is_empty());
/// assert!(cx.take_warnings().is_empty());
/// ```
#[derive(Debug)]
pub struct Context<'r> {
    registry: &'r Registry,
    budget: Budget,
    errors: RefCell<Vec<Noted>>,
    /// Errors past [`MAX_ERRORS`], counted.
    more_errors: Cell<usize>,
    /// What was read and shown, but not with the layouts its name calls for.
    warnings: RefCell<Vec<Noted>>,
    /// Warnings past [`MAX_ERRORS`], counted.
    more_warnings: Cell<usize>,
    /// Where the report is, for errors: the item, and each frame nested in a value.
    place: RefCell<Vec<String>>,
    /// The frames a text line's value holds, to be shown after it.
    text_frames: RefCell<Vec<Queued>>,
    /// Whether each value's bytes are shown beside what they decode to.
    hex: bool,
}

impl<'r> Context<'r> {
    /// The context of one input, with a new [`Budget`].
    pub fn new(registry: &'r Registry) -> Context<'r> {
        Context::with_budget(registry, Budget::new())
    }

    /// The context of one input, with `budget`.
    pub fn with_budget(registry: &'r Registry, budget: Budget) -> Context<'r> {
        Context {
            registry,
            budget,
            errors: RefCell::new(Vec::new()),
            more_errors: Cell::new(0),
            warnings: RefCell::new(Vec::new()),
            more_warnings: Cell::new(0),
            place: RefCell::new(Vec::new()),
            text_frames: RefCell::new(Vec::new()),
            hex: false,
        }
    }

    /// The same context, whose reports show each value's bytes (`true`) beside what they
    /// decode to, or not (`false`, the default). Either way, bytes that decode to nothing are
    /// shown as hex, and a frame held in a value is reported where it is.
    ///
    /// Without the bytes, each byte of the input is written once: as the value it decodes to,
    /// or as hex when it decodes to nothing. With them, an item has `"hex"` (its bytes, a
    /// vlmetalayer's decompressed) and each ext that decodes has `"data"`, as in [`FORMAT`] 1.
    ///
    /// ```
    /// use metalayer::report::{Context, FrameReport, Reading, Registry};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let registry = Registry::builtin();
    /// for hex in [false, true] {
    ///     let cx = Context::new(&registry).with_hex(hex);
    ///     let json = metalayer::serde_json::to_value(FrameReport::new(&cx, Reading::Whole(metalayer::frame::Frame::open(path)?)))?;
    ///     let unit = &json["metalayers"][1];
    ///     assert_eq!(unit["msgpack"], "kelvin");
    ///     // "kelvin" as msgpack: fixstr 0xa6, then its six bytes.
    ///     assert_eq!(unit.get("hex").and_then(|h| h.as_str()), hex.then_some("a66b656c76696e"));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_hex(self, hex: bool) -> Context<'r> {
        Context { hex, ..self }
    }

    /// Whether reports show each value's bytes ([`with_hex`](Self::with_hex)).
    pub fn shows_hex(&self) -> bool {
        self.hex
    }

    /// The input's budget.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The errors met so far, each with its place (`vlmetalayer "k" (chunk at file byte
    /// 0x2c1): frame at byte 0x12 of the value: metalayer "b2nd" (content at frame byte 0x6a):
    /// ...`), and forgets them.
    /// At most [`MAX_ERRORS`] are kept, then one line counts the others.
    pub fn take_errors(&self) -> Vec<Noted> {
        let mut errors = std::mem::take(&mut *self.errors.borrow_mut());
        let count = self.more_errors.replace(0);
        if count > 0 {
            errors.push(Noted::More { count, warnings: false });
        }
        errors
    }

    /// The warnings met so far, each with its place, and forgets them: python-blosc2
    /// metalayers of a shape no built-in layout reads, shown as msgpack (see
    /// [`Selected::OtherShape`]). They do not make the input fail. At most [`MAX_ERRORS`] are
    /// kept, then one line counts the others.
    ///
    /// ```
    /// use metalayer::report::{Context, FrameReport, Reading, Registry};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-own/embedstore.b2e");
    /// let mut bytes = std::fs::read(path)?;
    /// // b2embed's {"version": 1} made {"version": 2}: a shape no built-in layout reads.
    /// let at = bytes.windows(10).position(|w| w == b"\x81\xa7version\x01").unwrap();
    /// bytes[at + 9] = 2;
    /// let frame = metalayer::frame::Frame::parse(&bytes)?;
    /// let registry = Registry::builtin();
    /// let cx = Context::new(&registry);
    /// let json = metalayer::serde_json::to_value(FrameReport::new(&cx, Reading::Whole(frame)))?;
    /// assert_eq!(json["metalayers"][0]["msgpack"]["version"], 2);
    /// assert!(json["metalayers"][0]["warning"].is_string());
    /// assert!(cx.take_errors().is_empty());
    /// assert_eq!(cx.take_warnings().len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn take_warnings(&self) -> Vec<Noted> {
        let mut warnings = std::mem::take(&mut *self.warnings.borrow_mut());
        let count = self.more_warnings.replace(0);
        if count > 0 {
            warnings.push(Noted::More { count, warnings: true });
        }
        warnings
    }

    /// Notes an error at the current place.
    pub(crate) fn error(&self, message: &str) {
        self.note(&self.errors, &self.more_errors, message);
    }

    /// Notes a warning at the current place.
    pub(crate) fn warning(&self, message: &str) {
        self.note(&self.warnings, &self.more_warnings, message);
    }

    /// Adds `message` at the current place to `list`, or counts it in `more` when the list is
    /// full.
    fn note(&self, list: &RefCell<Vec<Noted>>, more: &Cell<usize>, message: &str) {
        let mut list = list.borrow_mut();
        if list.len() >= MAX_ERRORS {
            // The last one counts the rest.
            more.set(more.get() + 1);
            return;
        }
        list.push(Noted::At {
            place: self.place.borrow().clone(),
            message: message.to_owned(),
        });
    }

    /// Runs `f` with `place` added to where errors are.
    fn at<T>(&self, place: String, f: impl FnOnce() -> T) -> T {
        self.place.borrow_mut().push(place);
        let result = f();
        self.place.borrow_mut().pop();
        result
    }

    /// The frame in an ext 42, or why it is not shown (also noted as an error).
    fn nested_frame<'d>(&self, data: &'d [u8], at: usize, depth: usize) -> Result<FrameRef<'d>, String> {
        let result = if depth >= DEPTH_LIMIT {
            Err(format!(
                "not inspected: nested deeper than {DEPTH_LIMIT} levels (arrays, maps, ext payloads and frames count together)"
            ))
        } else {
            match self.budget.read(0) {
                Ok(()) => frame::FrameRef::parse(data).map_err(|e| chain(&e)),
                Err(e) => Err(e.to_string()),
            }
        };
        if let Err(error) = &result {
            self.error(&format!("{}: {error}", nested_place(at)));
        }
        result
    }
}

/// A value written in a report notes its errors in the report's context, and its frames are
/// reported by it.
impl Nested for Context<'_> {
    fn error(&self, message: &str) {
        Context::error(self, message);
    }

    fn queue_frame(&self, frame: Queued) {
        self.text_frames.borrow_mut().push(frame);
    }

    fn nested_frame_entry<M: SerializeMap>(
        &self,
        map: &mut M,
        data: &[u8],
        at: usize,
        depth: usize,
        hex: bool,
    ) -> Result<(), M::Error> {
        let frame = self.nested_frame(data, at, depth);
        if hex || frame.is_err() {
            map.serialize_entry("data", &Hex(data))?;
        }
        match frame {
            Ok(frame) => self.at(nested_place(at), || {
                map.serialize_entry("frame", &FrameReport::nested(self, Data::Nested(frame), depth))
            }),
            Err(error) => map.serialize_entry("error", &error),
        }
    }
}

fn nested_place(at: usize) -> String {
    format!("frame at byte {at:#04x} of the value")
}

/// What could be read of one frame.
///
/// ```
/// use metalayer::report::{Context, FrameReport, Reading, Registry};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let reading = Reading::Bytes(metalayer::frame::FrameBytes::open(path)?);
/// let registry = Registry::builtin();
/// let cx = Context::new(&registry);
/// let json = metalayer::serde_json::to_value(FrameReport::new(&cx, reading))?;
/// assert_eq!(json["metalayers"][1]["msgpack"], "kelvin");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub enum Reading {
    /// Its header and its trailer.
    Whole(Frame),
    /// Its header and its trailer, as their bytes ([`FrameBytes::open`](frame::FrameBytes::open)): nothing is
    /// copied out of them.
    Bytes(frame::FrameBytes),
    /// Its header's metalayers: the header reads, the trailer does not, for the reason given.
    Header {
        /// The metalayers.
        metalayers: Vec<FrameMetalayer>,
        /// Why the trailer could not be read.
        trailer_error: frame::FrameError,
    },
}

/// The report of one frame. It serializes (with [`serde::Serialize`]) to its JSON object, with
/// the keys `"header"`, `"metalayers"`, `"trailer"`, `"vlmetalayers"`, and `"error"` when the
/// trailer could not be read; [`write_text`](Self::write_text) writes it for people. Either
/// decompresses and decodes as it writes, within the context's budget, and notes errors in the
/// context: write a report once.
#[derive(Debug)]
pub struct FrameReport<'c, 'd> {
    cx: &'c Context<'c>,
    data: Data<'d>,
    depth: usize,
}

/// A report's frame: read from an input, or borrowed from a value that holds it.
#[derive(Debug)]
enum Data<'d> {
    Read(Reading),
    Nested(FrameRef<'d>),
}

impl<'c> FrameReport<'c, 'static> {
    /// The report of a frame read from an input.
    pub fn new(cx: &'c Context<'c>, reading: Reading) -> FrameReport<'c, 'static> {
        FrameReport::nested(cx, Data::Read(reading), 0)
    }
}

impl<'c, 'd> FrameReport<'c, 'd> {
    fn nested(cx: &'c Context<'c>, data: Data<'d>, depth: usize) -> FrameReport<'c, 'd> {
        if let Data::Read(Reading::Header { trailer_error, .. }) = &data {
            cx.error(&format!("the trailer: {}", chain(trailer_error)));
        }
        FrameReport { cx, data, depth }
    }

    /// The frame's bytes as read, when the report's contents may have to be read from its file.
    fn source(&self) -> Option<&frame::FrameBytes> {
        match &self.data {
            Data::Read(Reading::Bytes(bytes)) => Some(bytes),
            _ => None,
        }
    }

    /// What the report shows of its frame, borrowed from it.
    fn parts(&self) -> Parts<'_> {
        let of = |frame: &FrameRef<'_>| (frame.header, frame.trailer);
        match &self.data {
            Data::Read(Reading::Whole(frame)) => Parts {
                fields: Some((frame.header, frame.trailer)),
                metalayers: frame.metalayers.iter().map(FrameMetalayer::borrowed).collect(),
                vlmetalayers: frame.vlmetalayers.iter().map(FrameMetalayer::borrowed).collect(),
                trailer_error: None,
            },
            Data::Read(Reading::Bytes(bytes)) => match bytes.frame() {
                Ok(frame) => Parts {
                    fields: Some(of(&frame)),
                    metalayers: frame.metalayers,
                    vlmetalayers: frame.vlmetalayers,
                    trailer_error: None,
                },
                // Checked when read: the same bytes decode again.
                Err(e) => Parts {
                    fields: None,
                    metalayers: Vec::new(),
                    vlmetalayers: Vec::new(),
                    trailer_error: Some(chain(&e)),
                },
            },
            Data::Read(Reading::Header {
                metalayers,
                trailer_error,
            }) => Parts {
                fields: None,
                metalayers: metalayers.iter().map(FrameMetalayer::borrowed).collect(),
                vlmetalayers: Vec::new(),
                trailer_error: Some(format!("the trailer: {}", chain(trailer_error))),
            },
            Data::Nested(frame) => Parts {
                fields: Some(of(frame)),
                metalayers: frame.metalayers.clone(),
                vlmetalayers: frame.vlmetalayers.clone(),
                trailer_error: None,
            },
        }
    }

    /// Writes the report's entries into a map being serialized: a caller adds its own (a
    /// path) around them.
    pub fn serialize_entries<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let parts = self.parts();
        if let Some((header, _)) = &parts.fields {
            map.serialize_entry("header", &header::HeaderJson(header))?;
        }
        let items = |items, vl| Items {
            report: self,
            items,
            vl,
        };
        map.serialize_entry("metalayers", &items(&parts.metalayers, false))?;
        if let Some((_, trailer)) = &parts.fields {
            map.serialize_entry("trailer", &header::TrailerJson(trailer))?;
            map.serialize_entry("vlmetalayers", &items(&parts.vlmetalayers, true))?;
        }
        if let Some(error) = &parts.trailer_error {
            map.serialize_entry("error", error)?;
        }
        Ok(())
    }

    /// Writes the text report: a line naming the frame (`shown`) and counting what it holds,
    /// the header's fields, then each metalayer and each vlmetalayer with its fields or value,
    /// and the frames values hold, nested.
    ///
    /// ```
    /// use metalayer::report::{Context, FrameReport, Reading, Registry};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let registry = Registry::builtin();
    /// let cx = Context::new(&registry);
    /// let report = FrameReport::new(&cx, Reading::Whole(metalayer::frame::Frame::open(path)?));
    /// let mut out = Vec::new();
    /// report.write_text(&mut out, "meta_user.b2nd", false)?;
    /// let text = String::from_utf8(out)?;
    /// assert!(text.starts_with("meta_user.b2nd: 5 metalayers, 0 vlmetalayers\n"), "{text}");
    /// assert!(text.contains("  b2nd "), "{text}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_text<W: Write>(&self, out: &mut W, shown: &str, sparse: bool) -> io::Result<()> {
        self.text(out, &shown_name(shown), sparse, 0)
    }

    fn text<W: Write>(&self, out: &mut W, shown: &str, sparse: bool, indent: usize) -> io::Result<()> {
        let kind = if sparse { "  (sparse frame)" } else { "" };
        let Parts {
            fields,
            metalayers,
            vlmetalayers,
            ..
        } = self.parts();
        let vl = match fields {
            Some(_) => format!(", {}", counted(vlmetalayers.len(), "vlmetalayer")),
            None => "; the trailer could not be read".to_owned(),
        };
        writeln!(out, "{shown}: {}{vl}{kind}", counted(metalayers.len(), "metalayer"))?;
        let pad = " ".repeat(indent);
        if let Some((header, trailer)) = &fields {
            write_lines(out, indent + 2, &header::header_lines(header, trailer))?;
        }
        self.text_items(out, &pad, &metalayers, false, indent)?;
        self.text_items(out, &pad, &vlmetalayers, true, indent)
    }

    fn text_items<W: Write>(
        &self,
        out: &mut W,
        pad: &str,
        items: &[MetalayerRef<'_>],
        vl: bool,
        indent: usize,
    ) -> io::Result<()> {
        let prefix = if vl { "vlmeta " } else { "" };
        let names: Vec<String> = items.iter().map(|m| shown_name(m.name).into_owned()).collect();
        let name_width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        let lens: Vec<Option<usize>> = items.iter().map(|m| item_len(m, vl)).collect();
        let len_width = lens.iter().flatten().map(|n| n.to_string().len()).max().unwrap_or(0);
        let sizes: Vec<String> = items
            .iter()
            .zip(&lens)
            .map(|(m, len)| size_text(*len, len_width, vl.then_some(m.content.len())))
            .collect();
        let size_width = sizes.iter().map(String::len).max().unwrap_or(0);
        for ((m, name), size) in items.iter().zip(&names).zip(&sizes) {
            let item = Item {
                cx: self.cx,
                m: *m,
                source: self.source(),
                vl,
                depth: self.depth,
            };
            item.text(
                out,
                &format!("{pad}  {prefix}{name:<name_width$}  {size:<size_width$}"),
                indent + 6 + prefix.len(),
            )?;
        }
        Ok(())
    }
}

impl Serialize for FrameReport<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.serialize_entries(&mut map)?;
        map.end()
    }
}

/// An item's length: a metalayer's, or a vlmetalayer's `nbytes` from its chunk's header
/// (`None` when the header does not read).
fn item_len(m: &MetalayerRef<'_>, vl: bool) -> Option<usize> {
    if !vl {
        return Some(m.content.len());
    }
    crate::vlmeta::ChunkHeader::parse(m.content).ok().map(|h| h.nbytes)
}

/// The size column of an item: `53 bytes`, ` 1 byte`, `7 bytes (39 stored)` for a vlmetalayer,
/// `39 stored` for a chunk whose header does not read.
fn size_text(len: Option<usize>, width: usize, stored: Option<usize>) -> String {
    let unit = |n: usize| if n == 1 { "byte" } else { "bytes" };
    match (len, stored) {
        (Some(n), Some(stored)) => format!("{n:>width$} {} ({stored} stored)", unit(n)),
        (Some(n), None) => format!("{n:>width$} {}", unit(n)),
        (None, Some(stored)) => format!("{stored} stored"),
        (None, None) => String::new(),
    }
}

/// `1 metalayer`, `2 metalayers`.
fn counted(n: usize, what: &str) -> String {
    let plural = if n == 1 { "" } else { "s" };
    format!("{n} {what}{plural}")
}

/// Writes `key: value` lines, indented by `indent` spaces, with the values aligned.
fn write_lines<W: Write>(out: &mut W, indent: usize, lines: &[(String, String)]) -> io::Result<()> {
    let width = lines.iter().map(|(k, _)| k.len() + 1).max().unwrap_or(0);
    for (key, value) in lines {
        let label = format!("{key}:");
        writeln!(out, "{:indent$}{label:<width$}  {value}", "")?;
    }
    Ok(())
}

/// A report's metalayers or vlmetalayers, as a JSON array.
struct Items<'r, 'c, 'd, 'm> {
    report: &'r FrameReport<'c, 'd>,
    items: &'r [MetalayerRef<'m>],
    vl: bool,
}

/// What a report shows of its frame.
struct Parts<'a> {
    /// The header's and the trailer's fields, when the trailer could be read.
    fields: Option<(Header, Trailer)>,
    metalayers: Vec<MetalayerRef<'a>>,
    vlmetalayers: Vec<MetalayerRef<'a>>,
    /// Why the trailer could not be read, when it could not.
    trailer_error: Option<String>,
}

impl Serialize for Items<'_, '_, '_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.items.len()))?;
        for &m in self.items {
            let item = Item {
                cx: self.report.cx,
                m,
                source: self.report.source(),
                vl: self.vl,
                depth: self.report.depth,
            };
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

/// One metalayer or vlmetalayer of a frame `depth` levels down.
struct Item<'m, 'x> {
    cx: &'x Context<'x>,
    m: MetalayerRef<'m>,
    /// Where a vlmetalayer's content is read from when the frame's trailer was read without it.
    source: Option<&'m frame::FrameBytes>,
    vl: bool,
    depth: usize,
}

/// What an item's bytes turned out to be.
enum Content<'b, 'x> {
    /// Stored under the name of a known layout, and decoded with the one of that name that
    /// reads its bytes.
    Known(Typed<'b>),
    /// A known name whose bytes no layout of that name reads.
    Failed(String),
    /// Any other name, and msgpack; or a python-blosc2 name whose bytes none of its layouts
    /// reads, and msgpack, with the warning that says so.
    Msgpack(Msgpack<'b, 'x, Context<'x>>, Option<String>),
    /// Any other name, and bytes that are not one msgpack value; a note when a limit is why.
    Raw(Option<String>),
}

impl<'m, 'x> Item<'m, 'x> {
    /// How deep the item's value is: levels count as JSON nests them, so that a value `n`
    /// levels down is within `n` levels of JSON of its report (the report's object, the array
    /// of items, the item's object).
    fn value_depth(&self) -> usize {
        self.depth + 3
    }

    /// Where the item is, for errors.
    fn place(&self) -> String {
        let within = if self.depth == 0 { "file" } else { "frame" };
        if self.vl {
            format!(
                "vlmetalayer {:?} (chunk at {within} byte {:#04x})",
                self.m.name, self.m.offset
            )
        } else {
            format!(
                "metalayer {:?} (content at {within} byte {:#04x})",
                self.m.name, self.m.offset
            )
        }
    }

    /// The item's bytes: a metalayer's content, or a vlmetalayer's chunk decompressed.
    fn bytes<'b>(&self, chunk: &'b [u8]) -> Result<Bytes<'b, 'x>, String> {
        let read = if self.vl {
            self.cx.budget.decompress(chunk).map(Bytes::Held)
        } else {
            self.cx.budget.read(chunk.len()).map(|()| Bytes::Stored(chunk))
        };
        read.map_err(|e| {
            let text = chain(&e);
            self.cx.error(&text);
            text
        })
    }

    /// The item's content as stored: borrowed, or read from its file when the frame's long
    /// trailer was read without its contents.
    fn stored(&self) -> Result<Stored<'m, 'x>, String> {
        let Some(source) = self.source.filter(|s| self.vl && s.contents_in_file()) else {
            return Ok(Stored::Borrowed(self.m.content));
        };
        let len = self.m.content.len();
        if len > vlmeta::DEFAULT_LIMIT.saturating_add(1 << 20) {
            let text = format!(
                "not read: a chunk of {len} bytes is larger than any chunk of at most {} bytes is stored in",
                vlmeta::DEFAULT_LIMIT
            );
            self.cx.error(&text);
            return Err(text);
        }
        let read = self.cx.budget.room(len).map_err(|e| chain(&e)).and_then(|()| {
            let bytes = source.content(&self.m).map_err(|e| chain(&e))?;
            self.cx.budget.hold(bytes.into_owned()).map_err(|e| chain(&e))
        });
        read.map(Stored::Read).inspect_err(|text| self.cx.error(text))
    }

    /// Decodes the bytes with the layout of the item's name, or as msgpack.
    fn content<'b>(&self, bytes: &'b [u8]) -> Content<'b, 'x>
    where
        'x: 'b,
    {
        let registry = self.cx.registry;
        let selected = if self.vl {
            registry.select_vlmeta(self.m.name, bytes)
        } else {
            registry.select(self.m.name, bytes)
        };
        match selected {
            Selected::Decoded(value) => Content::Known(value),
            Selected::Failed(error) => {
                self.cx.error(&error);
                Content::Failed(error)
            }
            Selected::OtherShape(error) => match self.msgpack(bytes) {
                Ok(value) => {
                    let warning = format!(
                        "python-blosc2's {:?} in a shape no built-in layout reads, shown as msgpack: {error}",
                        self.m.name
                    );
                    self.cx.warning(&warning);
                    Content::Msgpack(value, Some(warning))
                }
                Err(Some(note)) => Content::Raw(Some(note)),
                // Not one msgpack value: not a shape of python-blosc2's, whatever its release.
                Err(None) => {
                    self.cx.error(&error);
                    Content::Failed(error)
                }
            },
            Selected::Unknown => match self.msgpack(bytes) {
                Ok(value) => Content::Msgpack(value, None),
                Err(note) => Content::Raw(note),
            },
        }
    }

    /// The bytes as one msgpack value, or why not: a note when a limit is why (also noted as an
    /// error), else nothing.
    fn msgpack<'b>(&self, bytes: &'b [u8]) -> Result<Msgpack<'b, 'x, Context<'x>>, Option<String>> {
        match Msgpack::checked(bytes, &self.cx.budget, self.value_depth(), Some(self.cx)) {
            Ok(value) => Ok(value.hex(self.cx.hex)),
            Err(e) if e.is_limit() => {
                let note = format!("shown as bytes: {e}");
                self.cx.error(&note);
                Err(Some(note))
            }
            Err(_) => Err(None),
        }
    }

    /// Writes the item's text: its line (`head`, then what it is), then its fields or value,
    /// indented by `indent`.
    fn text<W: Write>(&self, out: &mut W, head: &str, indent: usize) -> io::Result<()> {
        self.cx.at(self.place(), || {
            let bad_chunk = |out: &mut W, error: &str| {
                writeln!(out, "{head}  bad chunk")?;
                write_lines(out, indent, &[("error".to_owned(), escaped(error))])
            };
            let chunk = match self.stored() {
                Ok(chunk) => chunk,
                Err(error) => return bad_chunk(out, &error),
            };
            let bytes = match self.bytes(&chunk) {
                Ok(bytes) => bytes,
                Err(error) => return bad_chunk(out, &error),
            };
            let content = self.content(&bytes);
            let kind = match &content {
                Content::Known(value) => value.layout().schema.as_str(),
                Content::Failed(_) => "undecodable",
                Content::Msgpack(..) => "msgpack",
                Content::Raw(_) => "raw",
            };
            writeln!(out, "{head}  {kind}")?;
            let pad = " ".repeat(indent);
            match &content {
                Content::Known(value) => {
                    let width = value
                        .layout()
                        .root_record()
                        .map_or(0, |r| r.entries.iter().map(|e| e.name.len()).max().unwrap_or(0));
                    let wrote = value.fields(|name, field| {
                        label(out, &pad, name, width + 1).map_err(serde_json::Error::io)?;
                        clipped(out, field).map_err(serde_json::Error::io)
                    });
                    let wrote = wrote.map_err(io::Error::from)?;
                    if !wrote {
                        label(out, &pad, "value", 6)?;
                        clipped(out, value)?;
                    }
                    if self.cx.hex {
                        let width = if wrote { width + 1 } else { 6 };
                        label(out, &pad, "hex", width)?;
                        clipped_hex(out, &bytes)?;
                    }
                    Ok(())
                }
                Content::Failed(error) => {
                    label(out, &pad, "error", 6)?;
                    writeln!(out, "{}", escaped(error))?;
                    label(out, &pad, "hex", 6)?;
                    clipped_hex(out, &bytes)
                }
                Content::Msgpack(value, warning) => {
                    let width = if warning.is_some() { 8 } else { 6 };
                    label(out, &pad, "value", width)?;
                    clipped(out, &value.clone().style(Style::Text))?;
                    if self.cx.hex {
                        label(out, &pad, "hex", width)?;
                        clipped_hex(out, &bytes)?;
                    }
                    if let Some(warning) = warning {
                        label(out, &pad, "warning", width)?;
                        writeln!(out, "{}", escaped(warning))?;
                    }
                    let frames = std::mem::take(&mut *self.cx.text_frames.borrow_mut());
                    for q in frames {
                        self.nested_text(out, &bytes[q.data], q.at, q.depth, &pad)?;
                    }
                    Ok(())
                }
                Content::Raw(note) => {
                    let width = if note.is_some() { 5 } else { 4 };
                    label(out, &pad, "hex", width)?;
                    clipped_hex(out, &bytes)?;
                    if let Some(note) = note {
                        label(out, &pad, "note", width)?;
                        writeln!(out, "{note}")?;
                    }
                    Ok(())
                }
            }
        })
    }

    /// Writes the report of a frame held in the item's value at byte `at`.
    fn nested_text<W: Write>(&self, out: &mut W, data: &[u8], at: usize, depth: usize, pad: &str) -> io::Result<()> {
        match self.cx.nested_frame(data, at, depth) {
            Ok(frame) => self.cx.at(nested_place(at), || {
                let report = FrameReport::nested(self.cx, Data::Nested(frame), depth);
                report.text(out, &format!("{pad}{}", nested_place(at)), false, pad.len())
            }),
            Err(error) => writeln!(out, "{pad}{}: error: {}", nested_place(at), escaped(&error)),
        }
    }
}

/// An item's content as stored: borrowed from the frame, or read from its file and held
/// within the budget.
enum Stored<'m, 'x> {
    Borrowed(&'m [u8]),
    Read(Held<'x, 'static>),
}

impl std::ops::Deref for Stored<'_, '_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Stored::Borrowed(bytes) => bytes,
            Stored::Read(held) => held,
        }
    }
}

/// An item's bytes.
enum Bytes<'m, 'x> {
    Stored(&'m [u8]),
    Held(Held<'x, 'm>),
}

impl std::ops::Deref for Bytes<'_, '_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Stored(bytes) => bytes,
            Bytes::Held(held) => held,
        }
    }
}

/// Writes `{pad}{key}:` padded to `width` characters and two spaces: a line's label.
fn label<W: Write>(out: &mut W, pad: &str, key: &str, width: usize) -> io::Result<()> {
    let key = format!("{key}:");
    write!(out, "{pad}{key:<width$}  ")
}

/// Text from a file, or an error that quotes it, with every control character (C0, DEL, C1)
/// escaped as `\u00XX`.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes `value` as one line of text, cut at [`TEXT_MAX_CHARS`] characters with a note of its
/// length when longer, then a newline.
fn clipped<W: Write, T: Serialize + ?Sized>(out: &mut W, value: &T) -> io::Result<()> {
    let mut clip = Clip::new(&mut *out, TEXT_MAX_CHARS);
    write_text(&mut clip, value)?;
    let chars = clip.chars();
    finish_clip(out, chars)
}

/// [`clipped`] for hex, which is written only as far as it is shown.
fn clipped_hex<W: Write>(out: &mut W, bytes: &[u8]) -> io::Result<()> {
    let shown = &bytes[..bytes.len().min(TEXT_MAX_CHARS.div_ceil(2))];
    let mut clip = Clip::new(&mut *out, TEXT_MAX_CHARS);
    write!(clip, "{}", Hex(shown))?;
    finish_clip(out, 2 * bytes.len())
}

fn finish_clip<W: Write>(out: &mut W, chars: usize) -> io::Result<()> {
    if chars > TEXT_MAX_CHARS {
        write!(out, "... ({chars} characters in all; --json shows them)")?;
    }
    writeln!(out)
}

impl Serialize for Item<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.cx.at(self.place(), || {
            let mut map = serializer.serialize_map(None)?;
            map.serialize_entry("name", self.m.name)?;
            if self.vl {
                map.serialize_entry("chunk_len", &self.m.content.len())?;
            }
            let chunk = match self.stored() {
                Ok(chunk) => chunk,
                Err(error) => {
                    map.serialize_entry("error", &error)?;
                    return map.end();
                }
            };
            let bytes = match self.bytes(&chunk) {
                Ok(bytes) => bytes,
                Err(error) => {
                    map.serialize_entry("error", &error)?;
                    return map.end();
                }
            };
            map.serialize_entry("len", &bytes.len())?;
            match self.content(&bytes) {
                Content::Known(value) => {
                    if self.cx.hex {
                        map.serialize_entry("hex", &Hex(&bytes))?;
                    }
                    map.serialize_entry("schema", &value.layout().schema)?;
                    let key = if value.is_record() { "fields" } else { "value" };
                    map.serialize_entry(key, &value)?;
                }
                Content::Failed(error) => {
                    map.serialize_entry("hex", &Hex(&bytes))?;
                    map.serialize_entry("error", &error)?;
                }
                Content::Msgpack(value, warning) => {
                    if self.cx.hex {
                        map.serialize_entry("hex", &Hex(&bytes))?;
                    }
                    map.serialize_entry("msgpack", &value)?;
                    if let Some(warning) = warning {
                        map.serialize_entry("warning", &warning)?;
                    }
                }
                Content::Raw(note) => {
                    map.serialize_entry("hex", &Hex(&bytes))?;
                    if let Some(note) = note {
                        map.serialize_entry("note", &note)?;
                    }
                }
            }
            map.end()
        })
    }
}

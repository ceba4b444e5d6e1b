//! `metalayer set`: metalayers and vlmetalayers of frame files edited (`metalayer::frame::edit`),
//! each file replaced atomically, or, with `--dry-run`, only shown.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use metalayer::frame::edit::{Changed, Edit, EditError, WriteOptions};
use metalayer::frame::{Frame, FrameMetalayer, Section};
use metalayer::report::{Registry, Selected};
use metalayer::value::{Budget, Msgpack, shown_name, to_json_value, write_json};
use metalayer::vlmeta;
use metalayer_layout::Layout;
use serde_json::Value;

use crate::output::{Out, Stop, chain};
use crate::schema::SchemaArg;

/// One `NAME=JSON` argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Assign {
    /// The metalayer's or vlmetalayer's name.
    pub name: String,
    /// The value.
    pub value: Value,
}

impl Assign {
    /// Parses `NAME=JSON` (the name is everything before the first `=`).
    pub fn parse(arg: &str) -> Result<Assign, String> {
        let Some((name, json)) = arg.split_once('=') else {
            return Err(format!("expected NAME=JSON, found {arg:?}"));
        };
        if name.is_empty() {
            return Err(format!("expected NAME=JSON, found an empty name in {arg:?}"));
        }
        let value = serde_json::from_str(json).map_err(|e| format!("the value of {name} is not valid JSON: {e}"))?;
        Ok(Assign {
            name: name.to_owned(),
            value,
        })
    }
}

/// What to change in each file.
#[derive(Debug)]
pub struct Changes<'a> {
    /// `--meta`.
    pub meta: &'a [Assign],
    /// `--vlmeta`.
    pub vlmeta: &'a [Assign],
    /// `--delete-vlmeta`.
    pub delete: &'a [String],
    /// `--schema`.
    pub schemas: &'a [SchemaArg],
}

/// A name given twice among the changes: a usage error, since the changes of one name would
/// depend on the order of options.
pub fn repeated_name(changes: &Changes<'_>) -> Option<String> {
    let metas = changes.meta.iter().map(|a| ("--meta", a.name.as_str()));
    let vlmetas = changes.vlmeta.iter().map(|a| ("--vlmeta", a.name.as_str()));
    let deletes = changes.delete.iter().map(|n| ("--delete-vlmeta", n.as_str()));
    let mut seen: Vec<(bool, &str)> = Vec::new();
    for (option, name) in metas.chain(vlmetas).chain(deletes) {
        let key = (option == "--meta", name);
        if seen.contains(&key) {
            return Some(format!("{name} is given twice ({option})"));
        }
        seen.push(key);
    }
    None
}

/// Whether `set` writes, and how it locks.
#[derive(Debug, Clone, Copy)]
pub enum Mode<'a> {
    /// `--dry-run`: read only, no lock.
    DryRun,
    /// Each file replaced under a lock, as the options say.
    Write(&'a WriteOptions),
}

/// Runs `set` on every file: each is edited (or, in a dry run, read) and reported; failures
/// are reported on stderr and the other files still edited.
pub fn run(out: &mut Out, changes: &Changes<'_>, files: &[PathBuf], mode: Mode<'_>) -> Result<(), Stop> {
    let mut layouts = Vec::with_capacity(changes.schemas.len());
    for schema in changes.schemas {
        match schema.load() {
            Ok(layout) => layouts.push(layout),
            Err(e) => {
                e.report(out);
                return Ok(());
            }
        }
    }
    let registry = Registry::builtin();
    let typing = Typing {
        layouts: &layouts,
        registry: &registry,
    };
    for file in files {
        match edit_one(&typing, changes, file, mode) {
            Ok(lines) => out.print(&lines)?,
            Err(message) => out.error(format_args!("{}: {message}", file.display())),
        }
    }
    Ok(())
}

/// The layouts values are typed with: `--schema`'s, then the built-ins.
struct Typing<'a> {
    layouts: &'a [Layout],
    registry: &'a Registry,
}

impl Typing<'_> {
    /// The layout of the metalayer `name`, whose stored content is `stored`: the `--schema`
    /// of its name, else the built-in layout of its name that reads the stored bytes; `None`
    /// for plain msgpack.
    fn meta(&self, name: &str, stored: &[u8]) -> Result<Option<Cow<'_, Layout>>, String> {
        if let Some(layout) = self.layouts.iter().find(|l| l.metalayer == name) {
            return Ok(Some(Cow::Borrowed(layout)));
        }
        match self.registry.select(name, stored) {
            Selected::Decoded(typed) => Ok(Some(Cow::Owned(typed.layout().clone()))),
            Selected::Failed(error) => Err(format!(
                "no built-in layout of {name} reads its stored bytes ({error}); give its layout with --schema"
            )),
            Selected::OtherShape(_) | Selected::Unknown => Ok(None),
        }
    }

    /// The layout of the vlmetalayer `name`: the `--schema` of its name, else none (plain
    /// msgpack, as python-blosc2 stores vlmeta).
    fn vlmeta(&self, name: &str) -> Option<&Layout> {
        self.layouts.iter().find(|l| l.metalayer == name)
    }
}

/// What a FILE argument names: a frame file or sparse-frame directory, or a member of a `.b2z`
/// store (`store.b2z/dir/member.b2nd`).
enum Target {
    File,
    #[cfg(feature = "inspect")]
    Member(PathBuf, String),
}

impl Target {
    #[cfg_attr(not(feature = "inspect"), allow(unused_variables))]
    fn of(file: &Path) -> Target {
        #[cfg(feature = "inspect")]
        if let Some((zip, name)) = crate::store_edit::member_path(file) {
            return Target::Member(zip, name);
        }
        Target::File
    }
}

/// The layout a change's values are shown with: none for plain msgpack.
type Shown<'t> = Option<Cow<'t, Layout>>;

/// The edit of `changes`, typed by `frame` as it was read, and the layout each change is shown
/// with.
fn build<'t>(typing: &'t Typing<'_>, changes: &Changes<'_>, frame: &Frame) -> Result<(Edit, Vec<Shown<'t>>), String> {
    let mut edit = Edit::new();
    let mut shown = Vec::new();
    for assign in changes.meta {
        let stored = find(&frame.metalayers, &assign.name).map(|m| m.content.as_slice());
        let layout = typing.meta(&assign.name, stored.unwrap_or_default())?;
        edit = edit
            .meta_json(assign.name.clone(), layout.as_deref(), &assign.value)
            .map_err(|e| format!("meta {}: {e}", assign.name))?;
        shown.push(layout);
    }
    for assign in changes.vlmeta {
        let layout = typing.vlmeta(&assign.name);
        edit = edit
            .vlmeta_json(assign.name.clone(), layout, &assign.value)
            .map_err(|e| format!("vlmeta {}: {e}", assign.name))?;
        shown.push(layout.map(Cow::Borrowed));
    }
    for name in changes.delete {
        edit = edit.delete_vlmeta(name.clone());
        shown.push(typing.vlmeta(name).map(Cow::Borrowed));
    }
    Ok((edit, shown))
}

/// Edits one file; the report's lines. A store's member is found and read, and its edit built,
/// once the store is locked: in the zip as it is then.
fn edit_one(typing: &Typing<'_>, changes: &Changes<'_>, file: &Path, mode: Mode<'_>) -> Result<String, String> {
    let build = |frame: &Frame| build(typing, changes, frame);
    let (done, layouts) = match (Target::of(file), mode) {
        (Target::File, mode) => {
            let (edit, layouts) = build(&Frame::open(file).map_err(|e| chain(&e))?)?;
            let done = match mode {
                Mode::DryRun => edit.preview(file).map_err(|e| chain(&e))?,
                Mode::Write(options) => edit.write_with(file, options).map_err(|e| explained(&e))?,
            };
            (done, layouts)
        }
        #[cfg(feature = "inspect")]
        (Target::Member(zip, name), Mode::DryRun) => {
            let mut file = std::fs::File::open(&zip).map_err(|e| format!("{}: {e}", zip.display()))?;
            let found = metalayer::store::edit::find_member(&mut file, &zip, &name)?;
            let (edit, layouts) = build(&found.frame)?;
            let (offset, len) = found.range();
            (edit.preview_at(&zip, offset, len).map_err(|e| chain(&e))?, layouts)
        }
        #[cfg(feature = "inspect")]
        (Target::Member(zip, name), Mode::Write(options)) => {
            crate::store_edit::edit_member(&zip, &name, options, build)?
        }
    };
    let mut text = format!(
        "{}: {}\n",
        shown_name(&file.display().to_string()),
        match mode {
            Mode::DryRun => "would change (dry run)",
            Mode::Write(_) => "changed",
        }
    );
    for (change, layout) in done.iter().zip(&layouts) {
        text.push_str(&line(change, layout.as_deref()));
    }
    Ok(text)
}

/// An edit's error, with what the command's options can do about it.
pub fn explained(e: &EditError) -> String {
    let hint = match e {
        EditError::Locked { .. } => "; --wait SECONDS waits longer",
        EditError::Lock { .. } => "; --no-lock edits without a lock, where no other process edits the file",
        _ => "",
    };
    format!("{}{hint}", chain(e))
}

fn find<'f>(metalayers: &'f [FrameMetalayer], name: &str) -> Option<&'f FrameMetalayer> {
    metalayers.iter().find(|m| m.name == name)
}

/// `  meta NAME: BEFORE -> AFTER`, each value as JSON.
fn line(change: &Changed, layout: Option<&Layout>) -> String {
    let (what, stored) = match change.section {
        Section::Header => ("meta", false),
        _ => ("vlmeta", true),
    };
    let value = |content: &Option<Vec<u8>>, absent: &str| match content {
        Some(bytes) => shown(bytes, stored, layout),
        None => absent.to_owned(),
    };
    format!(
        "  {what} {}: {} -> {}\n",
        shown_name(&change.name),
        value(&change.before, "(absent)"),
        value(&change.after, "(deleted)")
    )
}

/// A stored content as compact JSON: decompressed first when it is a vlmetalayer's chunk,
/// decoded with `layout` when it reads the bytes, else as plain msgpack, else as hex.
fn shown(content: &[u8], chunk: bool, layout: Option<&Layout>) -> String {
    let bytes = if chunk {
        match vlmeta::decompress(content, vlmeta::DEFAULT_LIMIT) {
            Ok(bytes) => bytes,
            Err(e) => return format!("(a chunk that does not decompress: {e})"),
        }
    } else {
        content.to_vec()
    };
    if let Some(value) = layout.and_then(|l| to_json_value(l, &bytes).ok()) {
        return value.to_string();
    }
    let budget = Budget::new();
    let mut text = Vec::new();
    match Msgpack::new(&bytes, &budget) {
        Ok(value) if write_json(&mut text, &value).is_ok() => String::from_utf8_lossy(&text).into_owned(),
        _ => format!("(bytes {})", metalayer::value::json::hex(&bytes)),
    }
}

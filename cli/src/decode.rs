//! `metalayer decode`: raw metalayer bytes in, every entry out.

use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

use metalayer::value::Typed;
use metalayer_layout::Layout;
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::output::{Out, Stop};
use crate::render;
use crate::schema::{self, SchemaArg};

/// The most bytes read from the input: a metalayer lives in a frame header, which the frame
/// reader caps at 64 MiB (`metalayer::frame::MAX_HEADER_LEN`).
const MAX_INPUT: u64 = 1 << 26;

/// Reads all of `input` (`-` is stdin), at most [`MAX_INPUT`] bytes.
pub fn read_input(input: &Path) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let result = if input == Path::new("-") {
        std::io::stdin().lock().take(MAX_INPUT + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(input).and_then(|f| f.take(MAX_INPUT + 1).read_to_end(&mut bytes))
    };
    let shown = shown(input);
    result.map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(format!("{shown}: more than {MAX_INPUT} bytes; a metalayer is smaller"));
    }
    Ok(bytes)
}

/// How an input is named in messages.
pub fn shown(input: &Path) -> String {
    if input == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        input.display().to_string()
    }
}

/// Decodes all of `bytes` with `layout`, or with the built-in layout whose fixed prefix fits
/// them.
pub fn decode<'b>(bytes: &'b [u8], layout: Option<&'b Layout>) -> Result<Typed<'b>, String> {
    let layout = match layout {
        Some(layout) => layout,
        // Dispatch on the bytes alone, whatever name the layout is stored under: among the
        // built-ins whose fixed prefix says something (a layout that starts with a value, such
        // as a single integer, fits any bytes), exactly one must fit.
        None => {
            let mut fitting: Vec<&str> = Vec::new();
            for c in schema::candidates()
                .iter()
                .filter(|c| !c.prefix.is_empty() && c.accepts(bytes))
            {
                if !fitting.contains(&c.schema) {
                    fitting.push(c.schema);
                }
            }
            match fitting[..] {
                [one] => schema::builtin(one).ok_or_else(|| format!("{one}: the built-in schema does not check"))?,
                [] => return Err(no_layout_fits(bytes)),
                _ => {
                    return Err(format!(
                        "several built-in layouts fit the bytes ({}): name one with --schema",
                        fitting.join(", ")
                    ));
                }
            }
        }
    };
    Typed::new(layout, bytes).map_err(|e| e.to_string())
}

/// Says, for each built-in layout, the first byte of its fixed prefix that the input breaks,
/// layouts that expect the same there named together.
fn no_layout_fits(bytes: &[u8]) -> String {
    /// Where a prefix breaks: offset, the range expected there, the byte found.
    type Break = (usize, u8, u8, u8);
    // Each break with the schemas that break there, in candidate order.
    let mut groups: Vec<(Break, Vec<&str>)> = Vec::new();
    for c in schema::candidates().iter().filter(|c| !c.prefix.is_empty()) {
        let broken = c
            .prefix
            .iter()
            .zip(bytes)
            .enumerate()
            .find(|&(_, (&(lo, hi), &b))| b < lo || b > hi);
        if let Some((offset, (&(lo, hi), &found))) = broken {
            let key = (offset, lo, hi, found);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, schemas)) if !schemas.contains(&c.schema) => schemas.push(c.schema),
                Some(_) => {}
                None => groups.push((key, vec![c.schema])),
            }
        }
    }
    let mut text = String::from("no built-in layout fits:");
    for (i, ((offset, lo, hi, found), schemas)) in groups.iter().enumerate() {
        let sep = if i > 0 { ";" } else { "" };
        let expected = if lo == hi {
            format!("{lo:#04x}")
        } else {
            format!("{lo:#04x}..={hi:#04x}")
        };
        // Writing to a String cannot fail.
        let _ = write!(
            text,
            "{sep} {} expect{} {expected} at byte {offset:#04x}, found {found:#04x}",
            schemas.join(", "),
            if schemas.len() == 1 { "s" } else { "" }
        );
    }
    text
}

/// The JSON report of a decoded value: `{"schema", "fields": {...}}` for a record, whose
/// entries are the fields, `{"schema", "value": ...}` for any other value.
pub struct Report<'b>(pub Typed<'b>);

impl Serialize for Report<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("schema", &self.0.layout().schema)?;
        let key = if self.0.is_record() { "fields" } else { "value" };
        map.serialize_entry(key, &self.0)?;
        map.end()
    }
}

/// The text lines of a decoded value: one per entry of a record, else one `value` line.
pub fn lines(value: &Typed<'_>) -> Vec<(String, String)> {
    let mut lines = Vec::new();
    let record = value.fields(|name, field| {
        lines.push((name.to_owned(), render::text(field)));
        Ok::<(), serde_json::Error>(())
    });
    if !record.unwrap_or(false) {
        lines.push(("value".to_owned(), render::text(value)));
    }
    lines
}

/// Runs `decode` on one input.
pub fn run(out: &mut Out, input: &Path, schema: Option<&SchemaArg>, hex: bool, json: bool) -> Result<(), Stop> {
    let layout = match schema.map(SchemaArg::load).transpose() {
        Ok(layout) => layout,
        Err(e) => {
            e.report(out);
            return Ok(());
        }
    };
    let shown = shown(input);
    let bytes = match read_input(input) {
        Ok(bytes) => bytes,
        Err(e) => {
            out.error(e);
            return Ok(());
        }
    };
    let bytes = if hex {
        match std::str::from_utf8(&bytes)
            .map_err(|e| e.to_string())
            .and_then(render::parse_hex)
        {
            Ok(bytes) => bytes,
            Err(e) => {
                out.error(format_args!("{shown}: not hex: {e}"));
                return Ok(());
            }
        }
    } else {
        bytes
    };
    let value = match decode(&bytes, layout.as_ref()) {
        Ok(value) => value,
        Err(e) => {
            out.error(format_args!("{shown}: {e}"));
            return Ok(());
        }
    };
    let text = if json {
        render::pretty_json(&Report(value))
    } else {
        let len = bytes.len();
        let unit = if len == 1 { "byte" } else { "bytes" };
        let mut text = format!("{}  {len} {unit}\n", value.layout().schema);
        render::write_lines(&mut text, 2, &lines(&value));
        text
    };
    out.print(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_without_a_name() {
        let caterva = [
            0x95, 0x00, 0x01, 0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 4, 0x91, 0xd2, 0, 0, 0, 2, 0x91, 0xd2, 0, 0, 0, 1,
        ];
        let value = decode(&caterva, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(value.layout().schema, "caterva_v0");
        assert_eq!(
            serde_json::to_string(&value).unwrap_or_default(),
            r#"{"version":0,"ndim":1,"shape":[4],"chunkshape":[2],"blockshape":[1]}"#
        );
    }

    #[test]
    fn no_fit_names_each_schema_once() {
        let err = decode(&[0x94], None).err().unwrap_or_default();
        assert_eq!(
            err,
            "no built-in layout fits: b2nd_v1 expects 0x97 at byte 0x00, found 0x94; \
             b2nd_v0 expects 0x96 at byte 0x00, found 0x94; caterva_v0 expects 0x95 at byte 0x00, found 0x94"
        );
        let err = decode(&[0x97, 0x00, 0x20], None).err().unwrap_or_default();
        assert!(
            err.contains("b2nd_v1 expects 0x00..=0x10 at byte 0x02, found 0x20"),
            "{err}"
        );
    }
}

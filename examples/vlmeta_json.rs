//! Decodes the variable-length metalayers of a Blosc2 file to JSON through the library, one
//! line each, `{"name": ..., "value": ...}`, written as each is decompressed:
//! `cargo run --example vlmeta_json --features value [PATH]` (by default a sample shipped in the
//! repository, whose values are every msgpack type python-blosc2 stores).

use std::io::Write;

use metalayer::frame;
use metalayer::value::{Budget, Msgpack, json::Hex};
use serde::ser::{SerializeMap, Serializer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd"
        )
        .into()
    });
    let frame = frame::Frame::open(&path)?;
    // One budget for the file: decompressed bytes held, work and msgpack values, bounded.
    let budget = Budget::new();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for vl in &frame.vlmetalayers {
        // A vlmetalayer's content is a Blosc2 chunk; a memcpyed one is borrowed, not copied.
        let bytes = budget.decompress(&vl.content)?;
        let mut line = serde_json::Serializer::new(&mut out);
        let mut map = line.serialize_map(Some(2))?;
        map.serialize_entry("name", &vl.name)?;
        match Msgpack::new(&bytes, &budget) {
            // Written straight from the bytes: no tree of the value is built.
            Ok(value) => map.serialize_entry("value", &value)?,
            Err(why) => {
                map.serialize_entry("hex", &Hex(&bytes))?;
                map.serialize_entry("not_msgpack", &why.to_string())?;
            }
        }
        map.end()?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}

//! `metalayer encode`: a value as JSON in, the exact metalayer bytes out.

use std::path::Path;

use metalayer_layout::Layout;
use serde_json::Value;

use crate::output::{Out, Stop};
use crate::render;
use crate::schema::SchemaArg;
use metalayer::value;

/// Encodes JSON text with `layout`: a record's entries as an object, constants and counts
/// optional (given, they must equal what the encoder derives).
pub fn encode(layout: &Layout, json: &str) -> Result<Vec<u8>, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| format!("the entries are not valid JSON: {e}"))?;
    value::encode(layout, &value).map_err(|e| e.to_string())
}

/// Runs `encode`: `json` is the value's text, or `-` for stdin.
pub fn run(out: &mut Out, schema: &SchemaArg, output: Option<&Path>, json: &str) -> Result<(), Stop> {
    let layout = match schema.load() {
        Ok(layout) => layout,
        Err(e) => {
            e.report(out);
            return Ok(());
        }
    };
    let text;
    let json = if json == "-" {
        match crate::decode::read_input(Path::new("-")) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(s) => {
                    text = s;
                    text.as_str()
                }
                Err(_) => {
                    out.error("<stdin>: the entries are not UTF-8");
                    return Ok(());
                }
            },
            Err(e) => {
                out.error(e);
                return Ok(());
            }
        }
    } else {
        json
    };
    let bytes = match encode(&layout, json) {
        Ok(bytes) => bytes,
        Err(e) => {
            out.error(e);
            return Ok(());
        }
    };
    match output {
        Some(path) if path == Path::new("-") => out.print_bytes(&bytes),
        Some(path) => {
            if let Err(e) = std::fs::write(path, &bytes) {
                out.error(format_args!("cannot write {}: {e}", path.display()));
            }
            Ok(())
        }
        None => out.print(&(render::hex(&bytes) + "\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema;

    fn b2nd_v1() -> &'static Layout {
        match schema::builtin("b2nd_v1") {
            Some(layout) => layout,
            None => panic!("b2nd_v1 is built in"),
        }
    }

    fn err(json: &str) -> String {
        encode(b2nd_v1(), json).err().unwrap_or_default()
    }

    #[test]
    fn encodes_exact_bytes() {
        let bytes = encode(
            b2nd_v1(),
            r#"{"shape":[400,3],"chunkshape":[110,3],"blockshape":[57,3],"dtype_format":0,"dtype":"|u1"}"#,
        );
        // By hand from c-blosc2's layout: 0x97, version 0, ndim 2; 0x92 then d3 + 400 and d3 + 3;
        // 0x92 d2 + 110, d2 + 3; 0x92 d2 + 57, d2 + 3; dtype_format 0; db + length 3 + "|u1".
        assert_eq!(
            bytes.map(|b| render::hex(&b)),
            Ok("97000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d20000000300db000000037c7531".to_owned())
        );
    }

    #[test]
    fn clear_errors() {
        let good = r#""shape":[10,20],"chunkshape":[5,20],"blockshape":[5,5],"dtype_format":0,"dtype":"<f8""#;
        let obj = |fields: &str| format!("{{{fields}}}");
        assert_eq!(err(r#"{"shape":[10,20]}"#), "b2nd_v1: missing entry `chunkshape`");
        assert_eq!(
            err(&obj(&format!("{good},\"extra\":1"))),
            "b2nd_v1: unknown entry `extra`; the entries are version, ndim, shape, chunkshape, blockshape, dtype_format, dtype"
        );
        assert_eq!(
            err(&obj(&good.replace("[5,20]", "[5,3000000000]"))),
            "b2nd_v1: in chunkshape[1]: expected a value in -2147483648..=2147483647, found 3000000000"
        );
        assert_eq!(
            err(&obj(&good.replace("\"<f8\"", "8"))),
            "b2nd_v1: in dtype: expected a string, found the number 8"
        );
        assert_eq!(
            err(&obj(&good.replace("[10,20]", "[10.5,20]"))),
            "b2nd_v1: in shape[0]: expected an integer (int64), found the number 10.5"
        );
        assert_eq!(
            err(&obj(&format!("{good},\"ndim\":3"))),
            "b2nd_v1: in ndim: given 3, but shape, chunkshape, blockshape have 2 elements"
        );
        assert_eq!(
            err(&obj(&format!("{good},\"version\":1"))),
            "b2nd_v1: in version: expected constant 0, found 1"
        );
        assert!(encode(b2nd_v1(), &obj(&format!("\"version\":0,\"ndim\":2,{good}"))).is_ok());
        assert_eq!(
            err(&obj(&good.replace("[5,5]", "[5]"))),
            "b2nd_v1: in blockshape: expected 2 elements (the length of shape, both counted by ndim), found 1"
        );
        assert_eq!(err("[1]"), "b2nd_v1: expected an object of entries, found an array");
    }
}

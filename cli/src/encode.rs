//! `metalayer encode`: entries as a JSON object in, the exact metalayer bytes out.

use std::fmt::Display;
use std::path::Path;

use metalayer::Metalayer;
use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer_layout::{EntryKind, IntRole, Layout};
use serde_json::{Map, Value};

use crate::output::{Out, Stop};
use crate::render;
use crate::schema::Schema;

/// The JSON object's entries, taken one by one so that extra ones can be found.
struct Fields<'a> {
    schema: &'static str,
    map: &'a Map<String, Value>,
}

/// A Rust integer type a field can have.
trait FieldInt: TryFrom<i128> + Copy {
    /// Its name in messages.
    const NAME: &'static str;
    /// Its range in messages.
    fn range() -> (impl Display, impl Display);
}

macro_rules! field_int {
    ($($t:ty),*) => {$(
        impl FieldInt for $t {
            const NAME: &'static str = stringify!($t);
            fn range() -> (impl Display, impl Display) {
                (<$t>::MIN, <$t>::MAX)
            }
        }
    )*};
}
field_int!(u8, i32, i64);

/// What a JSON value is, for messages.
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", Value::String(s.clone())),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// A JSON integer as an exact i128; floats and numbers beyond u64 are not integers.
fn json_int(value: &Value) -> Option<i128> {
    let n = value.as_number()?;
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

impl Fields<'_> {
    fn get(&self, name: &str) -> Result<&Value, String> {
        self.map
            .get(name)
            .ok_or_else(|| format!("{}: missing entry `{name}`", self.schema))
    }

    fn int_value<T: FieldInt>(&self, path: &str, value: &Value) -> Result<T, String> {
        let int = json_int(value).ok_or_else(|| {
            format!(
                "{}: in {path}: expected an integer ({}), found {}",
                self.schema,
                T::NAME,
                kind(value)
            )
        })?;
        T::try_from(int).map_err(|_| {
            let (min, max) = T::range();
            format!(
                "{}: in {path}: {int} does not fit {} ({min}..={max})",
                self.schema,
                T::NAME
            )
        })
    }

    fn int<T: FieldInt>(&self, name: &str) -> Result<T, String> {
        self.int_value(name, self.get(name)?)
    }

    fn ints<T: FieldInt>(&self, name: &str) -> Result<Vec<T>, String> {
        let value = self.get(name)?;
        let items = value.as_array().ok_or_else(|| {
            format!(
                "{}: in {name}: expected an array of integers ({}), found {}",
                self.schema,
                T::NAME,
                kind(value)
            )
        })?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.int_value(&format!("{name}[{i}]"), item))
            .collect()
    }

    fn string(&self, name: &str) -> Result<String, String> {
        let value = self.get(name)?;
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{}: in {name}: expected a string, found {}", self.schema, kind(value)))
    }
}

/// Builds the schema's ready-made value from the fields and encodes it.
fn encode_fields(schema: Schema, f: &Fields<'_>) -> Result<Vec<u8>, String> {
    let encoded = match schema {
        Schema::CatervaV0 => CatervaV0 {
            shape: f.ints("shape")?,
            chunkshape: f.ints("chunkshape")?,
            blockshape: f.ints("blockshape")?,
        }
        .encode(),
        Schema::B2ndV0 => B2ndV0 {
            shape: f.ints("shape")?,
            chunkshape: f.ints("chunkshape")?,
            blockshape: f.ints("blockshape")?,
            dtype: f.string("dtype")?,
        }
        .encode(),
        Schema::B2ndV1 => B2ndV1 {
            shape: f.ints("shape")?,
            chunkshape: f.ints("chunkshape")?,
            blockshape: f.ints("blockshape")?,
            dtype_format: f.int("dtype_format")?,
            dtype: f.string("dtype")?,
        }
        .encode(),
    };
    encoded.map_err(|e| e.to_string())
}

/// Encodes a JSON object of entries with `schema`. Every field entry is required; constants and
/// lengths may be given, and must then equal the values the encoder derives.
pub fn encode(schema: Schema, json: &str) -> Result<Vec<u8>, String> {
    let name = schema.name();
    let layout: Layout =
        metalayer_layout::builtin_layout(name).ok_or_else(|| format!("{name}: the built-in schema does not parse"))?;
    let value: Value = serde_json::from_str(json).map_err(|e| format!("the entries are not valid JSON: {e}"))?;
    let map = value
        .as_object()
        .ok_or_else(|| format!("{name}: expected a JSON object of entries, found {}", kind(&value)))?;
    for key in map.keys() {
        if layout.entry(key).is_none() {
            let names: Vec<&str> = layout.entries.iter().map(|e| e.name.as_str()).collect();
            return Err(format!(
                "{name}: unknown entry `{key}`; the entries are {}",
                names.join(", ")
            ));
        }
    }
    let fields = Fields { schema: name, map };
    let bytes = encode_fields(schema, &fields)?;

    // Constants and lengths that were given must equal the derived ones.
    let derived = schema
        .decode(&bytes)
        .map_err(|e| format!("{name}: the encoding does not decode back: {e}"))?;
    for entry in &layout.entries {
        let EntryKind::Int { role, .. } = &entry.kind else {
            continue;
        };
        let Some(given) = map.get(&entry.name) else {
            continue;
        };
        let derived_value = derived.get(&entry.name).and_then(json_int);
        let given_value = json_int(given)
            .ok_or_else(|| format!("{name}: in {}: expected an integer, found {}", entry.name, kind(given)))?;
        if Some(given_value) == derived_value {
            continue;
        }
        let derived_text = derived_value.map_or_else(|| "?".to_owned(), |v| v.to_string());
        return Err(match role {
            IntRole::Const { value } => {
                format!(
                    "{name}: in {}: expected constant {value}, found {given_value}",
                    entry.name
                )
            }
            IntRole::Count { arrays, .. } => {
                let counted: Vec<&str> = arrays
                    .iter()
                    .filter_map(|&i| layout.entries.get(i))
                    .map(|e| e.name.as_str())
                    .collect();
                format!(
                    "{name}: in {}: given {given_value}, but {} have {derived_text} elements",
                    entry.name,
                    counted.join(", ")
                )
            }
            IntRole::Value { .. } => {
                format!(
                    "{name}: in {}: given {given_value}, encoded as {derived_text}",
                    entry.name
                )
            }
        });
    }
    Ok(bytes)
}

/// Runs `encode`: `json` is the object's text, or `-` for stdin.
pub fn run(out: &mut Out, schema: Schema, output: Option<&Path>, json: &str) -> Result<(), Stop> {
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
    let bytes = match encode(schema, json) {
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

    fn err(schema: Schema, json: &str) -> String {
        encode(schema, json).err().unwrap_or_default()
    }

    #[test]
    fn encodes_exact_bytes() {
        let bytes = encode(
            Schema::B2ndV1,
            r#"{"shape":[400,3],"chunkshape":[110,3],"blockshape":[57,3],"dtype_format":0,"dtype":"|u1"}"#,
        );
        assert_eq!(
            bytes.map(|b| render::hex(&b)),
            Ok("97000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d20000000300db000000037c7531".to_owned())
        );
    }

    #[test]
    fn clear_errors() {
        let good = r#""shape":[10,20],"chunkshape":[5,20],"blockshape":[5,5],"dtype_format":0,"dtype":"<f8""#;
        assert_eq!(
            err(Schema::B2ndV1, r#"{"shape":[10,20]}"#),
            "b2nd_v1: missing entry `chunkshape`"
        );
        assert_eq!(
            err(Schema::B2ndV1, &format!("{{{good},\"extra\":1}}")),
            "b2nd_v1: unknown entry `extra`; the entries are version, ndim, shape, chunkshape, blockshape, dtype_format, dtype"
        );
        assert_eq!(
            err(Schema::B2ndV1, &good.replace("[5,20]", "[5,3000000000]").pipe_obj()),
            "b2nd_v1: in chunkshape[1]: 3000000000 does not fit i32 (-2147483648..=2147483647)"
        );
        assert_eq!(
            err(Schema::B2ndV1, &good.replace("\"<f8\"", "8").pipe_obj()),
            "b2nd_v1: in dtype: expected a string, found the number 8"
        );
        assert_eq!(
            err(Schema::B2ndV1, &good.replace("[10,20]", "[10.5,20]").pipe_obj()),
            "b2nd_v1: in shape[0]: expected an integer (i64), found the number 10.5"
        );
        assert_eq!(
            err(Schema::B2ndV1, &format!("{{{good},\"ndim\":3}}")),
            "b2nd_v1: in ndim: given 3, but shape, chunkshape, blockshape have 2 elements"
        );
        assert_eq!(
            err(Schema::B2ndV1, &format!("{{{good},\"version\":1}}")),
            "b2nd_v1: in version: expected constant 0, found 1"
        );
        assert!(encode(Schema::B2ndV1, &format!("{{\"version\":0,\"ndim\":2,{good}}}")).is_ok());
        assert_eq!(
            err(Schema::B2ndV1, &good.replace("[5,5]", "[5]").pipe_obj()),
            "b2nd_v1: in blockshape: expected 2 elements (the length of shape, both counted by ndim), found 1"
        );
        assert_eq!(
            err(Schema::B2ndV1, "[1]"),
            "b2nd_v1: expected a JSON object of entries, found an array"
        );
    }

    trait PipeObj {
        fn pipe_obj(&self) -> String;
    }

    impl PipeObj for String {
        fn pipe_obj(&self) -> String {
            format!("{{{self}}}")
        }
    }
}

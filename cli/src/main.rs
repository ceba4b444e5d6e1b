//! `metalayer`: inspect, decode and encode the msgpack metalayers of Blosc2 files.
//!
//! - `metalayer inspect [--json] PATH...`: every metalayer of contiguous frame files and
//!   sparse-frame directories, in stored order; `b2nd` and `caterva` decoded entry by entry with
//!   the layout that fits their bytes, other metalayers as hex and, when they are msgpack, decoded.
//! - `metalayer decode [--schema SCHEMA] [--hex] [--json] FILE|-`: one metalayer's bytes decoded.
//! - `metalayer encode --schema SCHEMA [-o FILE] JSON|-`: the exact bytes of a metalayer.
//! - `metalayer diagram SCHEMA`: a schema's byte layout.
//! - `metalayer schemas [--json]`: the built-in schemas.
//!
//! SCHEMA is a built-in name or the path of a schema file; values of any schema are decoded and
//! encoded by walking its layout model (`value`), with the JSON conventions of the README.
//!
//! Exit status: 0 when everything decoded, 1 when anything failed (each failure is reported on
//! stderr, naming the path, the byte offset and the entry; other paths are still reported), 2 for
//! usage errors.

mod decode;
mod encode;
#[cfg(feature = "inspect")]
mod inspect;
#[cfg(feature = "inspect")]
mod msgpack;
mod output;
mod render;
mod schema;
mod value;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value};

use crate::output::{Out, Stop};
use crate::schema::SchemaArg;

/// Inspect, decode and encode the msgpack metalayers (b2nd, caterva) of Blosc2 files.
#[derive(Debug, Parser)]
#[command(name = "metalayer", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    #[cfg(feature = "inspect")]
    /// List every metalayer of Blosc2 frames, decoding b2nd/caterva and msgpack user metalayers.
    ///
    /// With --json, prints one array for all paths: [{"path", "metalayers": [{"name", "len",
    /// "schema", "fields"} | {"name", "len", "hex", "msgpack"?} | {"name", "len", "hex",
    /// "error"}]}], or {"path", "error"} for a frame that cannot be read. "msgpack" is left out
    /// when the bytes are not one complete msgpack value.
    Inspect {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Contiguous frame files (.b2nd, .b2frame, .cat) or sparse-frame directories.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Decode one metalayer's raw bytes and print every entry.
    ///
    /// Without --schema, the layout is chosen among the built-ins from the bytes' fixed prefix
    /// alone.
    Decode {
        /// Decode with this schema: a built-in name or the path of a schema file.
        #[arg(long, value_name = "SCHEMA", value_parser = SchemaArg::parse)]
        schema: Option<SchemaArg>,
        /// The input is hex text (as `encode` prints) rather than raw bytes.
        #[arg(long)]
        hex: bool,
        /// Print {"schema": ..., "fields": {...}} as JSON instead of text ("value" instead of
        /// "fields" for a schema whose value is not a record).
        #[arg(long)]
        json: bool,
        /// The file holding the bytes, or - for stdin.
        #[arg(value_name = "FILE|-")]
        input: PathBuf,
    },
    /// Encode entries given as a JSON object, and print the bytes as hex or write them to a file.
    ///
    /// Constants and lengths (version, ndim) may be left out; given, they must match. The JSON
    /// form of each value is the one `decode --json` prints.
    #[command(after_help = ENCODE_EXAMPLE)]
    Encode {
        /// The schema to encode with: a built-in name or the path of a schema file.
        #[arg(long, value_name = "SCHEMA", value_parser = SchemaArg::parse)]
        schema: SchemaArg,
        /// Write the raw bytes to this file (- for stdout) instead of printing hex.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The entries as a JSON object, or - to read it from stdin.
        #[arg(value_name = "JSON")]
        entries: String,
    },
    #[cfg(feature = "diagram")]
    /// Print a schema's byte-layout diagram, offsets and length formula.
    Diagram {
        /// A built-in schema name (`b2nd_v1`) or the path of a schema file.
        #[arg(value_name = "SCHEMA", value_parser = SchemaArg::parse)]
        schema: SchemaArg,
    },
    /// List the built-in schemas: name, metalayer name and description.
    Schemas {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// The example under `metalayer encode --help`.
const ENCODE_EXAMPLE: &str = r#"Example:
  metalayer encode --schema b2nd_v1 '{"shape":[10,20],"chunkshape":[5,20],"blockshape":[5,5],"dtype_format":0,"dtype":"<f8"}'"#;

fn schemas(out: &mut Out, json: bool) -> Result<(), Stop> {
    let rows: Vec<(&str, String, String)> = metalayer_layout::BUILTINS
        .iter()
        .map(|b| match metalayer_layout::builtin_layout(b.name) {
            Some(layout) => (b.name, layout.metalayer, layout.description),
            None => (b.name, String::new(), "(the schema does not parse)".to_owned()),
        })
        .collect();
    let text = if json {
        let list = rows
            .iter()
            .map(|(name, metalayer, description)| {
                let mut row = Map::new();
                row.insert("name".to_owned(), Value::String((*name).to_owned()));
                row.insert("metalayer".to_owned(), Value::String(metalayer.clone()));
                row.insert("description".to_owned(), Value::String(description.clone()));
                Value::Object(row)
            })
            .collect();
        render::pretty_json(&Value::Array(list))
    } else {
        let name_width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let metalayer_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
        rows.iter()
            .map(|(name, metalayer, description)| {
                format!("{name:<name_width$}  {metalayer:<metalayer_width$}  {description}")
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    out.print(&text)
}

/// Prints the diagram and formulas of a built-in schema or of a schema file.
#[cfg(feature = "diagram")]
fn diagram(out: &mut Out, schema: &SchemaArg) -> Result<(), Stop> {
    match schema.load() {
        Ok(layout) => out.print(&render::diagram(&layout)),
        Err(e) => {
            e.report(out);
            Ok(())
        }
    }
}

fn run(out: &mut Out, command: Command) -> Result<(), Stop> {
    match command {
        #[cfg(feature = "inspect")]
        Command::Inspect { json, paths } => inspect::run(out, &paths, json)?,
        Command::Decode {
            schema,
            hex,
            json,
            input,
        } => decode::run(out, &input, schema.as_ref(), hex, json)?,
        Command::Encode {
            schema,
            output,
            entries,
        } => encode::run(out, &schema, output.as_deref(), &entries)?,
        Command::Schemas { json } => schemas(out, json)?,
        #[cfg(feature = "diagram")]
        Command::Diagram { schema } => diagram(out, &schema)?,
    }
    out.flush()
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0, usage errors to stderr with 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let mut out = Out::new();
    match run(&mut out, cli.command) {
        Ok(()) | Err(Stop::BrokenPipe) => {}
        Err(e @ Stop::Io(_)) => out.error(e),
    }
    if out.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        super::Cli::command().debug_assert();
    }
}

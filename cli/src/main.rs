//! `metalayer`: inspect, decode and encode the msgpack metalayers of Blosc2 files.
//!
//! - `metalayer inspect [--json] PATH...`: every metalayer of contiguous frame files and
//!   sparse-frame directories, in stored order; `b2nd` and `caterva` decoded entry by entry with
//!   the layout that fits their bytes, other metalayers as hex and, when they are msgpack, decoded.
//! - `metalayer decode [--schema NAME] [--hex] [--json] FILE|-`: one metalayer's bytes decoded.
//! - `metalayer encode --schema NAME [-o FILE] JSON|-`: the exact bytes of a metalayer.
//! - `metalayer schemas [--json]`: the built-in schemas.
//!
//! Exit status: 0 when everything decoded, 1 when anything failed (each failure is reported on
//! stderr, naming the path, the byte offset and the entry; other paths are still reported), 2 for
//! usage errors.

mod decode;
mod encode;
mod inspect;
mod output;
mod render;
mod schema;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value};

use crate::output::{Out, Stop};
use crate::schema::Schema;

/// Inspect, decode and encode the msgpack metalayers (b2nd, caterva) of Blosc2 files.
#[derive(Debug, Parser)]
#[command(name = "metalayer", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    /// Without --schema, the layout is chosen from the bytes' fixed prefix alone.
    Decode {
        /// Decode with this built-in schema.
        #[arg(long, value_name = "NAME")]
        schema: Option<Schema>,
        /// The input is hex text (as `encode` prints) rather than raw bytes.
        #[arg(long)]
        hex: bool,
        /// Print {"schema": ..., "fields": {...}} as JSON instead of text.
        #[arg(long)]
        json: bool,
        /// The file holding the bytes, or - for stdin.
        #[arg(value_name = "FILE|-")]
        input: PathBuf,
    },
    /// Encode entries given as a JSON object, and print the bytes as hex or write them to a file.
    ///
    /// Constants and lengths (version, ndim) may be left out; given, they must match.
    #[command(after_help = ENCODE_EXAMPLE)]
    Encode {
        /// The built-in schema to encode with.
        #[arg(long, value_name = "NAME")]
        schema: Schema,
        /// Write the raw bytes to this file (- for stdout) instead of printing hex.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The entries as a JSON object, or - to read it from stdin.
        #[arg(value_name = "JSON")]
        entries: String,
    },
    /// Print a schema's byte-layout diagram, offsets and length formula.
    Diagram {
        /// A built-in schema name (`b2nd_v1`) or the path of a schema file.
        #[arg(value_name = "SCHEMA")]
        schema: String,
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
fn diagram(out: &mut Out, schema: &str) -> Result<(), Stop> {
    let layout = match metalayer_layout::builtin(schema) {
        Some(builtin) => metalayer_layout::parse(builtin.name, builtin.text)
            .map_err(|errors| render_errors(&errors, &format!("schemas/{}.toml", builtin.name), builtin.text)),
        None => {
            let path = std::path::Path::new(schema);
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or(schema);
            match std::fs::read_to_string(path) {
                Ok(text) => {
                    metalayer_layout::parse(name, &text).map_err(|errors| render_errors(&errors, schema, &text))
                }
                Err(e) => {
                    let builtins: Vec<&str> = metalayer_layout::BUILTINS.iter().map(|b| b.name).collect();
                    Err(format!(
                        "{schema}: not a built-in schema ({}) and not a readable file: {e}",
                        builtins.join(", ")
                    ))
                }
            }
        }
    };
    match layout {
        Ok(layout) => out.print(&format!(
            "{}\n{}",
            metalayer_layout::diagram(&layout).trim_end(),
            format_args!("\n{}\n", metalayer_layout::formulas(&layout).trim_end())
        )),
        Err(message) => {
            out.error(message);
            Ok(())
        }
    }
}

fn render_errors(errors: &[metalayer_layout::Diagnostic], path: &str, text: &str) -> String {
    errors
        .iter()
        .map(|e| e.render(path, text))
        .collect::<Vec<_>>()
        .join("\n")
}

fn run(out: &mut Out, command: Command) -> Result<(), Stop> {
    match command {
        Command::Inspect { json, paths } => inspect::run(out, &paths, json)?,
        Command::Decode {
            schema,
            hex,
            json,
            input,
        } => decode::run(out, &input, schema, hex, json)?,
        Command::Encode {
            schema,
            output,
            entries,
        } => encode::run(out, schema, output.as_deref(), &entries)?,
        Command::Schemas { json } => schemas(out, json)?,
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

//! `metalayer`: inspect, decode and encode the msgpack metalayers of Blosc2 files.
//!
//! - `metalayer inspect [--json|--jsonl] [--hex] [-L] PATH...`: the header's fields, every
//!   metalayer and every vlmetalayer of contiguous frame files and sparse-frame directories
//!   (`metalayer::report`), in stored order, directories walked (`walk`), `-` for stdin;
//!   metalayers decoded entry by entry with the layout of their name that fits their bytes, others
//!   decoded as msgpack, or as hex when they are not; vlmetalayers decompressed first; `--hex`
//!   adds each value's bytes.
//! - `metalayer decode [--schema SCHEMA] [--hex] [--json] FILE|-`: one metalayer's bytes decoded.
//! - `metalayer encode --schema SCHEMA [-o FILE] JSON|-`: the exact bytes of a metalayer.
//! - `metalayer set [--meta NAME=JSON] [--vlmeta KEY=JSON] [--delete-vlmeta KEY] [--dry-run]
//!   FILE...`: metalayers updated in place and vlmetalayers added, replaced or deleted, each file
//!   replaced atomically (`metalayer::frame::edit`).
//! - `metalayer diagram SCHEMA`: a schema's byte layout.
//! - `metalayer schemas [--json]`: the built-in schemas.
//! - `metalayer completions SHELL`: a completion script for bash, zsh, fish, elvish or
//!   powershell.
//!
//! SCHEMA is a built-in name or the path of a schema file; values of any schema are decoded and
//! encoded by walking its layout model (`metalayer::value`), with the JSON conventions of the README.
//!
//! Exit status: 0 when everything decoded, 1 when anything failed (each failure is reported on
//! stderr, naming the path, the byte offset and the entry; other paths are still reported; a
//! python-blosc2 metalayer of a shape no built-in layout reads is shown as msgpack with a
//! warning, which is not a failure), 2 for
//! usage errors (those clap finds, and `misuse`: `-` given twice to `inspect`, raw bytes bound for
//! a terminal).

mod decode;
#[cfg(feature = "inspect")]
mod embed;
mod encode;
#[cfg(feature = "inspect")]
mod inspect;
mod output;
mod render;
mod schema;
mod set;
#[cfg(feature = "inspect")]
mod store_edit;
#[cfg(feature = "inspect")]
mod tree;
#[cfg(feature = "inspect")]
mod walk;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use serde_json::{Map, Value};

use metalayer::frame::edit::WriteOptions;

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
    /// Show the header, metalayers and vlmetalayers of Blosc2 frames, each decoded.
    ///
    /// Directories are walked recursively, each one's entries in file-name order: files that
    /// start with the frame magic are contiguous frames whatever their name, directories that
    /// hold a chunks.b2frame file are sparse frames (not walked into), files named *.b2z that
    /// start with the zip magic are stores, other files are skipped. A file given by name is
    /// always inspected; - reads one contiguous frame from stdin.
    ///
    /// A .b2z store (python-blosc2's DictStore, TreeStore or CTable as a zip) is read from its
    /// central directory, and each member is inspected in place as store.b2z/member; a member
    /// that is compressed is an error of its own (members are stored), the others are shown.
    /// The frames an EmbedStore (a store's embed.b2e) holds are reported after it, each as
    /// embed.b2e/key.
    ///
    /// Only the header and the trailer are read, never the chunks. Each vlmetalayer is
    /// decompressed (at most 64 MiB) and decoded with a --schemas layout of its name, or as
    /// msgpack; python-blosc2's extension types are shown as what they hold, a frame stored in a
    /// value (ext 42) as a nested report. Reports are written as they are read; a path, nested
    /// frames included, is read within 64 levels, 2^24 msgpack values, 160 MiB held and 1 GiB of
    /// work, and what passes a limit is shown as bytes with a note and fails the run. Text
    /// escapes every control character from the file.
    ///
    /// With --json, prints one array for all frames: [{"format": 2, "path", "header",
    /// "metalayers": [...], "trailer", "vlmetalayers": [...]}], each metalayer {"name", "len",
    /// "schema", "fields"} | {"name", "len", "msgpack"} | {"name", "len", "hex", "note"?} |
    /// {"name", "len", "hex", "error"}, each vlmetalayer the same with "chunk_len" (or {"name",
    /// "chunk_len", "error"}); {"format", "path", "metalayers", "error"} when the trailer cannot
    /// be read, {"format", "path", "error"} for a frame or directory that cannot be read. With
    /// --jsonl, prints the same objects one per line, each as soon as its frame is read. Each
    /// byte is written once: as the value it decodes to, or as hex ("hex", an ext's "data") when
    /// it decodes to nothing (not one complete msgpack value, with a "note" when a limit is
    /// why); a frame held in a value is reported where it is. --hex adds each value's bytes: an
    /// item's "hex", each ext's "data". A "warning" follows "msgpack" when a metalayer under
    /// one of python-blosc2's names has a shape none of its built-in layouts reads (not a
    /// failure); "path_bytes" (the path's bytes in hex) is added only when the path is not
    /// UTF-8.
    #[command(after_help = INSPECT_EXAMPLE)]
    Inspect {
        /// Print one JSON array instead of text.
        #[arg(long)]
        json: bool,
        /// Print one JSON object per line (JSON Lines), each flushed as soon as its frame is read.
        #[arg(long, conflicts_with = "json")]
        jsonl: bool,
        /// Also show each value's bytes as hex, beside what they decode to (bytes that decode to
        /// nothing are always shown).
        #[arg(long, conflicts_with = "tree")]
        hex: bool,
        /// Show each PATH as a tree of its nodes, one line each: name, kind (NDArray, SChunk,
        /// LazyExpr, Proxy, ObjectArray, EmbedStore, DictStore, TreeStore, CTable...), shape,
        /// dtype and chunks, codec and compression ratio. With --json or --jsonl, the nodes as
        /// objects {"path", "name", "depth", "key"?, "kind", "shape"?, "dtype"?, "chunks"?,
        /// "codec", "cratio"}; "key" is python-blosc2's key of a node in a store.
        #[arg(long)]
        tree: bool,
        /// Follow symbolic links met while walking directories (links given as PATH always are).
        #[arg(short = 'L', long)]
        follow: bool,
        /// Also decode with the schemas in DIR (every *.toml file directly in it): a metalayer
        /// stored under a schema's metalayer name is decoded with the one of that name that
        /// reads its bytes. Repeatable.
        #[arg(long = "schemas", value_name = "DIR")]
        schemas: Vec<PathBuf>,
        /// Contiguous frame files, sparse-frame directories, .b2z stores, directories to walk, or
        /// - for stdin.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Decode one metalayer's raw bytes and print every entry.
    ///
    /// Without --schema, the layout is chosen among the built-ins from the bytes' fixed prefix
    /// alone.
    #[command(after_help = DECODE_EXAMPLE)]
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
        /// Write raw bytes to stdout (-o -) even when it is a terminal, which is refused
        /// otherwise.
        #[arg(short, long)]
        force: bool,
        /// The entries as a JSON object, or - to read it from stdin.
        #[arg(value_name = "JSON")]
        entries: String,
    },
    /// Edit the metalayers and vlmetalayers of Blosc2 frames, as c-blosc2 edits them.
    ///
    /// A metalayer is updated in place, and only by a value of its stored length (c-blosc2's
    /// rule); metalayers are neither added nor deleted. vlmetalayers are added (after the
    /// others), replaced (where they are) and deleted; each value is stored as a memcpyed
    /// Blosc2 chunk. The header's frame_len and has_vlmetalayers and the trailer are written
    /// again; the chunks are copied as they are. Each file (a sparse frame's chunks.b2frame) is
    /// written beside the original, synced and renamed over it: a crash leaves the old file or
    /// the new one.
    ///
    /// A value is JSON typed by the --schema whose metalayer name is its name, else (for
    /// --meta) by the built-in layout of its name that reads the stored bytes (b2nd, caterva,
    /// python-blosc2's own), else packed as plain msgpack as python-blosc2 packs it (integers
    /// and strings in their smallest encoding, floats as float64, {"bin": "hex"}, {"ext": t,
    /// "data": "hex"}).
    ///
    /// Each file is reported: each change's value before and after, as JSON. A file that
    /// cannot be edited is reported on stderr and left as it was; the others are still edited.
    #[command(after_help = SET_EXAMPLE)]
    Set {
        /// Set the metalayer NAME to JSON (same length as the stored value). Repeatable.
        #[arg(long = "meta", value_name = "NAME=JSON", value_parser = set::Assign::parse)]
        meta: Vec<set::Assign>,
        /// Set the vlmetalayer KEY to JSON, adding it if absent. Repeatable.
        #[arg(long = "vlmeta", value_name = "KEY=JSON", value_parser = set::Assign::parse)]
        vlmeta: Vec<set::Assign>,
        /// Delete the vlmetalayer KEY (it must exist). Repeatable.
        #[arg(long = "delete-vlmeta", value_name = "KEY")]
        delete_vlmeta: Vec<String>,
        /// Type the values named by this schema's metalayer name with it: a built-in name or
        /// the path of a schema file. Repeatable.
        #[arg(long, value_name = "SCHEMA", value_parser = SchemaArg::parse)]
        schema: Vec<SchemaArg>,
        /// Print what would change, before and after, and write nothing (and take no lock).
        #[arg(long)]
        dry_run: bool,
        /// Wait at most SECONDS for a file another edit holds locked, then give up with exit
        /// status 1 (0: try once).
        #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_wait)]
        wait: std::time::Duration,
        /// Edit without locking the file, where the file system refuses locks (some NFS
        /// mounts). Edits of one file at once may then lose one another's changes.
        #[arg(long)]
        no_lock: bool,
        /// Contiguous frame files, sparse-frame directories, or members of .b2z stores as
        /// store.b2z/member (the zip is rewritten).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    #[cfg(feature = "diagram")]
    /// Print a schema's byte-layout diagram, offsets and length formula.
    #[command(after_help = DIAGRAM_EXAMPLE)]
    Diagram {
        /// A built-in schema name (`b2nd_v1`) or the path of a schema file.
        #[arg(value_name = "SCHEMA", value_parser = SchemaArg::parse)]
        schema: SchemaArg,
    },
    /// List the built-in schemas (c-blosc2's metalayers, python-blosc2's, the frame header and
    /// trailer): name, metalayer name and description.
    #[command(after_help = SCHEMAS_EXAMPLE)]
    Schemas {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script for the command.
    #[command(after_help = COMPLETIONS_EXAMPLE)]
    Completions {
        /// The shell to complete in.
        #[arg(value_name = "SHELL")]
        shell: Shell,
    },
}

#[cfg(feature = "inspect")]
/// The examples under `metalayer inspect --help`.
const INSPECT_EXAMPLE: &str = r#"Examples:
  metalayer inspect array.b2nd                   # one frame file
  metalayer inspect data/                        # every frame under data/
  metalayer inspect store.b2z                    # every member of a zip store
  metalayer inspect --tree store.b2d             # a store's nodes, one line each
  metalayer inspect --jsonl data/ > meta.jsonl   # the same, one JSON object a line
  ssh host cat a.b2nd | metalayer inspect -      # a frame read from stdin
  metalayer inspect --schemas my_schemas/ data/  # decode user metalayers with my_schemas/*.toml"#;

/// The example under `metalayer decode --help`.
const DECODE_EXAMPLE: &str = r#"Examples:
  metalayer decode meta.bin
  echo 95000191d3000000000000000491d20000000291d200000001 | metalayer decode --hex --json -"#;

/// The example under `metalayer encode --help`.
const ENCODE_EXAMPLE: &str = r#"Examples:
  metalayer encode --schema b2nd_v1 '{"shape":[10,20],"chunkshape":[5,20],"blockshape":[5,5],"dtype_format":0,"dtype":"<f8"}'
  metalayer encode --schema caterva_v0 -o - '{"shape":[4],"chunkshape":[2],"blockshape":[1]}' | xxd   # raw bytes into a pipe"#;

/// The examples under `metalayer set --help`.
const SET_EXAMPLE: &str = r#"Examples:
  metalayer set --vlmeta 'units="K"' --dry-run data/*.b2nd        # what would change
  metalayer set --vlmeta 'calibration={"gain":1.5,"run":12}' a.b2nd b.b2nd
  metalayer set --delete-vlmeta draft --meta 'b2nd={"shape":[10],"chunkshape":[5],"blockshape":[5],"dtype_format":0,"dtype":"<u4"}' a.b2nd"#;

#[cfg(feature = "diagram")]
/// The example under `metalayer diagram --help`.
const DIAGRAM_EXAMPLE: &str = r#"Examples:
  metalayer diagram b2nd_v1
  metalayer diagram my_layout.toml"#;

/// The example under `metalayer schemas --help`.
const SCHEMAS_EXAMPLE: &str = r#"Example:
  metalayer schemas --json"#;

/// The example under `metalayer completions --help`.
const COMPLETIONS_EXAMPLE: &str = r#"Examples:
  metalayer completions bash > ~/.local/share/bash-completion/completions/metalayer
  metalayer completions zsh > "${fpath[1]}/_metalayer"
  metalayer completions fish > ~/.config/fish/completions/metalayer.fish"#;

fn schemas(out: &mut Out, json: bool) -> Result<(), Stop> {
    let rows: Vec<(&str, String, String)> = metalayer_layout::builtins()
        .map(|b| match b.layout() {
            Ok(layout) => (b.name, layout.metalayer, layout.description),
            Err(_) => (b.name, String::new(), "(the schema does not parse)".to_owned()),
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

/// Prints the completion script for `shell`.
/// `--wait SECONDS`: a number of seconds, not negative.
fn parse_wait(text: &str) -> Result<std::time::Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("expected a number of seconds, found {text:?}"))?;
    std::time::Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("expected a number of seconds from 0 up, found {text}"))
}

fn completions(out: &mut Out, shell: Shell) -> Result<(), Stop> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "metalayer", &mut script);
    out.print_bytes(&script)
}

/// A usage error found after parsing: clap's message and the subcommand's usage on stderr.
fn usage_error(subcommand: &str, message: &str) -> ExitCode {
    let mut cli = Cli::command();
    cli.build();
    let error = match cli.find_subcommand_mut(subcommand) {
        Some(command) => command.error(ErrorKind::ArgumentConflict, message),
        None => cli.error(ErrorKind::ArgumentConflict, message),
    };
    let _ = error.print();
    ExitCode::from(2)
}

/// The usage errors that clap cannot see: the name of the subcommand and the message.
fn misuse(command: &Command) -> Option<(&'static str, &'static str)> {
    match command {
        #[cfg(feature = "inspect")]
        Command::Inspect { paths, .. } if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 => {
            Some(("inspect", "- (stdin) may be given only once"))
        }
        Command::Encode {
            output: target, force, ..
        } if output::refuses_binary(target.as_deref(), *force, std::io::stdout().is_terminal()) => Some((
            "encode",
            "refusing to write binary bytes to a terminal (-o -); redirect stdout, or give --force",
        )),
        Command::Set {
            meta,
            vlmeta,
            delete_vlmeta,
            ..
        } => {
            if meta.is_empty() && vlmeta.is_empty() && delete_vlmeta.is_empty() {
                return Some(("set", "nothing to set: give --meta, --vlmeta or --delete-vlmeta"));
            }
            let changes = set::Changes {
                meta,
                vlmeta,
                delete: delete_vlmeta,
                schemas: &[],
            };
            set::repeated_name(&changes)
                .map(|_| ("set", "a name is given twice: each may be set or deleted once a run"))
        }
        _ => None,
    }
}

fn run(out: &mut Out, command: Command) -> Result<(), Stop> {
    match command {
        #[cfg(feature = "inspect")]
        Command::Inspect {
            json,
            jsonl,
            hex,
            tree,
            follow,
            schemas,
            paths,
        } => {
            let registry = match schema::load_registry(&schemas) {
                Ok(registry) => registry,
                Err(e) => {
                    e.report(out);
                    return out.flush();
                }
            };
            let format = match (json, jsonl) {
                (_, true) => inspect::Format::Jsonl,
                (true, false) => inspect::Format::Json,
                (false, false) => inspect::Format::Text,
            };
            if tree {
                tree::run(out, &paths, format, follow)?;
            } else {
                inspect::run(out, &registry, &paths, format, hex, follow)?;
            }
        }
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
            ..
        } => encode::run(out, &schema, output.as_deref(), &entries)?,
        Command::Set {
            meta,
            vlmeta,
            delete_vlmeta,
            schema,
            dry_run,
            wait,
            no_lock,
            files,
        } => {
            let changes = set::Changes {
                meta: &meta,
                vlmeta: &vlmeta,
                delete: &delete_vlmeta,
                schemas: &schema,
            };
            let options = WriteOptions::new().wait(wait).lock(!no_lock);
            let mode = if dry_run {
                set::Mode::DryRun
            } else {
                set::Mode::Write(&options)
            };
            set::run(out, &changes, &files, mode)?
        }
        Command::Completions { shell } => completions(out, shell)?,
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
    if let Some((subcommand, message)) = misuse(&cli.command) {
        return usage_error(subcommand, message);
    }
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

    #[cfg(feature = "inspect")]
    #[test]
    fn stdin_given_twice_is_a_usage_error() {
        use clap::Parser;

        let parse = |args: &[&str]| match super::Cli::try_parse_from(args) {
            Ok(cli) => super::misuse(&cli.command),
            Err(e) => panic!("{args:?}: {e}"),
        };
        assert_eq!(parse(&["metalayer", "inspect", "-", "a.b2nd"]), None);
        assert_eq!(parse(&["metalayer", "inspect", "./-", "-"]), None);
        assert_eq!(
            parse(&["metalayer", "inspect", "-", "a.b2nd", "-"]),
            Some(("inspect", "- (stdin) may be given only once"))
        );
        // Hex output never goes raw to the terminal.
        assert_eq!(parse(&["metalayer", "encode", "--schema", "b2nd_v1", "{}"]), None);
    }
}

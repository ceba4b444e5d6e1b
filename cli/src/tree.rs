//! `metalayer inspect --tree`: a store or directory as a tree of its nodes, one line each, as
//! `h5ls -r` lists an HDF5 file's objects and zarr's `tree()` a group's.
//!
//! Each path given is one tree, walked by the library ([`metalayer::tree::Tree`]), which reads
//! each node as it comes and tells its kind ([`metalayer::Kind`]), its key in its store, and for
//! a frame the shape, dtype and chunks of its array, its codec and its ratio `nbytes / cbytes`.
//! This module only renders the nodes: a line each, the name indented by its depth; or a JSON
//! object each.
//!
//! The text's columns are as wide as their widest cell: the tree is walked twice, once for the
//! widths and once to print, so that memory does not grow with the number of nodes.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use metalayer::frame::{self, StreamFrame};
use metalayer::tree::{Node, Tree};
use metalayer::value::shown_name;
use serde_json::{Map, Value};

use crate::inspect::{Format, Printer};
use crate::output::{Out, Stop, chain};

/// How the tree's text shows a shape: as Python prints a tuple, `(3, 2)`, `(3,)`.
fn tuple<T: ToString>(items: &[T]) -> String {
    match items {
        [one] => format!("({},)", one.to_string()),
        _ => format!("({})", items.iter().map(T::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// `text` with every control character (DEL and C1 included) replaced by U+FFFD, for messages.
fn clean(text: &str) -> Cow<'_, str> {
    if text.chars().any(char::is_control) {
        Cow::Owned(
            text.chars()
                .map(|c| if c.is_control() { '\u{fffd}' } else { c })
                .collect(),
        )
    } else {
        Cow::Borrowed(text)
    }
}

/// The node's cells: name (indented, `/` after a directory), kind, shape, dtype, chunks, and
/// for a frame whose header read its codec and ratio; then its first error.
fn cells(node: &Node, root: &str) -> Vec<String> {
    let name = if node.depth() == 0 {
        root.to_owned()
    } else {
        node.name().to_string_lossy().into_owned()
    };
    let mut first = "  ".repeat(node.depth());
    first.push_str(&shown_name(&name));
    if !node.is_frame() {
        first.push('/');
    }
    let mut row = vec![
        first,
        node.kind().to_string(),
        node.shape().map(tuple).unwrap_or_default(),
        node.dtype().map(|d| shown_name(d).into_owned()).unwrap_or_default(),
        node.chunks()
            .map(|c| format!("chunks {}", tuple(c)))
            .unwrap_or_default(),
    ];
    if let Some(codec) = node.codec() {
        row.push(codec.to_string());
        row.push(match node.ratio() {
            Some(ratio) => format!("ratio {ratio:.2}"),
            None => "ratio -".to_owned(),
        });
    }
    if let Some(error) = node.errors().first() {
        row.push(format!("error: {}", shown_name(&chain(error))));
    }
    row
}

/// The node as a JSON object: `{"format", "path", "name", "depth", "key"?, "kind", "shape"?, "dtype"?,
/// "chunks"?, "codec"?, "cratio"?, "error"?}`.
fn object(node: &Node, root: &str) -> Value {
    let mut object = Map::new();
    let (path, name) = if node.depth() == 0 {
        (root.to_owned(), root.to_owned())
    } else {
        (
            node.path().to_string_lossy().into_owned(),
            node.name().to_string_lossy().into_owned(),
        )
    };
    object.insert("format".to_owned(), Value::from(metalayer::report::FORMAT));
    object.insert("path".to_owned(), Value::String(path));
    object.insert("name".to_owned(), Value::String(name));
    object.insert("depth".to_owned(), Value::from(node.depth()));
    if let Some(key) = node.key() {
        object.insert("key".to_owned(), Value::String(key.to_owned()));
    }
    object.insert("kind".to_owned(), Value::String(node.kind().to_string()));
    if let Some(shape) = node.shape() {
        object.insert("shape".to_owned(), Value::from(shape.to_vec()));
    }
    if let Some(dtype) = node.dtype() {
        object.insert("dtype".to_owned(), Value::String(dtype.to_owned()));
    }
    if let Some(chunks) = node.chunks() {
        object.insert("chunks".to_owned(), Value::from(chunks.to_vec()));
    }
    if let Some(codec) = node.codec() {
        let codec = match codec.name() {
            Some(name) => Value::String(name.to_owned()),
            None => Value::from(codec.number()),
        };
        object.insert("codec".to_owned(), codec);
        object.insert("cratio".to_owned(), node.ratio().map_or(Value::Null, Value::from));
    }
    if let Some(error) = node.errors().first() {
        object.insert("error".to_owned(), Value::String(chain(error)));
    }
    Value::Object(object)
}

/// Reports a node's errors on stderr, each naming the node's path unless it names it already.
fn report_errors(out: &mut Out, node: &Node, root: &str) {
    for error in node.errors() {
        let text = chain(error);
        if error.names_its_path() {
            out.error(clean(&text));
        } else {
            let path = if node.depth() == 0 {
                Cow::Borrowed(root)
            } else {
                node.path().to_string_lossy()
            };
            out.error(format_args!("{}: {}", shown_name(&path), clean(&text)));
        }
    }
}

/// The one node of the frame on stdin, or `None` (the error reported) when it does not read.
fn stdin_node(out: &mut Out) -> Option<Node> {
    match frame::read_frame_stream(std::io::stdin().lock()) {
        Ok(StreamFrame::Whole(bytes)) => Some(Node::of_frame("-", bytes)),
        Ok(StreamFrame::Header {
            metalayers,
            trailer_error,
        }) => {
            out.error(format_args!("<stdin>: {}", clean(&chain(&trailer_error))));
            Some(Node::of_metalayers("-", metalayers))
        }
        Err(e) => {
            out.error(format_args!("<stdin>: {}", clean(&chain(&e))));
            None
        }
    }
}

/// Widens `widths` to hold the cells of `row`.
fn widen(widths: &mut Vec<usize>, row: &[String]) {
    for (i, cell) in row.iter().enumerate() {
        if widths.len() <= i {
            widths.push(0);
        }
        widths[i] = widths[i].max(cell.chars().count());
    }
}

/// A row's line: each cell padded to its column's width, two spaces between columns.
fn line(row: &[String], widths: &[usize]) -> String {
    let mut line = String::new();
    for (j, cell) in row.iter().enumerate() {
        line.push_str(cell);
        let pad = widths.get(j).copied().unwrap_or(0).saturating_sub(cell.chars().count());
        line.extend(std::iter::repeat_n(' ', pad.saturating_add(2)));
    }
    line.truncate(line.trim_end().len());
    line
}

/// Prints the tree of `root` as text: one line a node. Returns how many frames it holds.
fn text_tree(out: &mut Out, root: &Path, shown_root: &str, follow: bool) -> Result<usize, Stop> {
    // The columns' widths; the root's line is left out of them when nodes lie below it.
    let (mut widths, mut root_widths, mut count) = (Vec::new(), Vec::new(), 0usize);
    for node in Tree::new(root).follow_links(follow) {
        let row = cells(&node, shown_root);
        widen(if count == 0 { &mut root_widths } else { &mut widths }, &row);
        count += 1;
    }
    if count == 1 {
        widths = root_widths;
    }
    let mut frames = 0;
    for (i, node) in Tree::new(root).follow_links(follow).enumerate() {
        frames += usize::from(node.is_frame());
        report_errors(out, &node, shown_root);
        let row = cells(&node, shown_root);
        let text = if i == 0 && count > 1 {
            row.iter()
                .filter(|c| !c.is_empty())
                .cloned()
                .collect::<Vec<_>>()
                .join("  ")
        } else {
            line(&row, &widths)
        };
        out.print(&text)?;
        out.print("\n")?;
    }
    Ok(frames)
}

/// Prints the tree of each path: text, or JSON objects (`--json`: one array; `--jsonl`: one a
/// line).
pub fn run(out: &mut Out, paths: &[PathBuf], format: Format, follow: bool) -> Result<(), Stop> {
    let mut printer = Printer::new(format);
    for root in paths {
        let shown_root = root.display().to_string();
        if format == Format::Text {
            if printer.count > 0 {
                out.print("\n")?;
            }
            printer.count += 1;
        }
        if root.as_os_str() == "-" {
            let Some(node) = stdin_node(out) else { continue };
            if format == Format::Text {
                let row = cells(&node, &shown_root);
                let mut widths = Vec::new();
                widen(&mut widths, &row);
                out.print(&line(&row, &widths))?;
                out.print("\n")?;
            } else {
                printer.element(out, &object(&node, &shown_root))?;
            }
            continue;
        }
        let frames = if format == Format::Text {
            text_tree(out, root, &shown_root, follow)?
        } else {
            let mut frames = 0;
            for node in Tree::new(root).follow_links(follow) {
                frames += usize::from(node.is_frame());
                report_errors(out, &node, &shown_root);
                printer.element(out, &object(&node, &shown_root))?;
            }
            frames
        };
        if frames == 0 && root.is_dir() {
            out.error(format_args!(
                "{}: no Blosc2 frame found under this directory",
                shown_name(&shown_root)
            ));
        }
    }
    printer.finish(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_shown_as_python_prints_tuples() {
        assert_eq!(tuple(&[3]), "(3,)");
        assert_eq!(tuple(&[3, 2]), "(3, 2)");
        assert_eq!(tuple::<i64>(&[]), "()");
    }

    #[test]
    fn control_characters_are_replaced() {
        assert_eq!(clean("a\u{7f}b\u{1b}c\u{85}"), "a\u{fffd}b\u{fffd}c\u{fffd}");
        assert!(matches!(clean("plain"), Cow::Borrowed("plain")));
    }
}

//! `metalayer inspect --tree`: a store or directory as a tree of its nodes, one line each, as
//! `h5ls -r` lists an HDF5 file's objects and zarr's `tree()` a group's.
//!
//! Each path given is one tree. Its frames are found as `inspect` finds them ([`crate::walk`]):
//! the files of a directory (a `.b2d` store is one), the members of a `.b2z` store. Each frame is
//! read and becomes a leaf under the directories of its path below the root, which are the inner
//! nodes. A line holds the node's name, its kind, and for a frame the shape, dtype and chunks of
//! its `b2nd` metalayer, the codec of its header and the ratio `nbytes / cbytes`.
//!
//! The kind of a frame is told by its metalayers, in the order python-blosc2's `blosc2.open`
//! asks for them: `proxy-source` is a `Proxy`; `b2o` names its kind (`lazyexpr` a `LazyExpr`,
//! `lazyudf` a `LazyUDF`, `c2array` a `C2Array`); `LazyArray` is a `LazyExpr` (0) or a `LazyUDF`
//! (1); `listarray` a `ListArray`, `batcharray` a `BatchArray`, `vlarray` an `ObjectArray`;
//! `b2embed`, `b2dict` and `b2tree` an `EmbedStore` (a store's `embed.b2e`); `b2nd` an `NDArray`;
//! a frame with none of them an `SChunk`.
//!
//! The kind of an inner node is its store's: a directory or `.b2z` that holds an `embed.b2e` is
//! a store, a `DictStore` when that frame is marked `b2dict`, a `TreeStore` for `b2tree`, a
//! `CTable` when it also holds `_meta.b2f` whose vlmetalayer `kind` is `"ctable"`. python-blosc2
//! 3.x marks both its stores `b2embed`: such a store is a `TreeStore` when its embedded keys
//! hold a group's `__vlmeta__` (3.x keeps every TreeStore's vlmeta so), else a `DictStore`.
//! Below a `TreeStore` or a `CTable` each directory is a group, which python-blosc2 opens as a
//! `TreeStore`; any other directory is a `group`.
//! The frames an `embed.b2e` holds ([`crate::embed`]) are leaves under it, by their keys.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use metalayer::report::{Context, FrameReport};
use metalayer::value::shown_name;
use serde_json::{Map, Value, json};

use crate::embed;
use crate::output::{Out, Stop, chain};
use crate::schema::Registry;
use crate::walk::{self, Found, Source};

/// One node of a tree.
#[derive(Debug, Clone, PartialEq)]
struct Node {
    /// Its path below the root, components joined by `/` (empty for the root).
    rel: String,
    /// Whether it is a frame (a leaf); else a directory, a store, or the root.
    frame: bool,
    /// Whether it is a store: a directory or `.b2z` that holds an `embed.b2e`.
    store: bool,
    /// The kind, and for a frame its fields (shape, dtype, chunks, codec, cratio), or its error.
    fields: Map<String, Value>,
}

/// The node of one frame, from its report's JSON: the kind its metalayers give, and the
/// fields of `b2nd` and of the header.
fn frame_fields(report: &Value) -> Map<String, Value> {
    let mut fields = Map::new();
    if let Some(error) = report.get("error").filter(|_| report.get("header").is_none()) {
        fields.insert("kind".to_owned(), Value::from("error"));
        fields.insert("error".to_owned(), error.clone());
        return fields;
    }
    let metalayers = report["metalayers"].as_array().cloned().unwrap_or_default();
    let value_of = |name: &str| -> Option<Value> {
        let m = metalayers.iter().find(|m| m["name"] == name)?;
        ["fields", "value", "msgpack"].iter().find_map(|k| m.get(*k).cloned())
    };
    let has = |name: &str| metalayers.iter().any(|m| m["name"] == name);
    let kind = if has("proxy-source") {
        "Proxy".to_owned()
    } else if let Some(b2o) = value_of("b2o") {
        match b2o["kind"].as_str() {
            Some("lazyexpr") => "LazyExpr".to_owned(),
            Some("lazyudf") => "LazyUDF".to_owned(),
            Some("c2array") => "C2Array".to_owned(),
            Some(other) => format!("b2o {other}"),
            None => "b2o".to_owned(),
        }
    } else if has("LazyArray") {
        match value_of("LazyArray").and_then(|v| v.as_i64()) {
            Some(1) => "LazyUDF".to_owned(),
            _ => "LazyExpr".to_owned(),
        }
    } else if has("listarray") {
        "ListArray".to_owned()
    } else if has("batcharray") {
        "BatchArray".to_owned()
    } else if has("vlarray") {
        "ObjectArray".to_owned()
    } else if has("b2embed") || has("b2dict") || has("b2tree") {
        "EmbedStore".to_owned()
    } else if has("b2nd") {
        "NDArray".to_owned()
    } else {
        "SChunk".to_owned()
    };
    fields.insert("kind".to_owned(), Value::String(kind));
    if let Some(b2nd) = value_of("b2nd") {
        for (key, from) in [("shape", "shape"), ("dtype", "dtype"), ("chunks", "chunkshape")] {
            if let Some(v) = b2nd.get(from) {
                fields.insert(key.to_owned(), v.clone());
            }
        }
    }
    let header = &report["header"];
    fields.insert("codec".to_owned(), header["codec"].clone());
    fields.insert("cratio".to_owned(), header["ratio"].clone());
    if let Some(error) = report.get("error") {
        fields.insert("error".to_owned(), error.clone());
    }
    fields
}

/// The class of the store whose `embed.b2e` has the report `embed`, with `ctable` when the store
/// also holds a `_meta.b2f` whose `kind` is `"ctable"`.
fn store_kind(embed: &Value, ctable: bool) -> &'static str {
    let names: Vec<&str> = embed["metalayers"]
        .as_array()
        .map(|m| m.iter().filter_map(|m| m["name"].as_str()).collect())
        .unwrap_or_default();
    if ctable {
        return "CTable";
    }
    if names.contains(&"b2tree") {
        return "TreeStore";
    }
    if names.contains(&"b2dict") {
        return "DictStore";
    }
    // python-blosc2 3.x: b2embed for both; a TreeStore keeps its groups' vlmeta as `__vlmeta__`.
    let keys = embed["vlmetalayers"]
        .as_array()
        .and_then(|v| v.iter().find(|m| m["name"] == "estore_metadata"))
        .and_then(|m| {
            m["msgpack"]["embed_map"]
                .as_object()
                .map(|map| map.keys().cloned().collect::<Vec<_>>())
        })
        .unwrap_or_default();
    if keys.iter().any(|k| k.ends_with("/__vlmeta__")) {
        "TreeStore"
    } else {
        "DictStore"
    }
}

/// Whether `_meta.b2f`'s report says CTable: its vlmetalayer `kind` is `"ctable"`.
fn is_ctable_meta(report: &Value) -> bool {
    report["vlmetalayers"]
        .as_array()
        .is_some_and(|v| v.iter().any(|m| m["name"] == "kind" && m["msgpack"] == "ctable"))
}

/// The path of `source` below `root`, components joined by `/`.
fn relative(root: &Path, source: &Path) -> String {
    let rest = source.strip_prefix(root).unwrap_or(source);
    rest.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The parent of a relative path (`""` for a top-level node).
fn parent(rel: &str) -> &str {
    rel.rfind('/').map_or("", |i| &rel[..i])
}

/// Reads the frames under `root` and builds its tree: the frames, the directories above them, the
/// root; every node's kind found. Errors are reported on `out` as they are met.
fn build(out: &mut Out, registry: &Registry, root: &Path, follow: bool) -> Vec<Node> {
    let mut frames: Vec<(String, Value)> = Vec::new();
    let roots = [root.to_path_buf()];
    for found in walk::frames(&roots, follow) {
        let (path, report) = match found {
            Found::Frame(source) => {
                let report = read(out, registry, &source);
                let held = if source.read().is_ok_and(|reading| embed::holds_frames(&reading)) {
                    held_frames(out, registry, &source)
                } else {
                    Vec::new()
                };
                frames.push((relative(root, source.path()), report));
                frames.extend(held.into_iter().map(|(path, report)| (relative(root, &path), report)));
                continue;
            }
            Found::Error { path, message } => {
                out.error(&message);
                (path, json!({ "error": message }))
            }
        };
        frames.push((relative(root, &path), report));
    }
    let frame_paths: std::collections::BTreeSet<String> = frames.iter().map(|(rel, _)| rel.clone()).collect();
    let mut dirs: BTreeMap<String, &'static str> = BTreeMap::new();
    for (rel, _) in &frames {
        let mut p = parent(rel);
        while !p.is_empty() {
            // An EmbedStore is a frame, and the parent of the frames it holds.
            if !frame_paths.contains(p) {
                dirs.insert(p.to_owned(), "group");
            }
            p = parent(p);
        }
    }
    // Stores: the directories (the root included) that hold an embed.b2e.
    let mut stores: BTreeMap<String, &'static str> = BTreeMap::new();
    for (rel, report) in &frames {
        if rel == "embed.b2e" || rel.ends_with("/embed.b2e") {
            let dir = parent(rel).to_owned();
            let meta = if dir.is_empty() {
                "_meta.b2f".to_owned()
            } else {
                format!("{dir}/_meta.b2f")
            };
            let ctable = frames.iter().any(|(r, rep)| *r == meta && is_ctable_meta(rep));
            stores.insert(dir, store_kind(report, ctable));
        }
    }
    // A directory below a TreeStore or CTable is a group of it, opened as a TreeStore; the
    // directories of the keys an EmbedStore holds are no more than parts of the keys.
    for (dir, kind) in dirs.iter_mut() {
        if in_embed_store(dir) {
            continue;
        }
        let mut p = parent(dir);
        loop {
            if matches!(stores.get(p), Some(&"TreeStore" | &"CTable")) {
                *kind = "TreeStore";
                break;
            }
            if p.is_empty() {
                break;
            }
            p = parent(p);
        }
        if let Some(store) = stores.get(dir.as_str()) {
            *kind = store;
        }
    }
    let root_kind = stores
        .get("")
        .copied()
        .unwrap_or(if root.is_dir() { "group" } else { "file" });
    let mut nodes = vec![Node {
        rel: String::new(),
        frame: false,
        store: stores.contains_key(""),
        fields: Map::from_iter([("kind".to_owned(), Value::from(root_kind))]),
    }];
    nodes.extend(dirs.into_iter().map(|(rel, kind)| Node {
        store: stores.contains_key(&rel),
        rel,
        frame: false,
        fields: Map::from_iter([("kind".to_owned(), Value::from(kind))]),
    }));
    nodes.extend(frames.iter().map(|(rel, report)| Node {
        rel: rel.clone(),
        frame: true,
        store: false,
        fields: frame_fields(report),
    }));
    // Pre-order: paths compared component by component, a directory before what it holds.
    nodes.sort_by(|a, b| {
        let key = |n: &Node| {
            n.rel
                .split('/')
                .filter(|c| !c.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        key(a).cmp(&key(b))
    });
    // A root that is itself a frame: one node.
    if nodes.len() == 2 && nodes[1].rel.is_empty() {
        nodes.remove(0);
    }
    nodes
}

/// Whether a relative path lies in an EmbedStore's keys (`embed.b2e/g/x`).
fn in_embed_store(rel: &str) -> bool {
    rel.starts_with("embed.b2e/") || rel.contains("/embed.b2e/")
}

/// The frames the EmbedStore `source` holds, each with its report as JSON; errors go to `out`.
fn held_frames(out: &mut Out, registry: &Registry, source: &Source) -> Vec<(PathBuf, Value)> {
    let frames = match embed::embedded(source) {
        Ok(frames) => frames,
        Err(text) => {
            out.error(&text);
            return Vec::new();
        }
    };
    frames
        .into_iter()
        .map(|frame| {
            let shown = frame.path.display().to_string();
            let value = match frame.reading {
                Ok(reading) => {
                    let cx = Context::new(registry);
                    let report = FrameReport::new(&cx, reading);
                    let value = serde_json::to_value(&report).unwrap_or_else(|e| json!({ "error": e.to_string() }));
                    for error in cx.take_errors() {
                        out.error(format_args!("{}: {error}", shown_name(&shown)));
                    }
                    value
                }
                Err(text) => {
                    out.error(format_args!("{}: {text}", shown_name(&shown)));
                    json!({ "error": text })
                }
            };
            (frame.path, value)
        })
        .collect()
}

/// Reads one frame and returns its report as JSON; errors go to `out`.
fn read(out: &mut Out, registry: &Registry, source: &Source) -> Value {
    let shown = source.shown();
    let place = source.place().map(|p| format!(" ({p})")).unwrap_or_default();
    let reading = match source.read() {
        Ok(reading) => reading,
        Err(e) => {
            let text = chain(&e);
            if place.is_empty() && crate::inspect::names_its_file(&e) {
                out.error(&text);
            } else {
                out.error(format_args!("{}{place}: {text}", shown_name(&shown)));
            }
            return json!({ "error": text });
        }
    };
    let cx = Context::new(registry);
    let report = FrameReport::new(&cx, reading);
    let value = serde_json::to_value(&report).unwrap_or_else(|e| json!({ "error": e.to_string() }));
    for error in cx.take_errors() {
        out.error(format_args!("{}{place}: {error}", shown_name(&shown)));
    }
    for warning in cx.take_warnings() {
        out.warning(format_args!("{}{place}: {warning}", shown_name(&shown)));
    }
    value
}

/// The key python-blosc2 gives a node of a store: `/` and its path in the store, a frame's
/// extension left out (`g/h/y.b2nd` is `/g/h/y`).
fn key(rel_in_store: &str, frame: bool) -> String {
    let name_at = rel_in_store.rfind('/').map_or(0, |i| i + 1);
    let stem = match rel_in_store[name_at..].rfind('.') {
        Some(dot) if frame && dot > 0 => &rel_in_store[..name_at + dot],
        _ => rel_in_store,
    };
    format!("/{stem}")
}

/// A value as the tree's text shows it: arrays as `(3, 2)`, strings bare.
fn shown(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(shown).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Value::String(s) => s.clone(),
        Value::Null => "-".to_owned(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() => format!("{f:.2}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// Prints the tree of each path: text, or JSON objects (`--json`: one array; `--jsonl`: one a
/// line).
pub fn run(
    out: &mut Out,
    registry: &Registry,
    paths: &[PathBuf],
    format: crate::inspect::Format,
    follow: bool,
) -> Result<(), Stop> {
    let mut printer = crate::inspect::Printer::new(format);
    for root in paths {
        let nodes = build(out, registry, root, follow);
        let shown_root = root.display().to_string();
        // Where each store starts, for the keys of the nodes in it.
        let store_dirs: Vec<&str> = nodes.iter().filter(|n| n.store).map(|n| n.rel.as_str()).collect();
        let mut lines = Vec::new();
        for node in &nodes {
            let depth = node.rel.split('/').filter(|c| !c.is_empty()).count();
            let name = if node.rel.is_empty() {
                shown_root.clone()
            } else {
                node.rel.rsplit('/').next().unwrap_or_default().to_owned()
            };
            let path = if node.rel.is_empty() {
                shown_root.clone()
            } else {
                format!("{shown_root}/{}", node.rel)
            };
            if format == crate::inspect::Format::Text {
                let mut name = format!("{}{}", "  ".repeat(depth), shown_name(&name));
                if !node.frame {
                    name.push('/');
                }
                let field = |key: &str| node.fields.get(key).map(shown).unwrap_or_default();
                let mut row = vec![
                    name,
                    field("kind"),
                    field("shape"),
                    field("dtype"),
                    node.fields
                        .get("chunks")
                        .map(|c| format!("chunks {}", shown(c)))
                        .unwrap_or_default(),
                ];
                if node.frame && node.fields.contains_key("codec") {
                    row.push(field("codec"));
                    row.push(format!("ratio {}", field("cratio")));
                }
                if let Some(error) = node.fields.get("error") {
                    row.push(format!("error: {}", shown_name(error.as_str().unwrap_or_default())));
                }
                lines.push(row);
                continue;
            }
            let mut object = Map::new();
            object.insert("path".to_owned(), Value::String(path));
            object.insert("name".to_owned(), Value::String(name));
            object.insert("depth".to_owned(), Value::from(depth));
            // The innermost store the node is in (not the store itself).
            let store = store_dirs
                .iter()
                .filter(|d| node.rel != **d && (d.is_empty() || node.rel.starts_with(&format!("{d}/"))))
                .max_by_key(|d| d.len());
            // A store's own embed.b2e is no node of it in python-blosc2: it has no key.
            let own_embed = store.is_some_and(|d| {
                let inside = if d.is_empty() {
                    &node.rel[..]
                } else {
                    &node.rel[d.len() + 1..]
                };
                inside == "embed.b2e"
            });
            if let Some(store) = store.filter(|_| !own_embed) {
                let inside = if store.is_empty() {
                    &node.rel[..]
                } else {
                    &node.rel[store.len() + 1..]
                };
                match inside.strip_prefix("embed.b2e") {
                    // A frame the store's EmbedStore holds: its key is the EmbedStore's.
                    Some(held) if node.frame && held.starts_with('/') => {
                        object.insert("key".to_owned(), Value::String(held.to_owned()));
                    }
                    Some(_) => {}
                    None => {
                        object.insert("key".to_owned(), Value::String(key(inside, node.frame)));
                    }
                }
            }
            object.extend(node.fields.clone());
            printer.element(out, &Value::Object(object))?;
        }
        if format == crate::inspect::Format::Text {
            if printer.count > 0 {
                out.print("\n")?;
            }
            printer.count += 1;
            // Columns: name, kind, shape, dtype, chunks, codec, ratio, each as wide as its widest
            // cell; the root's line (the path given) is left out of the widths.
            let below = if nodes.len() > 1 {
                lines.get(1..).unwrap_or_default()
            } else {
                &lines[..]
            };
            let mut widths = Vec::new();
            for row in below {
                for (i, cell) in row.iter().enumerate() {
                    if widths.len() <= i {
                        widths.push(0);
                    }
                    widths[i] = widths[i].max(cell.chars().count());
                }
            }
            for (i, row) in lines.iter().enumerate() {
                let line = if i == 0 && nodes.len() > 1 {
                    row.iter()
                        .filter(|c| !c.is_empty())
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("  ")
                } else {
                    let mut line = String::new();
                    for (j, cell) in row.iter().enumerate() {
                        let width = widths.get(j).copied().unwrap_or(0);
                        line.push_str(&format!("{cell:<width$}  "));
                    }
                    line
                };
                out.print(line.trim_end())?;
                out.print("\n")?;
            }
        }
    }
    printer.finish(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_pythons() {
        assert_eq!(key("g/h/y.b2nd", true), "/g/h/y");
        assert_eq!(key("_indexes/x/summary.block.b2nd", true), "/_indexes/x/summary.block");
        assert_eq!(key("g/h", false), "/g/h");
        assert_eq!(key(".hidden", true), "/.hidden");
    }

    #[test]
    fn values_are_shown_as_python_prints_tuples() {
        assert_eq!(shown(&json!([3])), "(3,)");
        assert_eq!(shown(&json!([3, 2])), "(3, 2)");
        assert_eq!(shown(&json!("<f8")), "<f8");
        assert_eq!(shown(&json!(51.81347150259067)), "51.81");
        assert_eq!(shown(&Value::Null), "-");
    }

    #[test]
    fn parents_and_relative_paths() {
        assert_eq!(parent("a/b/c"), "a/b");
        assert_eq!(parent("a"), "");
        assert_eq!(
            relative(Path::new("x/s.b2z"), Path::new("x/s.b2z/g/y.b2nd")),
            "g/y.b2nd"
        );
    }
}

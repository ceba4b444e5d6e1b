//! Stores through `metalayer::store`: every fixture store's members, and every fixture
//! EmbedStore's `embed_map`, beside python-blosc2's and python's `zipfile`'s
//! (tests/fixtures/expected.json); the frames read at their places; and maps that do not read:
//! made by rewriting a fixture's `estore_metadata` with the frame editor, their msgpack written
//! here byte by byte from the msgpack specification.
#![cfg(all(feature = "store", feature = "edit"))]

use std::path::{Path, PathBuf};

use metalayer::frame::edit::Edit;
use metalayer::store::{EMBED_METADATA, Entry, Place, Store, StoreErrorKind, is_embed_store};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel)
}

/// 3.12.2's DictStore's `embed.b2e`: 882 bytes; its estore_metadata holds `/small` (0, 259) and
/// `/dir/sc` (259, 212), 471 bytes of data (expected.json).
const EMBED: &str = "files/blosc2-3-stores/dictstore.b2d/embed.b2e";

#[test]
fn every_fixture_embed_map_is_pythons() {
    let text = std::fs::read_to_string(fixture("expected.json")).unwrap_or_default();
    let expected: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut seen = 0;
    for entry in expected.as_array().into_iter().flatten() {
        let Some(meta) = entry["vlmetalayers"]
            .as_array()
            .and_then(|v| v.iter().find(|m| m["name"] == EMBED_METADATA))
        else {
            continue;
        };
        let path = fixture(entry["path"].as_str().unwrap_or_default());
        let want: Vec<(String, Place)> = meta["msgpack"]["embed_map"]
            .as_object()
            .unwrap_or_else(|| panic!("{}", path.display()))
            .iter()
            .map(|(key, place)| {
                let n = |k: &str| place[k].as_u64().unwrap_or_else(|| panic!("{key}"));
                (
                    key.clone(),
                    Place::Data {
                        offset: n("offset"),
                        len: n("length"),
                    },
                )
            })
            .collect();
        let store = Store::open_embed(&path).unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<(String, Place)> = store
            .entries()
            .iter()
            .map(|e| match e {
                Entry::Member(m) => (m.name.clone(), m.place.clone()),
                Entry::Refused { message, .. } => panic!("{message}"),
            })
            .collect();
        assert_eq!(got, want, "{}", path.display());
        let map = store.embed_map().unwrap_or_else(|| panic!("a map"));
        assert_eq!(
            map.current_offset,
            meta["msgpack"]["current_offset"].as_u64(),
            "{}",
            path.display()
        );
        // Every frame reads, and is as long as its place says.
        for m in store.members() {
            let frame = store.read_frame(m).unwrap_or_else(|e| panic!("{}: {e}", m.name));
            assert_eq!(
                Some(frame.frame().map(|f| f.header.frame_len).unwrap_or_default()),
                m.place.len()
            );
        }
        seen += 1;
    }
    // 3.12.2's EmbedStore, DictStore and TreeStore; 4.14.1's EmbedStore, its stores' own and their
    // members.
    assert_eq!(seen, 10);
}

#[test]
fn embedded_frames_are_named_below_the_embed_store() {
    let store = Store::open_embed(fixture(EMBED)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(store.data().map(<[u8]>::len), Some(471));
    let paths: Vec<PathBuf> = store.members().map(|m| store.member_path(m)).collect();
    let base = fixture(EMBED).display().to_string();
    assert_eq!(
        paths,
        [
            PathBuf::from(format!("{base}/small")),
            PathBuf::from(format!("{base}/dir/sc"))
        ]
    );
    let frame = std::fs::read(fixture(EMBED)).unwrap_or_default();
    let meta = metalayer::frame::Frame::parse(&frame).unwrap_or_else(|e| panic!("{e}"));
    assert!(is_embed_store(meta.metalayers.iter().map(|m| &m.name)));
}

/// msgpack: a fixstr.
fn s(text: &str) -> Vec<u8> {
    let mut out = vec![0xa0 | u8::try_from(text.len()).unwrap_or_default()];
    out.extend_from_slice(text.as_bytes());
    out
}

/// msgpack: `{"offset": o, "length": n}` with uint16 values.
fn place(o: u16, n: u16) -> Vec<u8> {
    let mut out = vec![0x82];
    out.extend(s("offset"));
    out.push(0xcd);
    out.extend_from_slice(&o.to_be_bytes());
    out.extend(s("length"));
    out.push(0xcd);
    out.extend_from_slice(&n.to_be_bytes());
    out
}

/// msgpack: `{"embed_map": <map>, "current_offset": 471}`, `map` given as bytes.
fn metadata(map: &[u8]) -> Vec<u8> {
    let mut out = vec![0x82];
    out.extend(s("embed_map"));
    out.extend_from_slice(map);
    out.extend(s("current_offset"));
    out.extend_from_slice(&[0xcd, 0x01, 0xd7]);
    out
}

/// The fixture with its estore_metadata replaced by `msgpack`, written to `dir`; the path, and
/// where the new vlmetalayer's content starts in the frame.
fn with_metadata(dir: &tempfile::TempDir, msgpack: Vec<u8>) -> (PathBuf, u64) {
    let frame = std::fs::read(fixture(EMBED)).unwrap_or_default();
    let edited = Edit::new()
        .vlmeta(EMBED_METADATA, msgpack)
        .apply(&frame)
        .unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("embed.b2e");
    std::fs::write(&path, &edited.frame).unwrap_or_else(|e| panic!("{e}"));
    let read = metalayer::frame::Frame::parse(&edited.frame).unwrap_or_else(|e| panic!("{e}"));
    let at = read
        .vlmetalayers
        .iter()
        .find(|m| m.name == EMBED_METADATA)
        .map(|m| m.offset)
        .unwrap_or_default();
    (path, at)
}

#[test]
fn places_outside_the_data_or_not_places_are_refused_alone() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // {"/small": place(300, 259), "/dir/sc": place(259, 212), "/bad": [1, 2]}
    let mut map = vec![0x83];
    map.extend(s("/small"));
    map.extend(place(300, 259));
    map.extend(s("/dir/sc"));
    map.extend(place(259, 212));
    map.extend(s("/bad"));
    let bad_at = 1 + 10 + map.len();
    map.extend_from_slice(&[0x92, 0x01, 0x02]);
    let (path, _) = with_metadata(&dir, metadata(&map));
    let store = Store::open_embed(&path).unwrap_or_else(|e| panic!("{e}"));
    let shown = path.display();
    let got: Vec<(String, Option<String>)> = store
        .entries()
        .iter()
        .map(|e| match e {
            Entry::Member(m) => (m.name.clone(), None),
            Entry::Refused { name, message, .. } => (name.clone(), Some(message.clone())),
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "/small".to_owned(),
                Some(format!(
                    "estore_metadata places /small at byte 300, 259 bytes, past the end of {shown}'s data (471 bytes)"
                ))
            ),
            ("/dir/sc".to_owned(), None),
            (
                "/bad".to_owned(),
                Some(format!(
                    "estore_metadata of {shown}: the place of /bad: at byte {bad_at} of its msgpack: not a map of offset \
                     and length, but 0x92"
                ))
            ),
        ]
    );
}

#[test]
fn a_map_that_does_not_read_is_an_error_with_its_path_and_bytes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut one = s("/small");
    one.extend(place(0, 259));
    // map16 of 3 pairs, where one is; then current_offset's key is read as the second key, its
    // value 471 as a place (refused alone), and the third key runs past the end.
    let mut lying = vec![0xde, 0x00, 0x03];
    lying.extend_from_slice(&one);
    let lying = metadata(&lying);
    let lying_len = lying.len();
    // The map as an array of the same pair.
    let mut array = vec![0x92];
    array.extend_from_slice(&one);
    // 0xc1: never used by msgpack.
    let cases: [(Vec<u8>, String); 4] = [
        (
            lying,
            format!(
                "at byte {lying_len} of its msgpack: the msgpack ends at byte {lying_len} before the 1 bytes it announces here"
            ),
        ),
        (
            metadata(&array),
            "at byte 11 of its msgpack: embed_map is an array of 2 items, not a map of keys".to_owned(),
        ),
        (
            vec![0xc1],
            "at byte 0 of its msgpack: 0xc1, a byte msgpack never uses: not msgpack".to_owned(),
        ),
        (
            vec![0x81, 0xa1, b'x', 0x00],
            "at byte 0 of its msgpack: estore_metadata has no key embed_map".to_owned(),
        ),
    ];
    for (msgpack, want) in cases {
        let (path, at) = with_metadata(&dir, msgpack);
        let err = Store::open_embed(&path).map(|_| ()).unwrap_err();
        assert!(matches!(err.kind(), StoreErrorKind::EmbedMap { vlmeta_offset, .. } if *vlmeta_offset == at));
        assert_eq!(
            err.to_string(),
            format!(
                "{}: estore_metadata, the vlmetalayer at byte {at}: {want}; the frames it places cannot be found",
                path.display()
            )
        );
    }
}

#[test]
fn a_frame_without_estore_metadata_holds_no_frames() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let frame = std::fs::read(fixture(EMBED)).unwrap_or_default();
    let edited = Edit::new()
        .delete_vlmeta(EMBED_METADATA)
        .apply(&frame)
        .unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("embed.b2e");
    std::fs::write(&path, &edited.frame).unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open_embed(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(store.entries().is_empty());
    // A frame that is no EmbedStore is not opened as one.
    let plain = fixture("files/blosc2-4/meta_user.b2nd");
    assert!(matches!(
        Store::open_embed(&plain).unwrap_err().kind(),
        StoreErrorKind::NotAStore
    ));
}

#[test]
fn chunk_offsets_outside_the_frame_are_refused() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut frame = std::fs::read(fixture(EMBED)).unwrap_or_default();
    // cbytes: the header's int64 (0xd3) at byte 38 (the magic 10, header_len 5, frame_len 9,
    // flags 5, nbytes 9 bytes before it). Made 10,000: the chunk offsets would lie at
    // header_len (125) + 10,000, past the frame's end at byte 882.
    assert_eq!(frame[38], 0xd3);
    frame[39..47].copy_from_slice(&10_000i64.to_be_bytes());
    let path = dir.path().join("embed.b2e");
    std::fs::write(&path, &frame).unwrap_or_else(|e| panic!("{e}"));
    let err = Store::open_embed(&path).map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: at byte 10125: 32 bytes run past the frame's end at byte 882",
            path.display()
        )
    );
    // nbytes (at byte 29) claimed larger than what is decompressed to find the frames.
    let mut frame = std::fs::read(fixture(EMBED)).unwrap_or_default();
    assert_eq!(frame[29], 0xd3);
    frame[30..38].copy_from_slice(&(1i64 << 40).to_be_bytes());
    std::fs::write(&path, &frame).unwrap_or_else(|e| panic!("{e}"));
    let err = Store::open_embed(&path).map(|_| ()).unwrap_err().to_string();
    assert!(
        err.ends_with("is more than the 67108864 bytes read to find the frames it holds"),
        "{err}"
    );
}

#[test]
fn the_embed_store_of_a_zip_is_read_in_place() {
    let zip = fixture("files/blosc2-3-stores/dictstore.b2z");
    let store = Store::open(&zip).unwrap_or_else(|e| panic!("{e}"));
    let embed = store
        .members()
        .find(|m| m.name == "embed.b2e")
        .unwrap_or_else(|| panic!("embed.b2e"));
    let held = store.open_embed_store(embed).unwrap_or_else(|e| panic!("{e}"));
    let on_disk = Store::open_embed(fixture(EMBED)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(held.entries(), on_disk.entries());
    assert_eq!(held.data(), on_disk.data());
    assert_eq!(held.path(), zip.join("embed.b2e"));
}

#[test]
fn every_fixture_store_lists_pythons_members() {
    let text = std::fs::read_to_string(fixture("expected.json")).unwrap_or_default();
    let expected: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut seen = 0;
    for record in expected.as_array().into_iter().flatten() {
        let Some(kind) = record["store"].as_str() else { continue };
        let path = fixture(record["path"].as_str().unwrap_or_default());
        let store = Store::open(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            store.entries().iter().all(|e| e.member().is_some()),
            "{}",
            path.display()
        );
        let n = |m: &serde_json::Value, k: &str| m[k].as_u64().unwrap_or_else(|| panic!("{k}"));
        // python's zipfile (name, header offset, data offset, size) and, for a directory, each
        // member file's name and size; in name order, components compared one by one.
        let mut want: Vec<(String, Place)> = record["members"]
            .as_array()
            .unwrap_or_else(|| panic!("members"))
            .iter()
            .map(|m| {
                let name = m["name"].as_str().unwrap_or_default().to_owned();
                let place = match kind {
                    "zip" => Place::Zip {
                        header_offset: n(m, "header_offset"),
                        offset: n(m, "offset"),
                        len: n(m, "size"),
                    },
                    _ => Place::File {
                        path: fixture(m["path"].as_str().unwrap_or_default()),
                        len: n(m, "size"),
                    },
                };
                (name, place)
            })
            .collect();
        want.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
        let got: Vec<(String, Place)> = store.members().map(|m| (m.name.clone(), m.place.clone())).collect();
        assert_eq!(got, want, "{}", path.display());
        seen += 1;
    }
    // DictStore and TreeStore of 3.12.2 and 4.14.1, and 4.14.1's CTable, each as .b2d and .b2z.
    assert_eq!(seen, 10);
}

#[test]
fn an_embed_store_of_100000_keys_opens() {
    // 100,000 keys, each placing the frame of /small (0, 259): a map32 of fixstr keys
    // "/k000000".. and the place of 4.1.
    const KEYS: u32 = 100_000;
    let mut map = vec![0xdf];
    map.extend_from_slice(&KEYS.to_be_bytes());
    for i in 0..KEYS {
        map.extend(s(&format!("/k{i:06}")));
        map.extend(place(0, 259));
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("store-embed-100000");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let frame = std::fs::read(fixture(EMBED)).unwrap_or_default();
    let edited = Edit::new()
        .vlmeta(EMBED_METADATA, metadata(&map))
        .apply(&frame)
        .unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("embed.b2e");
    std::fs::write(&path, &edited.frame).unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open_embed(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(store.members().count(), 100_000);
    let last = store.members().last().unwrap_or_else(|| panic!("a member"));
    assert_eq!(
        (last.name.as_str(), &last.place),
        ("/k099999", &Place::Data { offset: 0, len: 259 })
    );
    let frame = store.read_frame(last).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(frame.frame().map(|f| f.header.frame_len).ok(), Some(259));
}

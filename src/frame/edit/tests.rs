//! The editor against the frames python-blosc2 wrote, its refusals, and the atomic replace with
//! a failure injected at every write.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
#![allow(clippy::arithmetic_side_effects)]

use std::fs;
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use super::replace::Faults;
use super::*;
use crate::frame::parse_frame;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files");

/// Every contiguous frame file of the fixture directories `dirs`.
fn frames(dirs: &[&str]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for dir in dirs {
        for entry in fs::read_dir(Path::new(FIXTURES).join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() && fs::read(&path).unwrap().starts_with(b"\x9e\xa8b2frame\0") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    assert!(!paths.is_empty());
    paths
}

const VLMETA_DIRS: [&str; 2] = ["blosc2-2-vlmeta", "blosc2-4-vlmeta"];

#[test]
fn an_empty_edit_writes_python_blosc2s_bytes_again() {
    // The header and the trailer are encoded anew from what was read: python-blosc2 (2.x and
    // 4.x) wrote the same bytes, index sizes and offsets included.
    let mut dirs = VLMETA_DIRS.to_vec();
    dirs.extend(["blosc2-4", "blosc2-2", "blosc2-4-own"]);
    for path in frames(&dirs) {
        let bytes = fs::read(&path).unwrap();
        let frame_len = parse_frame(&bytes).unwrap().header.frame_len as usize;
        let edited = Edit::new().apply(&bytes).unwrap();
        assert_eq!(edited.frame, bytes[..frame_len], "{}", path.display());
    }
}

#[test]
fn memcpyed_chunks_are_python_blosc2s() {
    // python-blosc2 stores small values as memcpyed chunks (flags 0x07) of its vlmeta codec,
    // Zstd (5): the same bytes. (Its values stored with other codecs name theirs.)
    let mut seen = 0;
    for path in frames(&VLMETA_DIRS) {
        let frame = parse_frame(&fs::read(&path).unwrap()).unwrap();
        for m in frame
            .vlmetalayers
            .iter()
            .filter(|m| m.content[2] == 0x07 && m.content[22] == 5)
        {
            let value = &m.content[32..];
            assert_eq!(
                memcpyed_chunk(value).unwrap(),
                m.content,
                "{} {}",
                path.display(),
                m.name
            );
            seen += 1;
        }
    }
    assert!(seen > 100, "{seen}");
}

fn fixture(path: &str) -> Vec<u8> {
    fs::read(Path::new(FIXTURES).join(path)).unwrap()
}

#[test]
fn vlmetalayers_keep_their_places() {
    let bytes = fixture("blosc2-4-vlmeta/updated_deleted.b2nd");
    let edit = Edit::new()
        .vlmeta("d", b"\x2a")
        .delete_vlmeta("a")
        .vlmeta("f", b"\xa1f")
        .vlmeta("a", b"\xc0");
    let edited = edit.apply(&bytes).unwrap();
    let frame = parse_frame(&edited.frame).unwrap();
    let names: Vec<&str> = frame.vlmetalayers.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["b", "d", "e", "f", "a"]);
    assert_eq!(&frame.vlmetalayers[1].content[32..], b"\x2a");
    let kinds: Vec<(bool, bool)> = edited
        .changes
        .iter()
        .map(|c| (c.before.is_some(), c.after.is_some()))
        .collect();
    assert_eq!(kinds, [(true, true), (true, false), (false, true), (false, true)]);
}

#[test]
fn deleting_every_vlmetalayer_leaves_an_empty_trailer() {
    let bytes = fixture("blosc2-4-vlmeta/updated_deleted.b2nd");
    let edit = ["a", "b", "d", "e"]
        .iter()
        .fold(Edit::new(), |e, n| e.delete_vlmeta(*n));
    let edited = edit.apply(&bytes).unwrap();
    let frame = parse_frame(&edited.frame).unwrap();
    assert!(!frame.header.has_vlmetalayers);
    assert_eq!(frame.trailer.trailer_len as usize, crate::frame::MIN_TRAILER_LEN);
    assert_eq!(frame.header.frame_len as usize, edited.frame.len());
    // python-blosc2's frame after the same deletions has this trailer: 0x94 0x01, the section
    // with size 6 and nothing in it, trailer_len 35, the fingerprint.
    let python = fixture("blosc2-4-vlmeta/deleted_all.b2nd");
    assert_eq!(edited.frame[edited.frame.len() - 35..], python[python.len() - 35..]);
}

#[test]
fn refusals_name_what_and_where() {
    let bytes = fixture("blosc2-4/meta_user.b2nd");
    let err = |edit: Edit| edit.apply(&bytes).unwrap_err().to_string();
    assert_eq!(
        err(Edit::new().meta("nope", b"\x01")),
        "the frame has no metalayer \"nope\" (metalayers are added only to frames without chunks)"
    );
    // "units" has its 0xc6 at 0xcc (the header's map says so), its 7 bytes at 0xd1..0xd8;
    // "scale" has its 0xc6 at 0xd8, its content at 0xdd.
    assert_eq!(
        err(Edit::new().meta("scale", b"\xcd\x01\x2c")),
        "metalayer \"scale\" (content at byte 0xdd): the new value is 3 bytes, the stored one 1; a metalayer \
         is updated in place only by a value of its own length"
    );
    assert_eq!(
        err(Edit::new().delete_vlmeta("x")),
        "the frame has no vlmetalayer \"x\" to delete"
    );
    let long = "n".repeat(32);
    assert_eq!(
        err(Edit::new().vlmeta(long.clone(), b"\x01")),
        format!("vlmetalayer name {long:?} is 32 bytes: the trailer holds names of at most 31")
    );
    assert_eq!(
        err(Edit::new().vlmeta("e", b"")),
        "vlmetalayer \"e\": the new value is empty"
    );
    let many = (0..17).fold(Edit::new(), |e, i| e.vlmeta(format!("k{i}"), b"\x01"));
    assert_eq!(err(many), "17 vlmetalayers: a frame holds at most 16");
    // 16 are allowed.
    let sixteen = (0..16).fold(Edit::new(), |e, i| e.vlmeta(format!("k{i}"), b"\x01"));
    assert_eq!(
        parse_frame(&sixteen.apply(&bytes).unwrap().frame)
            .unwrap()
            .vlmetalayers
            .len(),
        16
    );
    // A broken frame is the reader's error.
    let mut broken = bytes.clone();
    broken[0x5b] = 0x80;
    let reader = parse_frame(&broken).unwrap_err().to_string();
    assert_eq!(Edit::new().apply(&broken).unwrap_err().to_string(), reader);
}

/// A directory of its own under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("metalayer-edit-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The edits the fault injection runs: each kind of change, on frames with and without
/// vlmetalayers.
fn fault_cases() -> Vec<(&'static str, Edit)> {
    vec![
        (
            "blosc2-4/meta_user.b2nd",
            Edit::new().meta("units", b"\xa6kelvyn").vlmeta("source", b"\xa3sim"),
        ),
        (
            "blosc2-4-vlmeta/updated_deleted.b2nd",
            Edit::new().delete_vlmeta("b").vlmeta("a", b"\x05"),
        ),
        ("blosc2-2-vlmeta/deleted_all.b2nd", Edit::new().vlmeta("unit", b"\xa1K")),
        ("blosc2-4-vlmeta/strings.b2nd", Edit::new().delete_vlmeta("str_0")),
    ]
}

#[test]
fn a_failure_at_any_write_leaves_the_old_file_or_the_new_one() {
    let dir = scratch("faults");
    for (source, edit) in fault_cases() {
        let old = fixture(source);
        let new = edit.apply(&old).unwrap().frame;
        // How many steps a whole edit takes, with the chunks copied 64 bytes at a time.
        let path = dir.join("frame.b2nd");
        fs::write(&path, &old).unwrap();
        let mut clean = Faults {
            piece: 64,
            ..Faults::default()
        };
        edit.write_faulted(&path, &WriteOptions::new(), &mut clean).unwrap();
        assert_eq!(fs::read(&path).unwrap(), new, "{source}");
        assert!(clean.steps > 4, "{source}: {} steps", clean.steps);
        for crash in [false, true] {
            for fail_at in 0..clean.steps {
                fs::write(&path, &old).unwrap();
                let mut faults = Faults {
                    fail_at: Some(fail_at),
                    crash,
                    piece: 64,
                    ..Faults::default()
                };
                let result = edit.write_faulted(&path, &WriteOptions::new(), &mut faults);
                let found = fs::read(&path).unwrap();
                let what = format!("{source}: failure at step {fail_at} of {}, crash {crash}", clean.steps);
                assert!(result.is_err(), "{what}");
                assert!(
                    found == old || found == new,
                    "{what}: neither the old frame nor the new one"
                );
                // The reader reads whichever it is.
                parse_frame(&found).unwrap();
                // The last step (the directory's sync) comes after the rename.
                assert_eq!(found == new, fail_at == clean.steps - 1, "{what}");
                let left: Vec<String> = fs::read_dir(&dir)
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n != "frame.b2nd")
                    .collect();
                assert_eq!(
                    left.is_empty(),
                    !crash || fail_at == clean.steps - 1,
                    "{what}: {left:?}"
                );
                for name in left {
                    fs::remove_file(dir.join(name)).unwrap();
                }
            }
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replace_file_leaves_the_old_file_or_the_new_one() {
    // What a store's rewrite goes through: the caller's writes, then the sync, the rename and
    // the directory's sync, each made to fail, with and without the clean-up a crash skips.
    use std::io::Write;
    let dir = scratch("replace-file");
    let path = dir.join("store.b2z");
    for crash in [false, true] {
        for fail_at in [None, Some(0), Some(1), Some(2)] {
            for write_fails in [false, true] {
                fs::write(&path, b"old").unwrap();
                let mut faults = Faults {
                    fail_at,
                    crash,
                    ..Faults::default()
                };
                let result = replace::replace_with(&path, &WriteOptions::new(), &mut faults, |original, file, _| {
                    let write = |e| EditError::write(original.path(), e);
                    file.write_all(b"ne").map_err(write)?;
                    if write_fails {
                        return Err(EditError::write(
                            original.path(),
                            std::io::Error::other("a failed write"),
                        ));
                    }
                    file.write_all(b"w").map_err(write)
                });
                let what = format!("fail at {fail_at:?}, the caller's write failing {write_fails}, crash {crash}");
                let found = fs::read(&path).unwrap();
                // Only the last step, the directory's sync, comes after the rename.
                let new = !write_fails && fail_at.is_none_or(|at| at == 2);
                assert_eq!(found, if new { &b"new"[..] } else { &b"old"[..] }, "{what}");
                assert_eq!(result.is_ok(), !write_fails && fail_at.is_none(), "{what}");
                let left = fs::read_dir(&dir).unwrap().count();
                let tmp_left = crash && !new && (write_fails || fail_at.is_some());
                assert_eq!(left, 1 + usize::from(tmp_left), "{what}");
                for entry in fs::read_dir(&dir).unwrap() {
                    let entry = entry.unwrap();
                    if entry.file_name() != "store.b2z" {
                        fs::remove_file(entry.path()).unwrap();
                    }
                }
            }
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_sparse_frame_edits_its_chunks_b2frame() {
    let dir = scratch("sparse");
    let source = Path::new(FIXTURES).join("blosc2-4-vlmeta/sparse_mixed.b2nd");
    let copy = dir.join("sparse_mixed.b2nd");
    fs::create_dir_all(&copy).unwrap();
    for entry in fs::read_dir(&source).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    let edit = Edit::new().vlmeta("int", b"\x09");
    let expected = edit
        .apply(&fs::read(source.join("chunks.b2frame")).unwrap())
        .unwrap()
        .frame;
    edit.write(&copy).unwrap();
    assert_eq!(fs::read(copy.join("chunks.b2frame")).unwrap(), expected);
    for chunk in ["00000000.chunk", "00000001.chunk"] {
        assert_eq!(
            fs::read(copy.join(chunk)).unwrap(),
            fs::read(source.join(chunk)).unwrap()
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_followed_and_kept() {
    let dir = scratch("link");
    let target = dir.join("frame.b2nd");
    fs::write(&target, fixture("blosc2-4/meta_user.b2nd")).unwrap();
    let link = dir.join("link.b2nd");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    Edit::new().vlmeta("k", b"\x01").write(&link).unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(
        parse_frame(&fs::read(&target).unwrap()).unwrap().vlmetalayers[0].name,
        "k"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_entry_at_the_temp_name_is_never_removed() {
    // The first name the editor tries is taken by an entry it did not make: a file, a directory,
    // and a symbolic link to a file elsewhere. It picks another name, edits, and leaves the entry.
    let dir = scratch("planted");
    let path = dir.join("frame.b2nd");
    let elsewhere = dir.join("elsewhere");
    fs::write(&elsewhere, b"someone's").unwrap();
    let planted = ".frame.b2nd.planted0000.edit";
    let plants: [&dyn Fn(&Path); 3] = [
        &|at| fs::write(at, b"someone else's").unwrap(),
        &|at| fs::create_dir(at).unwrap(),
        &|at| {
            #[cfg(unix)]
            std::os::unix::fs::symlink(&elsewhere, at).unwrap();
            #[cfg(not(unix))]
            fs::write(at, b"someone else's").unwrap();
        },
    ];
    for plant in plants {
        fs::write(&path, fixture("blosc2-4/meta_user.b2nd")).unwrap();
        let at = dir.join(planted);
        plant(&at);
        let before = fs::symlink_metadata(&at).unwrap();
        let mut faults = Faults {
            forced_name: Some(planted.into()),
            ..Faults::default()
        };
        Edit::new()
            .vlmeta("k", b"\x01")
            .write_faulted(&path, &WriteOptions::new(), &mut faults)
            .unwrap();
        assert_eq!(
            parse_frame(&fs::read(&path).unwrap()).unwrap().vlmetalayers[0].name,
            "k"
        );
        let after = fs::symlink_metadata(&at).unwrap();
        assert_eq!(before.file_type(), after.file_type());
        if after.is_file() {
            assert_eq!(fs::read(&at).unwrap(), b"someone else's");
        }
        assert_eq!(names_in(&dir), [planted, "elsewhere", "frame.b2nd"]);
        // A failed edit, too, removes its own file and not the planted one.
        let mut faults = Faults {
            forced_name: Some(planted.into()),
            fail_at: Some(1),
            ..Faults::default()
        };
        let failed = Edit::new()
            .vlmeta("k", b"\x02")
            .write_faulted(&path, &WriteOptions::new(), &mut faults);
        assert!(failed.is_err());
        assert_eq!(names_in(&dir), [planted, "elsewhere", "frame.b2nd"]);
        assert_eq!(fs::read(&elsewhere).unwrap(), b"someone's");
        if after.is_dir() {
            fs::remove_dir(&at).unwrap();
        } else {
            fs::remove_file(&at).unwrap();
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_edit_waits_for_the_lock_then_gives_up_naming_the_holder() {
    let dir = scratch("locked");
    let path = dir.join("frame.b2nd");
    let old = fixture("blosc2-4/meta_user.b2nd");
    fs::write(&path, &old).unwrap();
    let holder = fs::File::open(&path).unwrap();
    holder.lock().unwrap();
    let options = WriteOptions::new().wait(std::time::Duration::from_millis(200));
    let started = std::time::Instant::now();
    let err = Edit::new()
        .vlmeta("k", b"\x01")
        .write_with(&path, &options)
        .unwrap_err();
    assert!(started.elapsed() >= std::time::Duration::from_millis(200));
    let EditError::Locked { holder: Some(h), .. } = &err else {
        panic!("{err:?}")
    };
    // This process holds it, through another handle.
    assert_eq!(h.pid, std::process::id());
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "{} is locked by another edit, process {}",
            path.canonicalize().unwrap().display(),
            h.pid
        )),
        "{message}"
    );
    assert!(message.contains("gave up after waiting 0.2 s"), "{message}");
    assert_eq!(fs::read(&path).unwrap(), old);
    assert_eq!(names_in(&dir), ["frame.b2nd"]);
    // Released while the edit waits: it goes on.
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        drop(holder);
    });
    Edit::new()
        .vlmeta("k", b"\x01")
        .write_with(&path, &WriteOptions::new().wait(std::time::Duration::from_secs(10)))
        .unwrap();
    release.join().unwrap();
    assert_eq!(
        parse_frame(&fs::read(&path).unwrap()).unwrap().vlmetalayers[0].name,
        "k"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_edit_that_waited_edits_the_file_the_holder_renamed_in() {
    // The holder replaces the file (as an edit does) before it lets go: the waiting edit must
    // not write over the new file from the old one's bytes.
    let dir = scratch("renamed-in");
    let path = dir.join("frame.b2nd");
    fs::write(&path, fixture("blosc2-4/meta_user.b2nd")).unwrap();
    let holder = fs::File::open(&path).unwrap();
    holder.lock().unwrap();
    let (path2, dir2) = (path.clone(), dir.clone());
    let other = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let theirs = Edit::new()
            .vlmeta("theirs", b"\x01")
            .apply(&fs::read(&path2).unwrap())
            .unwrap()
            .frame;
        let new = dir2.join("their-new-file");
        fs::write(&new, theirs).unwrap();
        fs::rename(&new, &path2).unwrap();
        drop(holder);
    });
    Edit::new().vlmeta("ours", b"\x02").write(&path).unwrap();
    other.join().unwrap();
    let names: Vec<String> = parse_frame(&fs::read(&path).unwrap())
        .unwrap()
        .vlmetalayers
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, ["theirs", "ours"]);
    fs::remove_dir_all(&dir).unwrap();
}

/// Writes `bytes` at the end of the file `path`, in place, as a writer that takes no lock.
fn append(path: &Path, bytes: &[u8]) {
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, bytes).unwrap();
}

#[test]
fn a_file_changed_by_a_writer_that_takes_no_lock_is_read_again() {
    let dir = scratch("unlocked-writer");
    let path = dir.join("frame.b2nd");
    let old = fixture("blosc2-4/meta_user.b2nd");
    // Once: the edit starts again on what the other writer left (here, bytes after frame_len,
    // which the edit then drops: readers never see them).
    fs::write(&path, &old).unwrap();
    let mut once = true;
    let mut faults = Faults {
        before_rename: Some(std::boxed::Box::new(move |p: &Path| {
            if std::mem::take(&mut once) {
                append(p, b"tail");
            }
        })),
        ..Faults::default()
    };
    Edit::new()
        .vlmeta("k", b"\x01")
        .write_faulted(&path, &WriteOptions::new(), &mut faults)
        .unwrap();
    assert_eq!(
        fs::read(&path).unwrap(),
        Edit::new().vlmeta("k", b"\x01").apply(&old).unwrap().frame
    );
    assert_eq!(names_in(&dir), ["frame.b2nd"]);
    // Always: the edit gives up, and leaves what the other writer wrote.
    fs::write(&path, &old).unwrap();
    let mut faults = Faults {
        before_rename: Some(std::boxed::Box::new(|p: &Path| append(p, b"x"))),
        ..Faults::default()
    };
    let err = Edit::new()
        .vlmeta("k", b"\x01")
        .write_faulted(&path, &WriteOptions::new(), &mut faults)
        .unwrap_err();
    assert!(
        matches!(err, EditError::Changed { tries, .. } if tries == MAX_RESTARTS + 1),
        "{err:?}"
    );
    let mut expected = old.clone();
    expected.extend(std::iter::repeat_n(b'x', MAX_RESTARTS + 1));
    assert_eq!(fs::read(&path).unwrap(), expected);
    assert_eq!(names_in(&dir), ["frame.b2nd"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_system_that_refuses_locks_is_said_and_lock_false_edits() {
    let dir = scratch("no-locks");
    let path = dir.join("frame.b2nd");
    let old = fixture("blosc2-4/meta_user.b2nd");
    fs::write(&path, &old).unwrap();
    // ENOLCK, as some NFS mounts answer.
    let enolck = 37;
    let mut faults = Faults {
        lock_error: Some(enolck),
        ..Faults::default()
    };
    let edit = Edit::new().vlmeta("k", b"\x01");
    let err = edit
        .write_faulted(&path, &WriteOptions::new(), &mut faults)
        .unwrap_err();
    assert!(matches!(&err, EditError::Lock { source, .. } if source.raw_os_error() == Some(enolck)));
    assert!(
        err.to_string().ends_with("(the file system may not support locks)"),
        "{err}"
    );
    assert_eq!(fs::read(&path).unwrap(), old);
    let mut faults = Faults {
        lock_error: Some(enolck),
        ..Faults::default()
    };
    edit.write_faulted(&path, &WriteOptions::new().lock(false), &mut faults)
        .unwrap();
    assert_eq!(fs::read(&path).unwrap(), edit.apply(&old).unwrap().frame);
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_at_once() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe.b2nd");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let started = std::time::Instant::now();
    let edit = Edit::new().vlmeta("k", b"\x01");
    for result in [edit.write(&fifo), edit.preview(&fifo)] {
        let err = result.unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} is a FIFO, not a regular file: only frame files and sparse-frame directories are read",
                fifo.display()
            )
        );
    }
    let replaced = replace_file(&fifo, &WriteOptions::new(), |_, _| Ok::<(), EditError>(()));
    assert!(matches!(replaced, Err(EditError::Frame(_))));
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(names_in(&dir), ["pipe.b2nd"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn the_new_file_keeps_the_mode_and_the_extended_attributes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("metadata");
    let path = dir.join("frame.b2nd");
    fs::write(&path, fixture("blosc2-4/meta_user.b2nd")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    // A user attribute, where the file system keeps them (tmpfs and ext4 do).
    let xattrs = xattr::set(&path, "user.origin", b"lab 3").is_ok();
    Edit::new().vlmeta("k", b"\x01").write(&path).unwrap();
    let meta = fs::metadata(&path).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o640);
    if xattrs {
        assert_eq!(
            xattr::get(&path, "user.origin").unwrap().as_deref(),
            Some(&b"lab 3"[..])
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

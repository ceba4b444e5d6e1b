//! `metalayer set` loses nothing: a process killed at any point leaves the old file or the new
//! one and at most one temp file; a second edit waits for the first's lock or gives up naming
//! it; entries at temp names it did not make survive; FIFOs are refused at once; a link to a
//! store is edited at its target. (Racing processes: `cblosc2/tests/races.rs`.)

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{BIN, fixture, run, scratch, stderr};
use metalayer::frame::Frame;
use metalayer::frame::edit::Edit;

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A frame of about 12 MB: a fixture with six vlmetalayers of 2 MiB that do not compress
/// (msgpack bin32 of pseudo-random bytes), so that an edit takes a while to copy it.
fn large_frame() -> Vec<u8> {
    let mut edit = Edit::new();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for k in 0..6 {
        let mut value = vec![0xc6];
        value.extend_from_slice(&(2u32 << 20).to_be_bytes());
        for _ in 0..(2 << 20) / 8 {
            // xorshift64
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            value.extend_from_slice(&state.to_le_bytes());
        }
        edit = edit.vlmeta(format!("blob{k}"), value);
    }
    let source = std::fs::read(fixture("files/blosc2-4/meta_user.b2nd")).expect("fixture");
    edit.apply(&source).expect("the large frame").frame
}

#[test]
fn a_set_killed_at_any_point_leaves_the_old_file_or_the_new_one() {
    let dir = scratch("set-killed");
    let path = dir.join("large.b2nd");
    let old = large_frame();
    let new = Edit::new()
        .delete_vlmeta("blob3")
        .vlmeta("k", b"\x01".to_vec())
        .apply(&old)
        .expect("the edit")
        .frame;
    let set = |path: &Path| {
        Command::new(BIN)
            .args(["set", "--delete-vlmeta", "blob3", "--vlmeta", "k=1"])
            .arg(path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("metalayer starts")
    };
    // Kill it at points spread over the time a whole edit takes (measured again before each
    // pass: a loaded machine slows it), and a little past it, until kills have fallen before the
    // temp file, inside the copy and after the rename; at most 8 passes of 15 kills.
    let (mut old_seen, mut new_seen, mut strays) = (0, 0, 0);
    let mut kills = 0;
    for _pass in 0..8 {
        std::fs::write(&path, &old).expect("write");
        let started = Instant::now();
        assert!(set(&path).wait().expect("runs").success());
        let whole = started.elapsed();
        assert_eq!(std::fs::read(&path).expect("read"), new);
        for i in 0..15 {
            kills += 1;
            std::fs::write(&path, &old).expect("write");
            let mut child = set(&path);
            std::thread::sleep(whole.mul_f64(f64::from(i) / 15.0 * 1.2));
            child.kill().expect("SIGKILL");
            child.wait().expect("reaped");
            let found = std::fs::read(&path).expect("read");
            assert!(
                found == old || found == new,
                "kill {kills}: neither the old frame nor the new one"
            );
            Frame::parse(&found).expect("the reader reads it");
            if found == old {
                old_seen += 1;
            } else {
                new_seen += 1;
            }
            let left: Vec<String> = names(&dir).into_iter().filter(|n| n != "large.b2nd").collect();
            assert!(left.len() <= 1, "kill {kills}: {left:?}");
            for name in left {
                assert!(name.starts_with(".large.b2nd.") && name.ends_with(".edit"), "{name}");
                std::fs::remove_file(dir.join(name)).expect("remove");
                strays += 1;
            }
        }
        if old_seen > 0 && new_seen > 0 && strays > 0 {
            break;
        }
    }
    // The kills fell before and after the rename, and some in the middle of the copy.
    assert!(
        old_seen > 0 && new_seen > 0 && strays > 0,
        "after {kills} kills: {old_seen} left the old file, {new_seen} the new one, {strays} a temp file"
    );
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn a_second_set_waits_for_the_lock_then_gives_up_naming_the_holder() {
    let dir = scratch("set-locked");
    let path = dir.join("meta_user.b2nd");
    std::fs::copy(fixture("files/blosc2-4/meta_user.b2nd"), &path).expect("copy");
    let old = std::fs::read(&path).expect("read");
    let holder = std::fs::File::open(&path).expect("open");
    holder.lock().expect("lock");
    let started = Instant::now();
    let out = run(&[
        Path::new("set"),
        Path::new("--wait"),
        Path::new("0.3"),
        Path::new("--vlmeta"),
        Path::new("k=1"),
        &path,
    ]);
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    let real = path.canonicalize().expect("real path");
    assert!(
        message.contains(&format!(
            "{} is locked by another edit, process {}",
            real.display(),
            std::process::id()
        )),
        "{message}"
    );
    assert!(
        message.contains("gave up after waiting 0.3 s; --wait SECONDS waits longer"),
        "{message}"
    );
    assert_eq!(std::fs::read(&path).expect("read"), old);
    // With the default wait, it goes on once the lock is let go.
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(holder);
    });
    let out = run(&[Path::new("set"), Path::new("--vlmeta"), Path::new("k=1"), &path]);
    release.join().expect("joined");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A dry run takes no lock.
    let holder = std::fs::File::open(&path).expect("open");
    holder.lock().expect("lock");
    let out = run(&[
        Path::new("set"),
        Path::new("--dry-run"),
        Path::new("--wait"),
        Path::new("0"),
        Path::new("--vlmeta"),
        Path::new("k=2"),
        &path,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    drop(holder);
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn entries_at_temp_names_are_never_removed() {
    // Entries at the names the editor once used (`.NAME.PID.N.edit`), at names of its present
    // form, and a FIFO among them: a run of edits, some failing, leaves each as it was.
    let dir = scratch("set-planted");
    let path = dir.join("f.b2nd");
    std::fs::copy(fixture("files/blosc2-4/meta_user.b2nd"), &path).expect("copy");
    let mut planted: Vec<PathBuf> = Vec::new();
    for pid in 1..200 {
        planted.push(dir.join(format!(".f.b2nd.{pid}.0.edit")));
    }
    for tail in ["aaaaaaaaaa", "0123456789", "ZZZZZZZZZZ"] {
        planted.push(dir.join(format!(".f.b2nd.{tail}.edit")));
    }
    for p in &planted {
        std::fs::write(p, b"not ours").expect("plant");
    }
    let fifo = dir.join(".f.b2nd.fifo00000.edit");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    for k in 0..10 {
        let out = run(&[
            Path::new("set"),
            Path::new("--vlmeta"),
            Path::new(&format!("k{k}=1")),
            &path,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        // A refused edit (a vlmetalayer that is not there).
        let out = run(&[Path::new("set"), Path::new("--delete-vlmeta"), Path::new("nope"), &path]);
        assert_eq!(out.status.code(), Some(1));
    }
    for p in &planted {
        assert_eq!(std::fs::read(p).expect("still there"), b"not ours");
    }
    let mut want: Vec<String> = planted
        .iter()
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    want.extend([".f.b2nd.fifo00000.edit".to_owned(), "f.b2nd".to_owned()]);
    want.sort();
    assert_eq!(names(&dir), want);
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn a_fifo_is_refused_within_a_second() {
    let dir = scratch("set-fifo");
    let fifo = dir.join("pipe.b2nd");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    for dry_run in [false, true] {
        let mut args = vec![Path::new("set"), Path::new("--vlmeta"), Path::new("k=1"), &fifo];
        if dry_run {
            args.insert(1, Path::new("--dry-run"));
        }
        let started = Instant::now();
        let mut child = Command::new(BIN)
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        // Never left waiting on the FIFO: killed after 5 s if it is.
        let mut status = None;
        while started.elapsed() < Duration::from_secs(5) {
            if let Some(s) = child.try_wait().expect("wait") {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let Some(status) = status else {
            child.kill().expect("kill");
            panic!("set (dry run {dry_run}) still waits on the FIFO after 5 s");
        };
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        assert_eq!(status.code(), Some(1));
        let out = child.wait_with_output().expect("output");
        assert_eq!(
            stderr(&out),
            format!(
                "metalayer: {0}: {0} is a FIFO, not a regular file: only frame files and sparse-frame directories are read\n",
                fifo.display()
            )
        );
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn a_link_to_a_store_is_edited_at_its_target() {
    let dir = scratch("set-store-link");
    let real = dir.join("real.b2z");
    std::fs::copy(fixture("files/blosc2-4-stores/dictstore.b2z"), &real).expect("copy");
    let link = dir.join("link.b2z");
    std::os::unix::fs::symlink("real.b2z", &link).expect("symlink");
    let out = run(&[
        Path::new("set"),
        Path::new("--vlmeta"),
        Path::new("k=1"),
        &link.join("big.b2nd"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(&link).expect("link").file_type().is_symlink());
    assert_eq!(std::fs::read_link(&link).expect("link"), Path::new("real.b2z"));
    let out = run(&[Path::new("inspect"), Path::new("--json"), &real]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let reports = common::json(&out);
    let member = real.join("big.b2nd").display().to_string();
    let report = reports
        .as_array()
        .expect("an array")
        .iter()
        .find(|r| r["path"] == member.as_str())
        .expect("the member's report");
    assert_eq!(report["vlmetalayers"][0]["name"], "k");
    assert_eq!(names(&dir), ["link.b2z", "real.b2z"]);
    std::fs::remove_dir_all(&dir).expect("clean");
}

/// `header_len` and `cbytes` of a frame (`cbytes`: the int64 after the `0xd3` at byte 0x26).
fn sizes(frame: &[u8]) -> (usize, usize) {
    let header_len = i32::from_be_bytes(frame[11..15].try_into().expect("4 bytes"));
    let cbytes = i64::from_be_bytes(frame[0x27..0x2f].try_into().expect("8 bytes"));
    (
        usize::try_from(header_len).expect("len"),
        usize::try_from(cbytes).expect("cbytes"),
    )
}

#[test]
fn frames_whose_index_or_sizes_lie_are_refused_and_left_as_they_were() {
    let dir = scratch("set-lies");
    let good = std::fs::read(fixture("files/blosc2-4-stores/dictstore.b2d/big.b2nd")).expect("fixture");
    let (header_len, cbytes) = sizes(&good);
    let index_at = header_len + cbytes;
    // The fixture's index is a memcpyed chunk (flags bit 1): its offsets follow its 32-byte
    // header, little-endian int64s from header_len.
    assert_eq!(good[index_at + 2] & 0x02, 0x02);
    let mut past_end = good.clone();
    past_end[index_at + 32..index_at + 40].copy_from_slice(&(1i64 << 40).to_le_bytes());
    let mut cbytes_up = good.clone();
    cbytes_up[0x27..0x2f].copy_from_slice(&i64::try_from(cbytes + 1).expect("i64").to_be_bytes());
    let mut cbytes_down = good.clone();
    cbytes_down[0x27..0x2f].copy_from_slice(&i64::try_from(cbytes - 8).expect("i64").to_be_bytes());
    let mut cbytes_far = good.clone();
    cbytes_far[0x27..0x2f].copy_from_slice(&(1i64 << 40).to_be_bytes());
    let mut broken_index = good.clone();
    broken_index[index_at] = 0; // the index chunk's format version
    let cases: [(&str, &[u8], String); 5] = [
        (
            "past_end",
            &past_end,
            format!(
                "at byte {:#04x} (chunk 0): offset 1099511627776 points past the data",
                index_at + 32
            ),
        ),
        // The index is looked for a byte later, where it is not.
        (
            "cbytes_up",
            &cbytes_up,
            format!("(the index chunk starts at byte {:#04x})", index_at + 1),
        ),
        (
            "cbytes_far",
            &cbytes_far,
            "at byte 0x27: cbytes 1099511627776 lies".to_owned(),
        ),
        (
            "cbytes_down",
            &cbytes_down,
            format!("at byte {:#04x} in the index chunk", index_at - 8),
        ),
        (
            "broken_index",
            &broken_index,
            format!("at byte {index_at:#04x} in the index chunk: blosc2 chunk"),
        ),
    ];
    for (name, bytes, want) in cases {
        let path = dir.join(format!("{name}.b2nd"));
        std::fs::write(&path, bytes).expect("write");
        for dry_run in [false, true] {
            let mut args = vec![Path::new("set"), Path::new("--vlmeta"), Path::new("k=1"), &path];
            if dry_run {
                args.insert(1, Path::new("--dry-run"));
            }
            let out = run(&args);
            assert_eq!(out.status.code(), Some(1), "{name}");
            let message = stderr(&out);
            assert!(
                message.starts_with(&format!("metalayer: {}: ", path.display())),
                "{message}"
            );
            assert!(message.contains(&want), "{name}: {message}\nwants: {want}");
            assert_eq!(std::fs::read(&path).expect("read"), bytes, "{name}");
        }
    }
    assert_eq!(
        names(&dir),
        [
            "broken_index.b2nd",
            "cbytes_down.b2nd",
            "cbytes_far.b2nd",
            "cbytes_up.b2nd",
            "past_end.b2nd"
        ]
    );
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn a_store_member_whose_index_lies_is_refused_and_the_zip_left_as_it_was() {
    let dir = scratch("set-member-lies");
    let zip = dir.join("dictstore.b2z");
    let mut bytes = std::fs::read(fixture("files/blosc2-4-stores/dictstore.b2z")).expect("fixture");
    // `big.b2nd` lies at byte 1940 of the zip (python's zipfile says so: tests/fixtures).
    let at = 1940;
    let (header_len, cbytes) = sizes(&bytes[at..]);
    let offset_at = at + header_len + cbytes + 32;
    bytes[offset_at..offset_at + 8].copy_from_slice(&(1i64 << 40).to_le_bytes());
    std::fs::write(&zip, &bytes).expect("write");
    let member = zip.join("big.b2nd");
    let out = run(&[Path::new("set"), Path::new("--vlmeta"), Path::new("k=1"), &member]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.starts_with(&format!("metalayer: {}: ", member.display())),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "at byte {:#04x} (chunk 0): offset 1099511627776 points past the data",
            offset_at - at
        )),
        "{message}"
    );
    assert_eq!(std::fs::read(&zip).expect("read"), bytes);
    assert_eq!(names(&dir), ["dictstore.b2z"]);
    std::fs::remove_dir_all(&dir).expect("clean");
}

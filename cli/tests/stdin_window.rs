//! A frame on stdin is read through a bounded window, whatever its length: a header whose
//! `frame_len` is 2^62, followed by 2 GiB, is read to its end in less than 256 MiB.
#![cfg(all(target_os = "linux", feature = "inspect"))]

mod common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use common::{BIN, read_fixture};
use serde_json::Value;

/// What the stream holds after the header.
const FOLLOWING: u64 = 2 << 30;

#[test]
fn two_gib_on_stdin_stay_under_256_mib() {
    let mut header = read_fixture("files/blosc2-4/dtype_i4le.b2nd");
    // header_len, an int32 at byte 0x0b (0xd2 at 0x0a); frame_len, a uint64 at byte 0x10
    // (0xcf at 0x0f), as c-blosc2 writes the frame's prefix.
    assert_eq!(header[0x0a], 0xd2);
    assert_eq!(header[0x0f], 0xcf);
    let header_len = u32::from_be_bytes([header[0x0b], header[0x0c], header[0x0d], header[0x0e]]) as usize;
    header.truncate(header_len);
    header[0x10..0x18].copy_from_slice(&(1u64 << 62).to_be_bytes());

    // Reaped below with wait4, which std's wait does not give the resource usage of.
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(BIN)
        .args(["inspect", "--jsonl", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    // The generator: the header, then 2 GiB of zeros, a MiB at a time.
    let generator = std::thread::spawn(move || -> std::io::Result<()> {
        stdin.write_all(&header)?;
        let block = vec![0u8; 1 << 20];
        for _ in 0..FOLLOWING / (1 << 20) {
            stdin.write_all(&block)?;
        }
        Ok(())
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });

    // Waits for the binary with wait4, which gives its own peak resident set.
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: rusage is plain data, for which all zeros is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is the child's, not waited for yet; both pointers are to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    generator
        .join()
        .expect("the generator ends")
        .expect("the whole stream is written");
    let out = out_reader.join().expect("stdout");
    let err = err_reader.join().expect("stderr");

    // On Linux, ru_maxrss is in KiB.
    let peak_mib = usage.ru_maxrss / 1024;
    eprintln!("peak resident set: {peak_mib} MiB");
    assert!(peak_mib < 256, "peak resident set {peak_mib} MiB");
    assert!(libc::WIFEXITED(status), "status {status}");
    assert_eq!(libc::WEXITSTATUS(status), 1, "the trailer is missing: an error\n{err}");

    // The header's metalayer, as python-blosc2 wrote it: a 1-d int32 array of shape 10
    // (expected.json), and why the trailer is not there: the stream ended first.
    let report: Value = serde_json::from_str(out.trim_end()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["format"], 2);
    assert_eq!(report["path"], "-");
    let want = common::expected()
        .into_iter()
        .find(|f| f["path"] == "files/blosc2-4/dtype_i4le.b2nd")
        .expect("the fixture's record");
    let fields = &report["metalayers"][0]["fields"];
    assert_eq!(fields["shape"], want["array"]["shape"], "{report}");
    assert_eq!(fields["dtype"], want["array"]["dtype"], "{report}");
    let read = header_len as u64 + FOLLOWING;
    let error = report["error"].as_str().expect("an error");
    assert!(
        error.ends_with(&format!(
            "frame_len 4611686018427387904 runs past the end of the input ({read} bytes)"
        )),
        "{error}"
    );
    assert!(err.contains(&format!("({read} bytes)")), "{err}");
}

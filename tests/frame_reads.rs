//! What the frame reader reads: the header and the trailer, never the chunks between them, for
//! contiguous and sparse frames. A reader wrapper counts every byte and records where it was.

use std::cell::RefCell;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use metalayer::frame::{Frame, FrameErrorKind, TRAILER_TAIL_LEN, read_metalayers, read_metalayers_from};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every read: where it started and how many bytes it returned.
type Log = Rc<RefCell<Vec<Range<u64>>>>;

/// A `Read + Seek` that records the bytes it hands out.
struct Counting<R> {
    inner: R,
    pos: u64,
    log: Log,
}

impl<R> Counting<R> {
    fn new(inner: R) -> (Self, Log) {
        let log = Log::default();
        (
            Counting {
                inner,
                pos: 0,
                log: log.clone(),
            },
            log,
        )
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.log.borrow_mut().push(self.pos..self.pos + n as u64);
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.pos = self.inner.seek(to)?;
        Ok(self.pos)
    }
}

fn total(log: &Log) -> u64 {
    log.borrow().iter().map(|r| r.end - r.start).sum()
}

/// Every byte read lies in one of `allowed`.
fn all_within(log: &Log, allowed: &[Range<u64>]) -> bool {
    log.borrow()
        .iter()
        .all(|r| allowed.iter().any(|a| a.start <= r.start && r.end <= a.end))
}

#[test]
fn only_the_header_and_the_trailer_are_read_from_every_fixture() {
    let expected: Value = serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap()).unwrap();
    let (mut frames, mut chunk_bytes, mut largest) = (0, 0u64, (0u64, 0u64, String::new()));
    // The frame records: store records (`"store"`) describe .b2z and .b2d stores.
    for entry in expected.as_array().unwrap().iter().filter(|r| r.get("store").is_none()) {
        let rel = entry["frame_file"].as_str().unwrap();
        let path = fixtures().join(rel);
        let file_len = fs::metadata(&path).unwrap().len();
        let frame = Frame::open(fixtures().join(entry["path"].as_str().unwrap())).unwrap();
        let header_len = frame.header.header_len as u64;
        let trailer = frame.trailer.offset..frame.header.frame_len;
        let trailer_len = u64::from(frame.trailer.trailer_len);

        // The whole frame: the header once, the 23 bytes that give trailer_len, the trailer.
        let (reader, log) = Counting::new(File::open(&path).unwrap());
        assert_eq!(Frame::read(reader).unwrap(), frame, "{rel}");
        assert_eq!(total(&log), header_len + TRAILER_TAIL_LEN as u64 + trailer_len, "{rel}");
        assert!(
            all_within(&log, &[0..header_len, trailer.clone()]),
            "{rel}: {:?}",
            log.borrow()
        );

        // The metalayers alone: the header, exactly.
        let (reader, log) = Counting::new(File::open(&path).unwrap());
        assert_eq!(read_metalayers_from(reader).unwrap(), frame.metalayers, "{rel}");
        assert_eq!(total(&log), header_len, "{rel}");
        assert!(log.borrow().iter().all(|r| r.end <= header_len), "{rel}");

        frames += 1;
        let between = file_len - header_len - trailer_len;
        chunk_bytes += between;
        if between > largest.0 {
            largest = (
                between,
                header_len + TRAILER_TAIL_LEN as u64 + trailer_len,
                rel.to_owned(),
            );
        }
    }
    assert!(frames > 150 && chunk_bytes > 0, "{frames} {chunk_bytes}");
    println!(
        "{frames} frames; {chunk_bytes} bytes of chunks never read; the largest gap: {} bytes of chunks in {} ({} bytes read)",
        largest.0, largest.2, largest.1
    );
}

#[test]
fn a_sparse_frame_needs_only_its_chunks_b2frame() {
    let original = fixtures().join("files/blosc2-4-vlmeta/sparse_mixed.b2nd");
    let chunks: Vec<PathBuf> = fs::read_dir(&original)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "chunk"))
        .collect();
    assert!(!chunks.is_empty());

    // A copy without its chunk files reads the same.
    let dir = std::env::temp_dir().join(format!("metalayer-frame-reads-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    fs::copy(original.join("chunks.b2frame"), dir.join("chunks.b2frame")).unwrap();
    let frame = Frame::open(&original).unwrap();
    assert_eq!(Frame::open(&dir).unwrap(), frame);
    assert_eq!(read_metalayers(&dir).unwrap(), frame.metalayers);
    assert!(!frame.vlmetalayers.is_empty());

    // Chunk files that are not chunks at all change nothing either.
    for chunk in &chunks {
        fs::write(dir.join(chunk.file_name().unwrap()), b"not a chunk").unwrap();
    }
    assert_eq!(Frame::open(&dir).unwrap(), frame);

    // In chunks.b2frame itself, only the header and the trailer are read (the index chunk
    // between them is not).
    let (reader, log) = Counting::new(File::open(dir.join("chunks.b2frame")).unwrap());
    Frame::read(reader).unwrap();
    let (h, t) = (frame.header.header_len as u64, u64::from(frame.trailer.trailer_len));
    assert!(frame.header.frame_len > h + t, "an index chunk lies between");
    assert_eq!(total(&log), h + TRAILER_TAIL_LEN as u64 + t);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_huge_frame_is_read_only_at_its_ends() {
    // A real frame whose chunks grow to 8 MiB of junk (frame_len and the trailer moved to the
    // end), then bytes past frame_len, which are not the frame's.
    let original = fs::read(fixtures().join("files/blosc2-4-vlmeta/strings.b2nd")).unwrap();
    let frame = Frame::parse(&original).unwrap();
    let header_len = frame.header.header_len;
    let trailer_at = usize::try_from(frame.trailer.offset).unwrap();
    let junk: Vec<u8> = (0..8u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut bytes = original[..trailer_at].to_vec();
    bytes.extend_from_slice(&junk);
    let new_trailer_at = bytes.len() as u64;
    bytes.extend_from_slice(&original[trailer_at..]);
    let frame_len = bytes.len() as u64;
    bytes[16..24].copy_from_slice(&frame_len.to_be_bytes());
    bytes.extend_from_slice(&junk[..1 << 20]);

    let dir = std::env::temp_dir().join(format!("metalayer-frame-huge-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.b2nd");
    File::create(&path).unwrap().write_all(&bytes).unwrap();

    let (reader, log) = Counting::new(File::open(&path).unwrap());
    let read = Frame::read(reader).unwrap();
    assert_eq!(read.trailer.offset, new_trailer_at);
    assert_eq!(read.metalayers, frame.metalayers);
    assert_eq!(read.vlmetalayers.len(), frame.vlmetalayers.len());
    for (a, b) in read.vlmetalayers.iter().zip(&frame.vlmetalayers) {
        assert_eq!((&a.name, &a.content), (&b.name, &b.content));
        assert_eq!(a.offset - new_trailer_at, b.offset - frame.trailer.offset);
    }
    let trailer_len = u64::from(frame.trailer.trailer_len);
    let read_bytes = total(&log);
    assert_eq!(read_bytes, header_len as u64 + TRAILER_TAIL_LEN as u64 + trailer_len);
    println!(
        "{} bytes in the file, {read_bytes} read: header {header_len}, tail {TRAILER_TAIL_LEN}, trailer {trailer_len}",
        bytes.len()
    );
    assert_eq!(Frame::open(&path).unwrap(), read);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn io_errors_from_a_reader() {
    /// A reader whose reads fail after `ok` bytes.
    struct Failing(io::Cursor<Vec<u8>>, u64);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.position() >= self.1 {
                return Err(io::Error::other("disk on fire"));
            }
            let room = (self.1 - self.0.position()) as usize;
            let n = buf.len().min(room);
            self.0.read(&mut buf[..n])
        }
    }
    impl Seek for Failing {
        fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
            self.0.seek(to)
        }
    }
    let bytes = fs::read(fixtures().join("files/blosc2-4/meta_user.b2nd")).unwrap();
    // Failing inside the header, then inside the trailer.
    for ok in [10, 300] {
        let err = Frame::read(Failing(io::Cursor::new(bytes.clone()), ok)).unwrap_err();
        assert!(
            matches!(err.kind(), FrameErrorKind::Read { source } if source.to_string() == "disk on fire"),
            "{err:?}"
        );
        assert_eq!(err.to_string(), "cannot read the frame");
        assert!(std::error::Error::source(&err).is_some());
    }
    // The header alone does not touch the trailer.
    assert!(read_metalayers_from(Failing(io::Cursor::new(bytes), 240)).is_ok());
}

//! A frame opened by c-blosc2 itself (`blosc2_schunk_open`): its metalayers, its vlmetalayers
//! (`blosc2_vlmeta_get`, decompressed by c-blosc2) and its chunks decompressed, to check the
//! frames other code writes against the reference reader.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;
use std::ptr::{self, NonNull};
use std::sync::Once;

use crate::{CError, Malloced};

/// `BLOSC2_MAX_FILTERS`, `BLOSC2_MAX_METALAYERS` and `BLOSC2_MAX_VLMETALAYERS` in the vendored
/// `blosc2.h`.
const MAX_FILTERS: usize = 6;
const MAX_METALAYERS: usize = 16;
const MAX_VLMETALAYERS: usize = 8192;

/// `struct blosc2_metalayer` in the vendored `blosc2.h`.
#[repr(C)]
struct RawMetalayer {
    name: *mut c_char,
    content: *mut u8,
    content_len: i32,
}

/// The leading fields of `struct blosc2_schunk` in the vendored `blosc2.h` (c-blosc2 2.15),
/// through the vlmetalayers' count: `blosc2_meta_get` is an inline function there, which reads
/// `metalayers` and `nmetalayers` as this does. Only read, never written or moved.
#[repr(C)]
struct RawSchunk {
    version: u8,
    compcode: u8,
    compcode_meta: u8,
    clevel: u8,
    splitmode: u8,
    typesize: i32,
    blocksize: i32,
    chunksize: i32,
    filters: [u8; MAX_FILTERS],
    filters_meta: [u8; MAX_FILTERS],
    nchunks: i64,
    current_nchunk: i64,
    nbytes: i64,
    cbytes: i64,
    data: *mut *mut u8,
    data_len: usize,
    storage: *mut c_void,
    frame: *mut c_void,
    cctx: *mut c_void,
    dctx: *mut c_void,
    metalayers: [*mut RawMetalayer; MAX_METALAYERS],
    nmetalayers: u16,
    vlmetalayers: [*mut RawMetalayer; MAX_VLMETALAYERS],
    nvlmetalayers: i16,
}

unsafe extern "C" {
    fn blosc2_init();
    fn blosc2_schunk_open(urlpath: *const c_char) -> *mut RawSchunk;
    fn blosc2_schunk_open_offset(urlpath: *const c_char, offset: i64) -> *mut RawSchunk;
    fn blosc2_schunk_free(schunk: *mut RawSchunk) -> c_int;
    fn blosc2_vlmeta_get(schunk: *mut RawSchunk, name: *const c_char, content: *mut *mut u8, len: *mut i32) -> c_int;
    fn blosc2_vlmeta_get_names(schunk: *mut RawSchunk, names: *mut *mut c_char) -> c_int;
    fn blosc2_schunk_get_chunk(schunk: *mut RawSchunk, n: i64, chunk: *mut *mut u8, needs_free: *mut bool) -> c_int;
    fn blosc2_cbuffer_sizes(chunk: *const c_void, nbytes: *mut i32, cbytes: *mut i32, blocksize: *mut i32) -> c_int;
    fn blosc2_schunk_decompress_chunk(schunk: *mut RawSchunk, n: i64, dest: *mut c_void, nbytes: i32) -> c_int;
}

/// A frame file or sparse-frame directory opened by c-blosc2; closed on drop.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let schunk = metalayer_cblosc2::Schunk::open(path)?;
/// let names: Vec<String> = schunk.metalayers().into_iter().map(|(name, _)| name).collect();
/// assert_eq!(names, ["b2nd", "units", "scale", "tags", "m"]);
/// assert_eq!(schunk.meta("units"), Some(b"\xa6kelvin".to_vec()));
/// assert!(schunk.vlmeta_names().is_empty());
/// assert!(schunk.nchunks() > 0);
/// assert!(!schunk.chunk(0)?.is_empty());
/// assert!(metalayer_cblosc2::Schunk::open("/nonexistent.b2nd").is_err());
/// # Ok::<(), metalayer_cblosc2::CError>(())
/// ```
#[derive(Debug)]
pub struct Schunk {
    raw: NonNull<RawSchunk>,
}

impl Drop for Schunk {
    fn drop(&mut self) {
        // SAFETY: the pointer came from blosc2_schunk_open and is freed once, here.
        unsafe {
            blosc2_schunk_free(self.raw.as_ptr());
        }
    }
}

/// c-blosc2's global state, set up once before the first frame is opened.
fn init() {
    static INIT: Once = Once::new();
    // SAFETY: blosc2_init takes no arguments and is called once.
    INIT.call_once(|| unsafe { blosc2_init() });
}

/// A C string's bytes as text (names are ASCII in practice).
///
/// # Safety
///
/// `ptr` is null or a NUL-terminated string that lives through the call.
unsafe fn text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: the caller's guarantee.
    unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
}

impl Schunk {
    /// Opens `path` with `blosc2_schunk_open`: a frame file or a sparse-frame directory.
    pub fn open(path: impl AsRef<Path>) -> Result<Schunk, CError> {
        Schunk::open_with(path.as_ref(), None)
    }

    /// Opens the frame stored in the file `path` from byte `offset` (a member of a `.b2z`
    /// store) with `blosc2_schunk_open_offset`.
    ///
    /// ```
    /// let zip = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/files/blosc2-4-stores/dictstore.b2z");
    /// // `big.b2nd`, stored in the zip at byte 1940.
    /// let schunk = metalayer_cblosc2::Schunk::open_offset(zip, 1940)?;
    /// assert_eq!(schunk.metalayers()[0].0, "b2nd");
    /// # Ok::<(), metalayer_cblosc2::CError>(())
    /// ```
    pub fn open_offset(path: impl AsRef<Path>, offset: u64) -> Result<Schunk, CError> {
        Schunk::open_with(path.as_ref(), Some(offset))
    }

    fn open_with(path: &Path, offset: Option<u64>) -> Result<Schunk, CError> {
        init();
        let shown = path.display().to_string();
        let c_path = CString::new(shown.clone()).map_err(|_| CError::Open(shown.clone()))?;
        let raw = match offset {
            // SAFETY: a NUL-terminated path; c-blosc2 returns null when it cannot open it.
            None => unsafe { blosc2_schunk_open(c_path.as_ptr()) },
            Some(offset) => {
                let offset = i64::try_from(offset).map_err(|_| CError::Open(shown.clone()))?;
                // SAFETY: as above, with the frame's first byte in the file.
                unsafe { blosc2_schunk_open_offset(c_path.as_ptr(), offset) }
            }
        };
        NonNull::new(raw).map(|raw| Schunk { raw }).ok_or(CError::Open(shown))
    }

    fn raw(&self) -> &RawSchunk {
        // SAFETY: the schunk lives as long as self, and c-blosc2 does not change it behind us.
        unsafe { self.raw.as_ref() }
    }

    /// The metalayers as c-blosc2 read them: names and contents, in stored order.
    pub fn metalayers(&self) -> Vec<(String, Vec<u8>)> {
        let raw = self.raw();
        let count = usize::from(raw.nmetalayers).min(MAX_METALAYERS);
        raw.metalayers[..count]
            .iter()
            .filter(|m| !m.is_null())
            .map(|&m| {
                // SAFETY: c-blosc2 set each of the first nmetalayers entries to a metalayer
                // whose name is NUL-terminated and whose content holds content_len bytes.
                unsafe {
                    let m = &*m;
                    let len = usize::try_from(m.content_len).unwrap_or(0);
                    let content = if m.content.is_null() {
                        &[][..]
                    } else {
                        std::slice::from_raw_parts(m.content, len)
                    };
                    (text(m.name), content.to_vec())
                }
            })
            .collect()
    }

    /// The content of the metalayer `name`, as `blosc2_meta_get` returns it.
    pub fn meta(&self, name: &str) -> Option<Vec<u8>> {
        self.metalayers()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, content)| content)
    }

    /// The vlmetalayers' names, in stored order (`blosc2_vlmeta_get_names`).
    pub fn vlmeta_names(&self) -> Vec<String> {
        let count = usize::try_from(self.raw().nvlmetalayers)
            .unwrap_or(0)
            .min(MAX_VLMETALAYERS);
        let mut names: Vec<*mut c_char> = vec![ptr::null_mut(); count];
        // SAFETY: room for every name; c-blosc2 stores pointers to the names it holds.
        let n = unsafe { blosc2_vlmeta_get_names(self.raw.as_ptr(), names.as_mut_ptr()) };
        let n = usize::try_from(n).unwrap_or(0).min(count);
        // SAFETY: the first n pointers are the schunk's NUL-terminated names.
        names[..n].iter().map(|&p| unsafe { text(p) }).collect()
    }

    /// The value of the vlmetalayer `name`, decompressed by c-blosc2 (`blosc2_vlmeta_get`).
    pub fn vlmeta(&self, name: &str) -> Result<Vec<u8>, CError> {
        let c_name = CString::new(name).map_err(|_| CError::Missing(name.to_owned()))?;
        let mut content: *mut u8 = ptr::null_mut();
        let mut len: i32 = 0;
        // SAFETY: valid out pointers; on success c-blosc2 mallocs `len` bytes in `content`.
        let code = unsafe { blosc2_vlmeta_get(self.raw.as_ptr(), c_name.as_ptr(), &mut content, &mut len) };
        let _guard = Malloced(content);
        if code < 0 {
            return Err(CError::Status(code));
        }
        let len = usize::try_from(len).unwrap_or(0);
        if content.is_null() {
            return Ok(Vec::new());
        }
        // SAFETY: c-blosc2 wrote `len` bytes at `content`, freed by the guard after the copy.
        Ok(unsafe { std::slice::from_raw_parts(content, len) }.to_vec())
    }

    /// The number of chunks.
    pub fn nchunks(&self) -> i64 {
        self.raw().nchunks
    }

    /// Chunk `n`, decompressed by c-blosc2 (`blosc2_schunk_decompress_chunk`).
    pub fn chunk(&self, n: i64) -> Result<Vec<u8>, CError> {
        let mut chunk: *mut u8 = ptr::null_mut();
        let mut needs_free = false;
        // SAFETY: valid out pointers; the chunk is c-blosc2's or malloc'ed when `needs_free`.
        let code = unsafe { blosc2_schunk_get_chunk(self.raw.as_ptr(), n, &mut chunk, &mut needs_free) };
        let _guard = Malloced(if needs_free { chunk } else { ptr::null_mut() });
        if code < 0 || chunk.is_null() {
            return Err(CError::Status(code.min(-1)));
        }
        let (mut nbytes, mut cbytes, mut blocksize) = (0, 0, 0);
        // SAFETY: the chunk holds at least its header (c-blosc2 checked it when reading it).
        let code = unsafe { blosc2_cbuffer_sizes(chunk.cast(), &mut nbytes, &mut cbytes, &mut blocksize) };
        if code < 0 {
            return Err(CError::Status(code));
        }
        let mut out = vec![0u8; usize::try_from(nbytes).unwrap_or(0)];
        // SAFETY: `out` holds the nbytes c-blosc2 writes.
        let code = unsafe { blosc2_schunk_decompress_chunk(self.raw.as_ptr(), n, out.as_mut_ptr().cast(), nbytes) };
        if code < 0 {
            return Err(CError::Status(code));
        }
        out.truncate(usize::try_from(code).unwrap_or(0));
        Ok(out)
    }
}

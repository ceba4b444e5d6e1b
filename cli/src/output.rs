//! Writing to stdout and stderr without panicking, and remembering whether anything failed.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

/// Why a command stopped before it finished writing.
#[derive(Debug)]
pub enum Stop {
    /// The reader of stdout went away (`metalayer inspect ... | head`): stop quietly.
    BrokenPipe,
    /// Writing to stdout failed otherwise.
    Io(io::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Stop::BrokenPipe
        } else {
            Stop::Io(e)
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::BrokenPipe => f.write_str("broken pipe"),
            Stop::Io(e) => write!(f, "cannot write to stdout: {e}"),
        }
    }
}

/// An error's message followed by those of its sources, each after `: `, as the command shows
/// errors: `cannot read x.b2nd: No such file or directory (os error 2)`.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// Whether raw bytes bound for `output` must be refused: they would go to stdout (`-o -`),
/// stdout is a terminal, and `--force` was not given. Binary bytes on a terminal are garbage at
/// best and terminal control sequences at worst, so, as `gzip` and `zstd` do, the command
/// refuses unless forced; a pipe or a file is always fine.
pub fn refuses_binary(output: Option<&Path>, force: bool, stdout_is_terminal: bool) -> bool {
    output == Some(Path::new("-")) && stdout_is_terminal && !force
}

/// `text` with every control character (C0, DEL and C1; line ends too, since a message is one
/// line) written as `\u00XX`: a message quotes paths and names from files, and none of their
/// bytes reaches the terminal raw.
///
/// ```text
/// escape_controls("a\u{7f}b\nc") == "a\\u007fb\\u000ac"
/// ```
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// stdout, stderr and the failure flag of one run.
pub struct Out {
    stdout: io::BufWriter<Box<dyn Write>>,
    failed: bool,
}

/// stdout as the run writes it: on Unix its file descriptor itself, so that buffered output
/// goes out in whole buffers (the standard library's stdout looks for line ends in each); else
/// the locked stdout.
fn raw_stdout() -> Box<dyn Write> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(io::stdout().lock())
}

impl Out {
    /// stdout for the run, buffered: [`flush`](Self::flush) before the run ends.
    pub fn new() -> Self {
        Out {
            stdout: io::BufWriter::with_capacity(64 << 10, raw_stdout()),
            failed: false,
        }
    }

    /// stdout, for writing as a report is read.
    #[cfg(feature = "inspect")]
    pub fn writer(&mut self) -> &mut impl Write {
        &mut self.stdout
    }

    /// Writes text to stdout.
    pub fn print(&mut self, text: &str) -> Result<(), Stop> {
        self.stdout.write_all(text.as_bytes())?;
        Ok(())
    }

    /// Writes bytes to stdout.
    pub fn print_bytes(&mut self, bytes: &[u8]) -> Result<(), Stop> {
        self.stdout.write_all(bytes)?;
        Ok(())
    }

    /// Flushes stdout.
    pub fn flush(&mut self) -> Result<(), Stop> {
        self.stdout.flush()?;
        Ok(())
    }

    /// Reports an error on stderr (`metalayer: ...`) and marks the run as failed. Control
    /// characters in it (from a path or a name it quotes) are escaped ([`escape_controls`]).
    pub fn error(&mut self, message: impl fmt::Display) {
        self.failed = true;
        // Text already written to stdout goes first, so that the two streams interleave sensibly
        // on a terminal. Nothing more can be done if stdout or stderr cannot be written.
        let _ = self.stdout.flush();
        let message = message.to_string();
        let _ = writeln!(io::stderr().lock(), "metalayer: {}", escape_controls(&message));
    }

    /// Reports a warning on stderr (`metalayer: warning: ...`): something was read and shown,
    /// not as it should have been. The run does not fail for it.
    #[cfg(feature = "inspect")]
    pub fn warning(&mut self, message: impl fmt::Display) {
        let _ = self.stdout.flush();
        let message = message.to_string();
        let _ = writeln!(io::stderr().lock(), "metalayer: warning: {}", escape_controls(&message));
    }

    /// Reports errors that name their own place (`path:line:column: message`, as compilers
    /// print them) on stderr, as they are, and marks the run as failed.
    pub fn located_errors(&mut self, text: &str) {
        self.failed = true;
        let _ = self.stdout.flush();
        let _ = writeln!(io::stderr().lock(), "{text}");
    }

    /// Whether an error was reported.
    pub fn failed(&self) -> bool {
        self.failed
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{escape_controls, refuses_binary};

    #[test]
    fn messages_carry_no_control_character() {
        assert_eq!(escape_controls("plain é"), "plain é");
        assert_eq!(
            escape_controls("a\u{7f}b\nc\u{1b}[31m\u{85}"),
            "a\\u007fb\\u000ac\\u001b[31m\\u0085"
        );
    }

    #[test]
    fn binary_refused_only_on_a_terminal_without_force() {
        let stdout = Some(Path::new("-"));
        let file = Some(Path::new("meta.bin"));
        // (output, force, terminal, refused)
        for (output, force, terminal, refused) in [
            (stdout, false, true, true),
            (stdout, true, true, false),
            (stdout, false, false, false),
            (stdout, true, false, false),
            (file, false, true, false),
            (file, true, true, false),
            (None, false, true, false),
            (None, false, false, false),
            (Some(Path::new("./-")), false, true, false),
        ] {
            assert_eq!(
                refuses_binary(output, force, terminal),
                refused,
                "{output:?} force={force} terminal={terminal}"
            );
        }
    }
}

#[cfg(all(test, feature = "inspect"))]
mod chain_tests {
    use super::chain;

    #[test]
    fn chain_shows_each_source_once() {
        let err = metalayer::frame::FrameError::io("x.b2nd", std::io::Error::new(std::io::ErrorKind::NotFound, "gone"));
        assert_eq!(chain(&err), "cannot read x.b2nd: gone");
        let not_io = metalayer::frame::Frame::parse(b"").unwrap_err();
        assert_eq!(chain(&not_io), not_io.to_string());
    }
}

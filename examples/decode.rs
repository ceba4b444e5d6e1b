//! Decodes the metalayers of a Blosc2 file (by default a sample shipped in the repository) and
//! prints them: `cargo run --example decode [PATH]`.

use metalayer::{EntryVisitor, Known, frame};

/// Prints each entry on its own line.
struct Print;

impl EntryVisitor for Print {
    fn int(&mut self, name: &'static str, value: i128) {
        println!("    {name}: {value}");
    }
    fn ints(&mut self, name: &'static str, values: &mut dyn Iterator<Item = i128>) {
        let values: Vec<String> = values.map(|v| v.to_string()).collect();
        println!("    {name}: [{}]", values.join(", "));
    }
    fn str(&mut self, name: &'static str, value: &str) {
        println!("    {name}: {value:?}");
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/files/blosc2-4/meta_user.b2nd"
        )
        .into()
    });
    println!("{path}");
    for ml in frame::read_metalayers(&path)? {
        match Known::decode(&ml.name, &ml.content) {
            Ok(known) => {
                println!("  {} ({} bytes, schema {})", ml.name, ml.content.len(), known.schema());
                metalayer::Entries::visit_entries(&known, &mut Print);
            }
            Err(metalayer::DispatchError::UnknownName { .. }) => {
                let hex: String = ml.content.iter().map(|b| format!("{b:02x}")).collect();
                println!("  {} ({} bytes): {hex}", ml.name, ml.content.len());
            }
            Err(e) => return Err(format!("{path}: metalayer {}: {e}", ml.name).into()),
        }
    }
    Ok(())
}

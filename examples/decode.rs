//! Decodes the metalayers of a Blosc2 file (by default a sample shipped in the repository) and
//! prints them: `cargo run --example decode [PATH]`.

use metalayer::Known;
use metalayer::frame::Frame;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/files/blosc2-4/meta_user.b2nd"
        )
        .into()
    });
    println!("{path}");
    for ml in Frame::open(&path)?.metalayers {
        match Known::decode(&ml.name, &ml.content) {
            Ok(known) => {
                println!("  {} ({} bytes, schema {})", ml.name, ml.content.len(), known.schema());
                println!("    {known:?}");
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

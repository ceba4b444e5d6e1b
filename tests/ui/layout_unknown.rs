// Attribute: `layout` names a record type the schema does not have.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/kinds.toml", layout = "pointt")]
pub struct P {
    pub x: f64,
}

fn main() {}

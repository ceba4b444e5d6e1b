// Class: a dispatch enum over two layouts stored under one name that cannot be told apart from
// their bytes: the build says where they would need to differ.
use metalayer::metalayer;

#[metalayer(schema_path = "tests/schemas/dispatch/point_int_v0.toml")]
struct PointInt {
    label: String,
    value: i64,
}

#[metalayer(schema_path = "tests/schemas/dispatch/point_int64_v0.toml")]
struct PointInt64 {
    label: String,
    value: i64,
}

#[metalayer(dispatch)]
enum Point {
    #[metalayer(schema_path = "tests/schemas/dispatch/point_int_v0.toml")]
    Any(PointInt),
    #[metalayer(schema_path = "tests/schemas/dispatch/point_int64_v0.toml")]
    Int64(PointInt64),
}

fn main() {}

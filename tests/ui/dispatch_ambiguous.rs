// Class: a dispatch enum whose layouts under one metalayer name cannot be told apart from their bytes.
use metalayer::caterva::CatervaV0;
use metalayer::metalayer;

#[metalayer(dispatch)]
enum Ambiguous {
    #[metalayer(schema = "caterva_v0")]
    First(CatervaV0),
    #[metalayer(schema = "caterva_v0")]
    Second(CatervaV0),
}

fn main() {}

// Class: a dispatch variant whose type was generated from another schema than the one it names.
use metalayer::b2nd::B2ndV1;
use metalayer::caterva::CatervaV0;
use metalayer::metalayer;

#[metalayer(dispatch)]
enum Mislabelled {
    #[metalayer(schema = "b2nd_v1")]
    V1(CatervaV0),
    #[metalayer(schema = "b2nd_v0")]
    V0(B2ndV1),
}

fn main() {}

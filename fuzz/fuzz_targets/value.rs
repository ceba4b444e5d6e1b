//! The run-time value engine on any bytes: as plain msgpack (python-blosc2's ext types
//! included), as a value of each c-blosc2 layout, and as a whole frame reported with every
//! frame nested in it, in JSON and in text. Nothing panics, no limit of the input's budget is
//! passed, a value that checks writes without an error, and text holds no control character.
#![no_main]

use libfuzzer_sys::fuzz_target;
use metalayer::report::{Context, FrameReport, Reading, Registry, builtin};
use metalayer::value::{Budget, Msgpack, Style, Typed, write_json, write_text};

fuzz_target!(|data: &[u8]| {
    let budget = Budget::with_limits(1 << 16, 1 << 20, 1 << 22);
    if let Ok(value) = Msgpack::new(data, &budget) {
        let mut json = Vec::new();
        write_json(&mut json, &value).expect("a checked value writes");
        serde_json::from_slice::<serde_json::Value>(&json).expect("the JSON reads back");
        let mut text = Vec::new();
        write_text(&mut text, &value.style(Style::Text)).expect("a checked value writes");
        let text = String::from_utf8(text).expect("text is UTF-8");
        assert!(!text.chars().any(char::is_control), "{text:?}");
    }
    for schema in ["b2nd_v1", "b2nd_v0", "caterva_v0"] {
        let layout = builtin(schema).expect("a built-in");
        if let Ok(value) = Typed::new(layout, data) {
            let json = serde_json::to_value(value).expect("a checked value writes");
            let bytes = metalayer::value::encode(layout, &json).expect("a decoded value encodes");
            assert_eq!(bytes, data, "{schema}: {json}");
        }
    }
    if let Ok(frame) = metalayer::frame::Frame::parse(data) {
        let registry = Registry::builtin();
        let cx = Context::with_budget(&registry, Budget::with_limits(1 << 16, 1 << 20, 1 << 22));
        let report = FrameReport::new(&cx, Reading::Whole(frame));
        let mut out = Vec::new();
        write_json(&mut out, &report).expect("a report writes");
        let mut text = Vec::new();
        report.write_text(&mut text, "fuzz", false).expect("a report writes");
        let text = String::from_utf8(text).expect("text is UTF-8");
        assert!(text.lines().all(|l| !l.chars().any(char::is_control)), "{text:?}");
    }
});
